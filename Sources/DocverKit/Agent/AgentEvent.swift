import Foundation

/// Something the agent did or noticed, in the order it happened.
public struct AgentEvent: Sendable {
    /// When it happened.
    public let date: Date
    /// What happened.
    public let kind: Kind

    init(_ kind: Kind, date: Date = Date()) {
        self.kind = kind
        self.date = date
    }

    /// The kinds of event.
    public enum Kind: Sendable {
        /// The agent runs: it holds the container's agent lock, listens on its socket and
        /// watches `folders` folders.
        case started(pid: Int32, folders: Int)
        /// A full scan of the working tree (at start, after the kernel dropped events, or
        /// while some folders cannot be watched) found `documents` documents to autosave.
        case scanned(reason: ScanReason, documents: Int)
        /// An autosave: documents quiet for the delay were saved as one version.
        case saved(SaveResult)
        /// A sync with the remotes brought in saves or pushed this device's.
        case synced(SyncReport)
        /// A document gained conflict versions in a sync. `versions` are the conflict versions
        /// recorded (when this device recorded them); `yoursLost` is true when this device's
        /// version became a conflict version.
        case conflict(document: DocumentPath, versions: [String], yoursLost: Bool)
        /// A remote could not be reached; saves wait and the next attempt is in `retryIn`.
        case offline(since: Date, reason: String, retryIn: Duration)
        /// The remotes answer again after being unreachable since `offlineSince`.
        case online(offlineSince: Date)
        /// Something failed but the agent carries on (an autosave refused, a folder not watched).
        case warning(String)
        /// The agent stopped (asked to, or by SIGTERM) after finishing what it was doing.
        case stopped
    }

    /// Why the agent scanned the whole working tree.
    public enum ScanReason: String, Sendable, Codable {
        /// At start: edits made while no agent ran.
        case start
        /// The kernel's event queue overflowed.
        case overflow
        /// Some folders cannot be watched (the watch limit), so changes there are found by scanning.
        case unwatched
    }
}

/// What a running agent reports about itself (`docver agent status`, the socket's `status`).
public struct AgentStatus: Sendable, Codable, Hashable {
    /// The agent's process id.
    public var pid: Int32
    /// The container's root.
    public var container: String
    /// This device's id.
    public var device: String
    /// When the agent started.
    public var started: Date
    /// False while a remote cannot be reached.
    public var online: Bool
    /// Since when the remotes cannot be reached (nil while online).
    public var offlineSince: Date?
    /// The last reason a remote could not be reached.
    public var lastError: String?
    /// Documents changed and waiting for their quiet delay.
    public var pendingDocuments: Int
    /// Folders watched with inotify.
    public var watchedFolders: Int
    /// Autosaves made since the start.
    public var saves: Int
    /// When the last autosave was made.
    public var lastSave: Date?
    /// When the remotes last answered.
    public var lastSync: Date?
    /// Syncs that reached every remote since the start (a poll that found nothing new counts).
    public var syncs: Int = 0
    /// Clients (live queries, editors) told of every reference move.
    public var subscribers: Int = 0
}
