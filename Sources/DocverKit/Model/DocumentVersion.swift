import Foundation

/// Whether a document is one file or a file package (a directory with an extension).
public enum DocumentKind: String, Sendable, Codable, Hashable {
    case flat
    case package
}

/// One saved state of a document: the NSFileVersion role.
///
/// A version is identified by the id of the save that produced it (a git commit id); any
/// unique prefix of at least four digits finds it again. A version may record a deletion.
public struct DocumentVersion: Hashable, Sendable, Identifiable {
    /// The full version id (40 hexadecimal digits).
    public let id: String
    /// The document this is a version of.
    public let document: DocumentPath
    /// The device that saved it.
    public let device: Device
    /// When it was saved.
    public let modified: Date
    /// The document's display name (file name without extension).
    public var displayName: String { document.displayName }
    /// Size in bytes (the sum of all components for a package; 0 for a deletion); nil when
    /// the contents are not on this device (a device that keeps documents on demand fetches an
    /// older version's contents only when a command reads them, and git records no size
    /// beside a file's id).
    public let size: Int64?
    /// Flat file or package.
    public let kind: DocumentKind
    /// True when this version records the document's deletion.
    public let isDeletion: Bool

    /// The dates docver shows, exclusive of both ends: a save recorded outside 0001–9999 (a
    /// damaged or forged commit) carries the nearest end, which keeps ordering total but is no
    /// date anyone saved at.
    public static let validDates = Date(timeIntervalSince1970: -62_135_596_800)...Date(timeIntervalSince1970: 253_402_300_799)

    /// True when `date` is strictly inside ``validDates`` (a clamped date is at one of its ends).
    public static func isValidDate(_ date: Date) -> Bool {
        date > validDates.lowerBound && date < validDates.upperBound
    }

    /// The first twelve digits of ``id``, enough to find it again in practice.
    public var shortID: String { String(id.prefix(12)) }

    let commitID: ObjectID
    let entryID: ObjectID?
}

/// The contents of one version of a document.
public enum DocumentContents: Hashable, Sendable {
    /// A flat document's bytes.
    case flat(Data)
    /// A file package's components.
    case package(FilePackage)
    /// The document does not exist in this version.
    case deleted
}

/// The components of a file package (the NSFileWrapper role): files by their path inside the
/// package, such as `text.txt` or `images/photo.png`.
public struct FilePackage: Hashable, Sendable {
    /// Component bytes keyed by slash-separated path inside the package.
    public var files: [String: Data]

    /// Creates a package from its components.
    public init(files: [String: Data] = [:]) { self.files = files }

    /// Total size of all components.
    public var size: Int64 { files.values.reduce(0) { $0 + Int64($1.count) } }
}
