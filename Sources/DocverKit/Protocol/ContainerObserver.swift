import Foundation
import Synchronization

/// Tells `docver serve`'s client what changed in the container, whoever changed it: this
/// server, another docver process, the agent, a plain git command, or another device's saves
/// brought in by a sync.
///
/// Every such change moves a reference, so the observer watches the references with
/// inotify (``ReferenceWatcher``, as the agent does for its subscribers), and when one moved
/// takes the container's state again (``ContainerState``) and reports the difference with the
/// state before: documents whose current version changed, conflict versions that appeared or
/// were resolved, key-value store keys that changed, remote-tracking branches that moved.
/// Nothing is reported that the states do not show, and a burst of moves (a sync moves
/// several references) is reported once, when it is over.
final class ContainerObserver: Sendable {
    static let notifications = ["documentChanged", "conflictAppeared", "conflictResolved", "syncStateChanged", "keyValueChanged"]

    /// The watcher, handed from the thread that made it to the observer's thread once, in
    /// ``start()``; neither touches it at the same time.
    private final class Handover: @unchecked Sendable {
        var watcher: ReferenceWatcher?
        var state: ContainerState
        init(_ watcher: ReferenceWatcher, _ state: ContainerState) { self.watcher = watcher; self.state = state }
    }

    private let container: Container
    private let send: @Sendable (any Encodable & Sendable) -> Void
    private let wake: WakePipe
    private let stopped = Atomic<Bool>(false)
    private let handover: Handover

    /// Watches the references, then takes the first state (in that order: a change made
    /// after this returns is reported). Blocking: call it off the cooperative pool.
    init(container: Container, send: @escaping @Sendable (any Encodable & Sendable) -> Void) throws {
        self.container = container
        self.send = send
        wake = try DocverError.wrapping { try WakePipe() }
        let watcher = try ReferenceWatcher(gitDirectory: container.gitDirectory)
        try watcher.start()
        handover = Handover(watcher, try ContainerState(of: container))
    }

    /// Runs the observer on a thread of its own until ``stop()``.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "docver serve: observer"
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        wake.wake()
    }

    /// How often the running agent is asked whether it can reach its remotes (its going
    /// offline or online moves no reference).
    static let agentCheckInterval: Duration = .seconds(1)

    /// Whether the agent running on the container reaches its remotes; nil when none runs
    /// (or it does not answer within a moment).
    private func agentOnline() -> (online: Bool, since: Date?, reason: String?)? {
        guard let status = try? Agent.status(of: container, timeout: .milliseconds(200)) else { return nil }
        return (status.online, status.offlineSince, status.lastError)
    }

    private func run() {
        guard let watcher = handover.watcher else { return }
        handover.watcher = nil
        var state = handover.state
        var retry = false
        // The agent's last known reach: a change is reported; an agent that stops (or
        // starts) in the state last known is not news.
        var agentReach = agentOnline()?.online
        while !stopped.load(ordering: .sequentiallyConsistent) {
            watcher.wait(timeout: retry ? .milliseconds(200) : Self.agentCheckInterval, waking: wake)
            guard !stopped.load(ordering: .sequentiallyConsistent) else { return }
            if let agent = agentOnline(), agent.online != agentReach {
                agentReach = agent.online
                send(
                    ProtocolNotification(
                        method: "syncStateChanged",
                        params: SyncStateChange(agentOnline: agent.online, since: agent.since, reason: agent.reason)))
            }
            // A watch the kernel refused (a folder created under refs/ beyond the watch limit)
            // still means something moved: the state is taken, as for any move.
            var moved = (try? watcher.referencesMoved()) ?? true
            guard moved || retry else { continue }
            // A sync, a resolution or a push moves several references one after the other:
            // the state is taken when they have been still for a moment.
            while moved {
                watcher.wait(timeout: .milliseconds(30), waking: wake)
                if stopped.load(ordering: .sequentiallyConsistent) { return }
                moved = (try? watcher.referencesMoved()) ?? false
            }
            do {
                let next = try ContainerState(of: container)
                // Nothing goes out after `shutdown` was answered.
                for notification in state.changes(to: next) where !stopped.load(ordering: .sequentiallyConsistent) {
                    send(notification)
                }
                state = next
                retry = false
            } catch {
                // The repository between two writes (a lock file, a pack being written):
                // look again shortly rather than report half a change.
                retry = true
            }
        }
    }
}

