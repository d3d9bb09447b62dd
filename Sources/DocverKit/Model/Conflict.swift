import Foundation

/// A document in conflict: the NSFileVersion view of one document.
public struct Conflict: Sendable, Hashable {
    /// The document in conflict.
    public let document: DocumentPath
    /// The current version: the same on every device that has seen the same saves. When the
    /// document has no version on this line (a plain folder of its name stands there, and the
    /// file is a conflict version), it is a deletion version at this device's head, while
    /// ``Container/currentVersion(of:)`` is nil.
    public let current: DocumentVersion
    /// Unresolved conflict versions, newest first.
    public let conflicts: [DocumentVersion]
    /// The base of the newest conflict version (see ``base(of:)``), when there is one.
    public var base: DocumentVersion? { conflicts.first.flatMap { bases[$0.id] } }
    /// Each conflict version's base, by version id.
    let bases: [String: DocumentVersion]

    /// The version a conflict version and the current version both started from: the best
    /// common ancestor of the two in the document's version graph, the same on every device.
    /// nil when the document did not exist there (both added it independently).
    public func base(of version: DocumentVersion) -> DocumentVersion? { bases[version.id] }
}
