import Foundation

/// How a document changed.
public enum ChangeKind: String, Sendable, Codable, Hashable {
    case added, modified, deleted
}

/// One document's change, in a save or in the working tree.
public struct DocumentChange: Sendable, Hashable, Codable {
    /// The document.
    public let document: DocumentPath
    /// Added, modified or deleted.
    public let change: ChangeKind
}

/// The outcome of a save.
public struct SaveResult: Sendable, Hashable {
    /// The id of the save (the new versions' id).
    public let id: String
    /// The documents it recorded.
    public let changes: [DocumentChange]
}

/// The outcome of saving in-memory contents (``Container/saveContents(_:of:basedOn:message:)``).
public struct ContentsSaveResult: Sendable, Hashable {
    /// The save that recorded the contents.
    public let save: String
    /// The head the branch moved to: the save itself, or an integration when the document had
    /// changed underneath (then the contents take part in the conflict rules).
    public let head: String
    /// True when the document had changed since `basedOn` and the save became a competing version.
    public let competed: Bool
    /// The document's current version after the save (the saved one, unless another won).
    public let current: DocumentVersion
}
