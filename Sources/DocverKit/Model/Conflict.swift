import Foundation

/// A document in conflict: the NSFileVersion view of one document.
public struct Conflict: Sendable, Hashable {
    /// The document in conflict.
    public let document: DocumentPath
    /// The current version: the same on every device that has seen the same saves.
    public let current: DocumentVersion
    /// Unresolved conflict versions, newest first.
    public let conflicts: [DocumentVersion]
    /// The common base the competing versions started from, when there is one.
    public let base: DocumentVersion?
}
