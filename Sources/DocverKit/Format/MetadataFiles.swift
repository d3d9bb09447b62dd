import Foundation

// docs/FORMAT.md, "Local files": what docver keeps in `.git/docver`. Nothing here is shared
// with other devices; caches can be deleted at any time and are rebuilt from history.

/// The paths of docver's local files in one container.
struct MetadataFiles: Sendable {
    /// `.git/docver`.
    let directory: String

    init(gitDirectory: String) { directory = gitDirectory + "/docver" }

    /// The writer lock: docver processes that change the container take turns.
    var lock: String { directory + "/lock" }
    /// Present while a working-tree update is under way; names the tree it started from.
    var checkoutPending: String { directory + "/checkout-pending" }
    /// Present while a multi-step write is under way: its ``WriteIntent``.
    var intent: String { directory + "/intent" }
    /// Where a working-tree update makes its temporary files (``StagingFolder``); empty but
    /// for what a killed update left, which the next one removes.
    var staging: String { directory + "/staging" }
    /// Cache: the conflict records reachable from one head (``ConflictState``).
    var conflictState: String { directory + "/conflicts.json" }
    /// Cache: the conflict listing of one head.
    var conflictListing: String { directory + "/conflict-listing" }
    /// Cache: the document listing (`ls`) of one head and its tracking branches.
    var documentListing: String { directory + "/document-listing" }
    /// Where builds before the text listing kept it (removed when the listing is stored).
    var formerConflictListing: String { directory + "/conflict-listing.json" }
    /// Cache: which commit introduced a document's state, by (commit, path) (``VersionMemo``).
    var versionMemo: String { directory + "/versions.json" }
    /// Derived data: per commit, the documents it changed against each parent (``VersionIndex``).
    var versionIndex: String { directory + "/version-index" }
    /// The device heads that passed the arrival checks, under the settings of its first line
    /// (``CheckedHeadsFile``).
    var checkedHeads: String { directory + "/checked-heads" }
    /// The devices a sync named for a clock ahead of this one, one id per line.
    var clockAhead: String { directory + "/clock-ahead" }
    /// The documents evicted from this device's working tree, one path a line (``EvictedFile``).
    var evicted: String { directory + "/evicted" }
    /// A running `download`'s progress (``DownloadProgressFile``).
    var downloading: String { directory + "/downloading" }
    /// The running agent's process id; the agent holds an flock on it while it runs.
    var agentPID: String { directory + "/agent.pid" }
    /// The running agent's Unix socket (mode 0600).
    var agentSocket: String { directory + "/agent.sock" }
    /// Where `docver agent start` sends a background agent's events.
    var agentLog: String { directory + "/agent.log" }
}
