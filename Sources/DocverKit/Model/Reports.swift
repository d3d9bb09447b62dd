import Foundation

/// What differs from the last save, and what is in conflict.
public struct ContainerStatus: Sendable, Hashable {
    /// Documents changed in the working tree since the last save.
    public let changed: [DocumentChange]
    /// Documents with unresolved conflict versions, and how many each has.
    public let inConflict: [DocumentConflictCount]
}

/// A document and its number of unresolved conflict versions.
public struct DocumentConflictCount: Sendable, Hashable {
    /// The document in conflict.
    public let document: DocumentPath
    /// How many unresolved conflict versions it has.
    public let conflicts: Int
}

/// One entry of ``Container/log(of:limit:)``: a save, an integration or a resolution.
public struct LogEntry: Sendable, Hashable {
    /// A save of documents, an integration of other devices' saves, or a resolution.
    public enum Kind: String, Sendable, Codable { case save, integration, resolution }
    /// The commit id.
    public let id: String
    /// What kind of entry this is.
    public let kind: Kind
    /// The device that made it (`docver` for integrations).
    public let device: Device
    /// When it was made.
    public let date: Date
    /// The first line of its message.
    public let subject: String
    /// The documents it changed (empty for integrations).
    public let changes: [DocumentChange]
    /// Versions that this integration recorded as conflict versions.
    public let conflicts: Int
}

/// What a sync did.
public struct SyncReport: Sendable, Hashable {
    /// The save made first to record unsaved edits, if any.
    public var savedBeforeSync: SaveResult?
    /// True when other devices' saves were brought in.
    public var integrated = false
    /// Conflict versions this sync recorded, by document.
    public var newConflicts: [DocumentPath: [String]] = [:]
    /// Remotes this device's branch was pushed to.
    public var pushed: [String] = []
    /// Things the user should know that did not stop the sync.
    public var warnings: [String] = []
}

/// A configured remote.
public struct RemoteInfo: Sendable, Hashable, Codable {
    /// The remote's name.
    public let name: String
    /// The remote's URL.
    public let url: String
}
