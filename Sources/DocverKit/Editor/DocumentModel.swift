import Foundation

/// What an editor provides to ``ManagedDocument``: the two override points of UIDocument.
///
/// `init(contents:type:)` plays `load(fromContents:ofType:)` and ``contents(forType:)`` plays
/// `contents(forType:)`. A flat document exchanges bytes; a package exchanges a
/// ``FilePackage`` of named components (the NSFileWrapper role). Components an editor did not
/// change keep their bytes, so they are stored once, as the same git blobs.
public protocol DocumentModel: Sendable {
    /// Loads the model from stored contents of a document of the given type (its extension).
    init(contents: DocumentContents, type: String) throws
    /// A snapshot of the model for saving.
    func contents(forType type: String) throws -> DocumentContents
}

/// The states of a ``ManagedDocument``, as UIDocument.State.
public struct DocumentState: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The bits of the set.
    public let rawValue: UInt
    /// Creates a state from its bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Open, no conflict, no error: the empty set.
    public static let normal: DocumentState = []
    /// Not open: nothing is loaded.
    public static let closed = DocumentState(rawValue: 1 << 0)
    /// Unresolved conflict versions exist.
    public static let inConflict = DocumentState(rawValue: 1 << 1)
    /// The last save failed; cleared by the next successful save.
    public static let savingError = DocumentState(rawValue: 1 << 2)
    /// A newer version is being loaded; edits are refused meanwhile.
    public static let editingDisabled = DocumentState(rawValue: 1 << 3)

    /// The flags by name, such as `inConflict+savingError`.
    public var description: String {
        if isEmpty { return "normal" }
        let names: [(DocumentState, String)] = [
            (.closed, "closed"), (.inConflict, "inConflict"), (.savingError, "savingError"),
            (.editingDisabled, "editingDisabled"),
        ]
        return names.filter { contains($0.0) }.map(\.1).joined(separator: "+")
    }
}

/// How an edit changed the document, as UIDocument.ChangeKind.
public enum DocumentChangeKind: Sendable {
    case done, undone, redone, cleared
}

/// Things a ``ManagedDocument`` tells its editor, besides state changes.
public enum DocumentEvent: Sendable, Hashable {
    /// A newer version arrived and the model was reloaded from it (the file-presenter role).
    case reloaded(version: String)
    /// The document was saved (autosave or explicit).
    case saved(version: String)
    /// Unsaved edits met a newer version: they were saved and now compete under the conflict rules.
    case editsSavedIntoConflict(version: String)
    /// ``ManagedDocument/open()`` is bringing back an evicted document: `percent` (0 to 100)
    /// of its contents have arrived.
    case downloading(percent: Double)
}

/// Built-in models for the common cases.
public struct TextModel: DocumentModel, Hashable {
    /// The document's text.
    public var text: String
    /// A model holding `text`.
    public init(text: String = "") { self.text = text }
    /// Loads the model from stored contents.
    public init(contents: DocumentContents, type: String) throws {
        guard case let .flat(data) = contents else { throw DocverError.notMergeable(document: type, reason: "not a flat document") }
        text = String(decoding: data, as: UTF8.self)
    }
    /// The contents to save.
    public func contents(forType type: String) throws -> DocumentContents { .flat(Data(text.utf8)) }
}

/// A package model that keeps components as they are.
public struct PackageModel: DocumentModel, Hashable {
    /// The package's components.
    public var package: FilePackage
    /// A model holding `package`.
    public init(package: FilePackage = FilePackage()) { self.package = package }
    /// Loads the model from stored contents.
    public init(contents: DocumentContents, type: String) throws {
        guard case let .package(package) = contents else { throw DocverError.notMergeable(document: type, reason: "not a package") }
        self.package = package
    }
    /// The contents to save.
    public func contents(forType type: String) throws -> DocumentContents { .package(package) }
}