/// What the notifications compare: the container as this device's branch and the remote-
/// tracking branches show it.
struct ContainerState {
    /// Document → its current version's id.
    var documents: [String: String] = [:]
    /// Document → its open conflict.
    var conflicts: [String: Conflict] = [:]
    /// Key → the id of its file's contents in the key-value store.
    var keyValues: [String: ObjectID] = [:]
    /// Remote-tracking branch → its commit.
    var tracking: [String: ObjectID] = [:]

    /// An empty state (an empty container; tests build states by hand from it).
    init() {}

    init(of container: Container) throws {
        for item in try container.query() { documents[item.path.path] = item.version }
        for conflict in try container.conflicts() { conflicts[conflict.document.path] = conflict }
        let (_, snapshot) = try container.keyValueSnapshot()
        for (file, key) in snapshot.keysByFile { keyValues[key] = snapshot.files[file] }
        for reference in try container.withRepository({ try $0.references(matching: RefName.allTrackingBranches) }) {
            tracking[reference.name] = reference.target
        }
    }

    /// The notifications that take a client from this state to `next`.
    func changes(to next: ContainerState) -> [any Encodable & Sendable] {
        var notifications: [any Encodable & Sendable] = []
        let fetched = Set(next.tracking.keys).union(tracking.keys).filter { next.tracking[$0] != tracking[$0] }
        if !fetched.isEmpty {
            let remotes = Set(fetched.compactMap { RefName.remoteAndDevice(of: $0)?.remote }).sorted()
            notifications.append(ProtocolNotification(method: "syncStateChanged", params: SyncStateChange(fetched: remotes)))
        }
        var documentChanges: [DocumentChangeNotice] = []
        for document in Set(next.documents.keys).union(documents.keys).sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let before = documents[document], after = next.documents[document]
            guard before != after else { continue }
            documentChanges.append(
                DocumentChangeNotice(
                    document: document, change: before == nil ? "added" : after == nil ? "deleted" : "modified",
                    version: after, previous: before))
        }
        if !documentChanges.isEmpty {
            notifications.append(ProtocolNotification(method: "documentChanged", params: DocumentsChanged(documents: documentChanges)))
        }
        for document in Set(next.conflicts.keys).union(conflicts.keys).sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let before = Set(conflicts[document]?.conflicts.map(\.id) ?? [])
            let after = Set(next.conflicts[document]?.conflicts.map(\.id) ?? [])
            let appeared = next.conflicts[document]?.conflicts.map(\.id).filter { !before.contains($0) } ?? []
            let resolved = conflicts[document]?.conflicts.map(\.id).filter { !after.contains($0) } ?? []
            if !resolved.isEmpty {
                notifications.append(
                    ProtocolNotification(
                        method: "conflictResolved",
                        params: ConflictResolvedNotice(
                            document: document, versions: resolved, open: after.count)))
            }
            if !appeared.isEmpty, let conflict = next.conflicts[document] {
                notifications.append(
                    ProtocolNotification(
                        method: "conflictAppeared",
                        params: ConflictAppearedNotice(
                            document: document, versions: appeared, conflict: ConflictOutput(conflict))))
            }
        }
        let keys = Set(next.keyValues.keys).union(keyValues.keys).filter { next.keyValues[$0] != keyValues[$0] }
        if !keys.isEmpty {
            notifications.append(
                ProtocolNotification(
                    method: "keyValueChanged",
                    params: KeyValueChangedNotice(
                        keys: keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) },
                        removed: keys.filter { next.keyValues[$0] == nil }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })))
        }
        return notifications
    }
}

// MARK: The notifications' params (docs/PROTOCOL.md, "Notifications"; docs/schemas/protocol-*.schema.json)

/// One document in `documentChanged`.
struct DocumentChangeNotice: Encodable, Sendable {
    let document: String
    /// `added`, `modified` or `deleted`: how its current version changed.
    let change: String
    /// The current version now (nil: deleted).
    let version: String?
    /// The current version before (nil: added).
    let previous: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(document, forKey: .document)
        try container.encode(change, forKey: .change)
        try container.encode(version, forKey: .version)
        try container.encode(previous, forKey: .previous)
    }

    enum CodingKeys: String, CodingKey { case document, change, version, previous }
}

/// `documentChanged`: documents whose current version changed, in one batch.
struct DocumentsChanged: Encodable, Sendable {
    let documents: [DocumentChangeNotice]
}

/// `conflictAppeared`: a document gained conflict versions.
struct ConflictAppearedNotice: Encodable, Sendable {
    let document: String
    /// The conflict versions that appeared.
    let versions: [String]
    /// The document's conflict now, as `conflicts` lists it.
    let conflict: ConflictOutput
}

/// `conflictResolved`: conflict versions of a document were resolved (or removed).
struct ConflictResolvedNotice: Encodable, Sendable {
    let document: String
    /// The conflict versions no longer open.
    let versions: [String]
    /// How many stay open (0: the document is no longer in conflict).
    let open: Int
}

/// `keyValueChanged`: keys of the key-value store whose value changed.
struct KeyValueChangedNotice: Encodable, Sendable {
    let keys: [String]
    /// Those of `keys` that were removed.
    let removed: [String]
}

/// `syncStateChanged`: a sync through this server started, progressed, finished or failed;
/// or remote-tracking branches moved (a sync by anyone: this server, the agent, another
/// docver process); or the agent running on the container went offline (its remotes cannot
/// be reached) or came back online.
struct SyncStateChange: Encodable, Sendable {
    enum State: String, Encodable, Sendable { case started, progress, finished, failed, fetched, offline, online }

    struct Progress: Encodable, Sendable {
        let remote: String
        let direction: String
        let objects: Int
        let totalObjects: Int
        let indexedObjects: Int
        let bytes: Int
    }

    let state: State
    var remotes: [String]?
    var progress: Progress?
    var integrated: Bool?
    var pushed: [String]?
    var unreachable: [SyncOutput.Unreachable]?
    var error: FailureOutput?
    /// offline: since when the agent's remotes cannot be reached, and why.
    var since: Date?
    var reason: String?

    init(state: State, remotes: [String]) {
        self.state = state
        self.remotes = remotes
    }

    init(progress: TransferProgress) {
        state = .progress
        self.progress = Progress(
            remote: progress.remote, direction: progress.direction.rawValue, objects: progress.objects,
            totalObjects: progress.totalObjects, indexedObjects: progress.indexedObjects, bytes: progress.bytes)
    }

    init(finished report: SyncReport) {
        state = .finished
        integrated = report.integrated
        pushed = report.pushed
        unreachable = []
    }

    init(failed error: DocverError, hint: String?) {
        state = .failed
        if case let .syncIncomplete(report) = error {
            integrated = report.integrated
            pushed = report.pushed
            unreachable = report.unreachable.map { SyncOutput.Unreachable(remote: $0.remote, error: $0.reason) }
        }
        self.error = FailureOutput(code: error.code, message: error.description, hint: hint)
    }

    init(fetched remotes: [String]) {
        state = .fetched
        self.remotes = remotes
    }

    init(agentOnline online: Bool, since: Date?, reason: String?) {
        state = online ? .online : .offline
        if !online {
            self.since = since
            self.reason = reason
        }
    }
}
