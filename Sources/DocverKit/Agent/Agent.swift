import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The sync agent: watches a container's working tree, autosaves documents once they are
/// quiet, and syncs with the remotes by itself, so documents travel between devices without
/// any command, as they do with iCloud.
///
/// One agent runs per container: it holds `.git/docver/agent.pid` locked while it runs and
/// answers on `.git/docver/agent.sock`. Every save and sync takes the container's writer
/// lock like the CLI does, so the agent and a command never write at once. Saves are
/// ordinary docver saves (objects first, then the branch by compare-and-swap), so killing
/// the agent at any moment loses nothing: the edits are still in the working tree and the
/// next start finds them in its first scan.
public final class Agent: Sendable {
    /// The agent's settings.
    public struct Configuration: Sendable, Hashable {
        /// How long a document must go unchanged before it is saved (UIDocument's autosave delay).
        public var quietDelay: Duration
        /// How often the remotes are asked for other devices' saves.
        public var pollInterval: Duration
        /// How soon after an autosave the sync that pushes it starts (saves in between go together).
        public var pushDelay: Duration
        /// The first wait after a remote could not be reached; it doubles on each failure.
        public var initialBackoff: Duration
        /// The longest wait between attempts while a remote cannot be reached.
        public var maximumBackoff: Duration
        /// Files never saved.
        public var ignore: IgnoreList
        /// Remotes to sync with (nil: all configured remotes, read again before each sync).
        public var remotes: [String]?
        /// A limit on inotify watches below the kernel's (nil: the kernel's only).
        public var maximumWatches: Int?

        /// Settings with the defaults: 2 s quiet delay, 10 s polling, 50 ms push delay,
        /// backoff from 1 s to 5 minutes, the standard ignore list, every remote.
        public init(
            quietDelay: Duration = .seconds(2), pollInterval: Duration = .seconds(10),
            pushDelay: Duration = .milliseconds(50), initialBackoff: Duration = .seconds(1),
            maximumBackoff: Duration = .seconds(300), ignore: IgnoreList = .standard,
            remotes: [String]? = nil, maximumWatches: Int? = nil
        ) {
            self.quietDelay = quietDelay
            self.pollInterval = pollInterval
            self.pushDelay = pushDelay
            self.initialBackoff = initialBackoff
            self.maximumBackoff = maximumBackoff
            self.ignore = ignore
            self.remotes = remotes
            self.maximumWatches = maximumWatches
        }

        /// The defaults overridden by the container's `docver.agent.*` config keys
        /// (docs/FORMAT.md): `quietDelay`, `pollInterval`, `maxBackoff` (seconds),
        /// `ignore` (multi-valued globs, added to the defaults) and `defaultIgnores` (`false`
        /// drops the defaults).
        public init(container: Container) throws {
            self.init()
            let entries = try container.withRepository { try $0.configStrings(matching: "^docver\\.agent\\.") }
            var extra: [String] = []
            var defaults = true
            for (name, value) in entries {
                func seconds() throws -> Duration {
                    // Up to a million seconds (11 days): larger values would overflow a Duration's milliseconds.
                    guard let number = Double(value), number > 0, number <= 1_000_000 else {
                        throw AgentError.badConfiguration(key: name, value: value)
                    }
                    return .milliseconds(Int64((number * 1000).rounded()))
                }
                switch name.lowercased() {
                case ConfigKey.agentQuietDelay.lowercased(): quietDelay = try seconds()
                case ConfigKey.agentPollInterval.lowercased(): pollInterval = try seconds()
                case ConfigKey.agentMaximumBackoff.lowercased(): maximumBackoff = try seconds()
                case ConfigKey.agentIgnore.lowercased(): extra.append(value)
                case ConfigKey.agentDefaultIgnores.lowercased():
                    switch value.lowercased() {
                    case "false", "no", "off", "0": defaults = false
                    case "true", "yes", "on", "1": defaults = true
                    default: throw AgentError.badConfiguration(key: name, value: value)
                    }
                default: continue
                }
            }
            ignore = IgnoreList(patterns: (defaults ? IgnoreList.defaultPatterns : []) + extra)
        }
    }

    /// The container served.
    public let container: Container
    /// The settings.
    public let configuration: Configuration

    /// How old a lock file nobody holds open must be before the agent removes it.
    static let staleLockAge: TimeInterval = 5
    /// How long the working tree must be quiet before the agent computes the status it serves.
    static let statusSettleDelay: Duration = .milliseconds(200)
    /// How soon after another device's branch moved in a remote on this machine the sync
    /// starts: long enough for a push that moves several references to finish (git renames
    /// each into place within a few milliseconds), short next to the quiet delay.
    static let remoteMoveDelay: Duration = .milliseconds(50)
    /// When a document whose autosave failed is tried again.
    static let retryDelay: Duration = .seconds(10)

    private let stopRequested = Atomic<Bool>(false)
    private let wakePipe: WakePipe
    private let currentStatus: Mutex<AgentStatus>

    // The container status the agent serves (`docver status` asks it over the socket). It
    // must never differ from what the CLI would compute itself, so it is served only when
    // nothing can have changed since it was computed: the branch is at the same commit (the
    // client says which), no inotify event waits unread, and the loop is not between reading
    // events and dropping the cache (`readings` is odd meanwhile, a sequence lock).
    private struct CachedStatus {
        var head: String?
        var status: ContainerStatus
    }
    private let cachedStatus = Mutex<CachedStatus?>(nil)
    private let readings = Atomic<UInt64>(0)
    /// Set by a request that found the branch moved: the loop computes the status again.
    private let statusWanted = Atomic<Bool>(false)
    /// The watcher's inotify descriptor while the loop runs, else -1.
    private let watchDescriptor = Atomic<Int32>(-1)
    /// Clients told of every reference move (`subscribe`), while the references are watched.
    private let subscribers = AgentSubscribers()
    /// The documents and conflicts kept for `ls`, `conflicts` and the metadata query.
    private let servedAnswers = ServedAnswers()
    /// Computes the answers clients missed, on a thread of its own: a large container's
    /// documents take seconds, and autosaves and syncs must not wait for them.
    private let answerQueue = DispatchQueue(label: "docver agent answers", qos: .utility)
    /// True while a computation is queued or running on `answerQueue`.
    private let answering = Atomic<Bool>(false)
    /// Serves a connection of the socket whose first line is a JSON object (docs/PROTOCOL.md,
    /// "On the agent's socket"): set by `serveEditors(version:)` (Protocol/); nil: such a
    /// connection is closed.
    let sessionHandler = Mutex<(@Sendable (_ client: Int32, _ first: String, _ rest: Data) -> Void)?>(nil)
    /// Milliseconds each served answer's computation is held back (tests: a slow container).
    let answerDelayForTesting = Atomic<Int>(0)
    /// Whether answers are being computed now (tests wait for it instead of for a time).
    var isAnsweringForTesting: Bool { answering.load(ordering: .sequentiallyConsistent) }
    /// Where events go: the loop's, the answer thread's and repairs', one at a time.
    private let events: AgentEventSink
    private let referencesWatched = Atomic<Bool>(false)
    /// The git config's fingerprint under which the agent answers the CLI's shortcut
    /// (``AgentShortcut``), or nil when it never does.
    private let shortcutSignature: String?

    /// An agent for `container`; ``run(onEvent:)`` starts it. What the agent repairs (an
    /// interrupted save it finishes, a stale lock file it removes) is reported as a `warning`
    /// event, not to the container's ``Container/onRepair``.
    public init(container: Container, configuration: Configuration = Configuration()) throws {
        let events = AgentEventSink()
        self.events = events
        var own = container
        own.asksAgent = false
        own.onRepair = { events.deliver(AgentEvent(.warning($0))) }
        self.container = own
        self.configuration = configuration
        shortcutSignature = AgentShortcut.vouchedSignature(for: own)
        wakePipe = try DocverError.wrapping { try WakePipe() }
        currentStatus = Mutex(
            AgentStatus(
                pid: getpid(), container: container.root.path, device: container.device.id,
                started: Date(), online: true, pendingDocuments: 0, watchedFolders: 0, saves: 0))
    }

    /// Asks a running ``run(onEvent:)`` to return once the save or sync in progress is done.
    /// Safe from any thread and from signal-handling code.
    public func stop() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        wakePipe.wake()
    }

    /// The agent's state now.
    public var status: AgentStatus {
        var status = currentStatus.withLock { $0 }
        status.subscribers = subscribers.count
        return status
    }

    /// Runs the agent until ``stop()``: takes the container's agent lock (throws
    /// ``AgentError/alreadyRunning(pid:)`` when another agent holds it), listens on the
    /// socket, watches, autosaves and syncs, reporting each step to `onEvent` (called on the
    /// agent's threads, one event at a time).
    public func run(onEvent: @escaping @Sendable (AgentEvent) -> Void) async throws {
        try await offCooperativePool { try self.runBlocking(onEvent: onEvent) }
    }

    // MARK: The loop

    private var isStopping: Bool { stopRequested.load(ordering: .sequentiallyConsistent) }

    private func runBlocking(onEvent: @escaping @Sendable (AgentEvent) -> Void) throws {
        events.handler.withLock { $0 = onEvent }
        defer { events.handler.withLock { $0 = nil } }
        let files = container.files
        let lock = try DocverError.wrapping { try AgentLock(path: files.agentPID) }
        defer { lock.release() }
        let server = try AgentSocketServer(
            path: files.agentSocket, subscribers: subscribers, answer: { [self] request in answer(request) },
            session: { [self] client, first, rest in
                guard let serve = sessionHandler.withLock({ $0 }) else { return AgentSocketServer.close(client) }
                serve(client, first, rest)
            })
        defer { server.close() }
        defer {
            referencesWatched.store(false, ordering: .sequentiallyConsistent)
            subscribers.closeAll()
        }
        let watcher = try TreeWatcher(root: container.root.path, maximumWatches: configuration.maximumWatches)
        try watcher.start()
        // Without it the agent still saves and syncs; subscribers are refused and poll instead.
        var referenceProblem: String?
        let references: ReferenceWatcher?
        do {
            let started = try ReferenceWatcher(gitDirectory: container.gitDirectory)
            try started.start()
            references = started
            referencesWatched.store(true, ordering: .sequentiallyConsistent)
        } catch {
            references = nil
            referenceProblem = "cannot watch the references (\(error)); live queries and editors poll instead"
        }
        withExtendedLifetime((watcher, references)) {
            watchDescriptor.store(watcher.descriptor, ordering: .sequentiallyConsistent)
            defer {
                // From here on nobody hears of changes: serve no status.
                watchDescriptor.store(-1, ordering: .sequentiallyConsistent)
                cachedStatus.withLock { $0 = nil }
            }
            var loop = Loop(agent: self, watcher: watcher, references: references)
            loop.emit(.started(pid: getpid(), folders: watcher.watchCount))
            if let referenceProblem { loop.emit(.warning(referenceProblem)) }
            loop.scan(.start)
            while !isStopping {
                loop.step()
            }
            // An answer being computed only reads; it ends before the agent reports it stopped.
            answerQueue.sync {}
            servedAnswers.removeAll()
            loop.emit(.stopped)
        }
    }

    /// The cached status, if it is certainly what `Container.status()` would return now for a
    /// branch at `head`; nil otherwise.
    private func servableStatus(head: String?) -> ContainerStatus? {
        let before = readings.load(ordering: .sequentiallyConsistent)
        guard before % 2 == 0 else { return nil }
        let descriptor = watchDescriptor.load(ordering: .sequentiallyConsistent)
        guard descriptor >= 0, !Inotify.hasPendingEvents(descriptor: descriptor) else { return nil }
        let cached = cachedStatus.withLock { $0 }
        guard let cached else {
            // None yet, or computing it failed: ask the loop for one, which it computes once
            // the tree has been quiet a moment (a failed attempt is never retried otherwise).
            statusWanted.store(true, ordering: .sequentiallyConsistent)
            wakePipe.wake()
            return nil
        }
        guard cached.head == head else {
            // The branch moved (a save, a sync, a plain git commit): compute afresh for the next request.
            cachedStatus.withLock { if $0?.head == cached.head { $0 = nil } }
            statusWanted.store(true, ordering: .sequentiallyConsistent)
            wakePipe.wake()
            return nil
        }
        guard readings.load(ordering: .sequentiallyConsistent) == before,
            watchDescriptor.load(ordering: .sequentiallyConsistent) == descriptor
        else { return nil }
        return cached.status
    }

    private func answer(_ request: String) -> AgentSocketAnswer {
        // docs/PROTOCOL.md: the legacy requests are words; a JSON object starts a session.
        if request.first == "{" { return .session }
        let unavailable = AgentSocketAnswer.line(Data(#"{"unavailable":true}"#.utf8))
        let words = request.trimmingCharacters(in: .whitespaces).split(separator: " ").map(String.init)
        if words.first == "container-status", words.count == 2 {
            let head = words[1] == "none" ? nil : words[1]
            guard let status = servableStatus(head: head) else { return unavailable }
            return (try? JSONEncoder().encode(ServedStatus(status))).map(AgentSocketAnswer.line) ?? unavailable
        }
        if words.first == "shortcut-status" || words.first == "shortcut-conflicts" {
            // `<request> <device> <head> <signature>`: the CLI's shortcut (AgentShortcut).
            guard words.count == 4, words[1] == container.device.id, let shortcutSignature, words[3] == shortcutSignature else { return unavailable }
            if words[0] == "shortcut-conflicts" {
                if let data = servedAnswers.answer(.conflicts, key: words[2]) { return .line(data) }
                computeWantedAnswers()
                return unavailable
            }
            guard let status = servableStatus(head: words[2] == "none" ? nil : words[2]) else { return unavailable }
            let answer = AgentShortcut.ShortcutStatus(device: container.device.id, deviceName: container.device.name, status: ServedStatus(status))
            return (try? JSONEncoder().encode(answer)).map(AgentSocketAnswer.line) ?? unavailable
        }
        if let first = words.first, let question = ServedQuestion(rawValue: first), words.count >= 2 {
            let key = words.dropFirst().joined(separator: " ")
            if let data = servedAnswers.answer(question, key: key) { return .line(data) }
            computeWantedAnswers()  // for the next request
            return unavailable
        }
        switch request.trimmingCharacters(in: .whitespaces) {
        case "status":
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            return .line((try? encoder.encode(status)) ?? Data("{}".utf8))
        case "subscribe":
            return referencesWatched.load(ordering: .sequentiallyConsistent) ? .subscribe : unavailable
        default:
            return .line(Data(#"{"error":"unknown request"}"#.utf8))
        }
    }

    /// Computes the answers clients missed, off the loop (on `answerQueue`), for the
    /// references as they are now. An answer is kept only if the references did not move
    /// while it was computed. Called by the socket's thread after a miss.
    private func computeWantedAnswers() {
        guard !isStopping, answering.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged else { return }
        answerQueue.async { [self] in
            while true {
                for question in servedAnswers.takeWanted().sorted(by: { $0.rawValue < $1.rawValue }) {
                    if isStopping { break }
                    do {
                        guard let key = try question.key(of: container) else { continue }
                        let delay = answerDelayForTesting.load(ordering: .relaxed)
                        if delay > 0 { usleep(UInt32(delay) * 1000) }
                        let data = try question.compute(in: container)
                        guard try question.key(of: container) == key else { continue }
                        servedAnswers.store(question, key: key, data: data)
                    } catch {
                        events.deliver(
                            AgentEvent(.warning("cannot compute the \(question.rawValue) to serve (the next request tries again): \(error)")))
                    }
                }
                answering.store(false, ordering: .sequentiallyConsistent)
                // A miss after the last `takeWanted` found `answering` still set: take it now.
                guard !isStopping, servedAnswers.hasWanted,
                    answering.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
                else { return }
            }
        }
    }

    /// The loop's state; it lives on the agent's thread only.
    private struct Loop {
        typealias Instant = ContinuousClock.Instant
        let agent: Agent
        let watcher: TreeWatcher
        /// Nil when the references cannot be watched (nobody subscribes then).
        var references: ReferenceWatcher?
        /// The device branches of the remotes on this machine (nil when they cannot be
        /// watched: the poll finds their changes).
        var remoteReferences: RemoteReferenceWatcher?
        let clock = ContinuousClock()
        var queue: AutosaveQueue
        var nextSync: Instant
        var backoff: Duration?
        var offlineSince: Date?
        /// Some folders could not be watched: scan at every poll instead.
        var unwatchedFolders = false
        var nextScan: Instant?
        /// Autosaves made since the last sync that reached every remote.
        var unpushedSaves = false
        /// The old lock file held open that the agent last said it waits for.
        var reportedOpenLock: String?
        /// When the watcher last reported a change.
        var lastChange: Instant
        /// The served status must be computed again (something changed, or a client found
        /// the branch moved).
        var statusStale = true

        var configuration: Configuration { agent.configuration }
        var container: Container { agent.container }

        init(agent: Agent, watcher: TreeWatcher, references: ReferenceWatcher?) {
            self.agent = agent
            self.watcher = watcher
            self.references = references
            remoteReferences = try? RemoteReferenceWatcher(ownBranch: agent.container.device.branch)
            queue = AutosaveQueue(quietDelay: agent.configuration.quietDelay)
            nextSync = clock.now
            lastChange = clock.now
        }

        func emit(_ kind: AgentEvent.Kind) {
            let event = AgentEvent(kind)
            agent.currentStatus.withLock { status in
                switch kind {
                case .started(_, let folders): status.watchedFolders = folders
                case .saved: status.saves += 1; status.lastSave = event.date
                case let .offline(since, reason, _): status.online = false; status.offlineSince = since; status.lastError = reason
                case .online: status.online = true; status.offlineSince = nil
                default: break
                }
                status.pendingDocuments = queue.count
                status.watchedFolders = watcher.watchCount
            }
            agent.events.deliver(event)
        }

        /// One turn: wait for changes or the next deadline, then autosave what is quiet and
        /// sync when it is time.
        mutating func step() {
            if agent.statusWanted.exchange(false, ordering: .sequentiallyConsistent) { statusStale = true }
            // A sync waits for the queue to empty, so while documents wait only their deadline counts
            // (an overdue sync must not turn the wait into a busy loop).
            var deadline = queue.nextDeadline ?? nextSync
            if let nextScan { deadline = min(deadline, nextScan) }
            if statusStale, needsServedStatus { deadline = min(deadline, lastChange + Agent.statusSettleDelay) }
            watcher.wait(
                timeout: max(.zero, min(deadline - clock.now, .seconds(60))), waking: agent.wakePipe,
                others: [references?.descriptor, remoteReferences?.descriptor].compactMap { $0 })
            tellSubscribers()
            noticeRemoteMoves()
            agent.readings.add(1, ordering: .sequentiallyConsistent)
            if collectChanges() {
                agent.cachedStatus.withLock { $0 = nil }
                lastChange = clock.now
                statusStale = true
            }
            agent.readings.add(1, ordering: .sequentiallyConsistent)
            if agent.isStopping { return }
            if let nextScan, clock.now >= nextScan { scan(.unwatched) }
            let due = queue.takeDue(at: clock.now)
            if !due.isEmpty {
                if !writersMayGoAhead(autosaving: true) {
                    queue.retry(due, after: .seconds(1), now: clock.now)
                } else if autosave(due) {
                    unpushedSaves = true
                    if offlineSince == nil { nextSync = min(nextSync, clock.now + configuration.pushDelay) }
                }
            }
            agent.currentStatus.withLock { $0.pendingDocuments = queue.count }
            if agent.isStopping { return }
            // A sync waits while documents are being written, so nothing half-written travels.
            if clock.now >= nextSync, queue.isEmpty {
                if writersMayGoAhead() { sync() } else { nextSync = clock.now + .seconds(1) }
            }
            refreshServedStatus()
        }

        /// Tells the subscribers when a reference moved. If the references can no longer be
        /// watched, the subscriptions end (their clients poll) and no new one is accepted.
        mutating func tellSubscribers() {
            guard let watching = references else { return }
            do {
                if try watching.referencesMoved() { agent.subscribers.broadcast(#"{"event":"references"}"#) }
            } catch {
                references = nil
                agent.referencesWatched.store(false, ordering: .sequentiallyConsistent)
                agent.subscribers.closeAll()
                emit(.warning("cannot watch the references (\(error)); live queries and editors poll instead"))
            }
        }

        /// Syncs soon when another device's branch moved in a remote on this machine. The
        /// short delay lets a push that moves several references finish first; the sync
        /// still waits for the documents being written, as every sync does.
        mutating func noticeRemoteMoves() {
            guard let watching = remoteReferences else { return }
            do {
                guard try !watching.movedRemotes().isEmpty else { return }
                nextSync = min(nextSync, clock.now + Agent.remoteMoveDelay)
            } catch {
                stopWatchingRemotes(error)
            }
        }

        /// Watches the device branches of the remotes in `urls` that are on this machine.
        mutating func watchLocalRemotes(_ names: [String], urls: [String: String]) {
            guard let watching = remoteReferences else { return }
            var directories: [String: String] = [:]
            for name in names {
                guard let url = urls[name], case let .local(path) = RemoteLocation(url, relativeTo: container.root),
                    let directory = RemoteReferenceWatcher.gitDirectory(at: path)
                else { continue }
                directories[name] = directory
            }
            do { try watching.watch(directories) } catch { stopWatchingRemotes(error) }
        }

        mutating func stopWatchingRemotes(_ error: any Error) {
            remoteReferences = nil
            emit(
                .warning(
                    "cannot watch the remotes on this machine (\(error)); their changes are found by polling every \(configuration.pollInterval.secondsText)"
                ))
        }

        /// True when no status is cached and one can be.
        var needsServedStatus: Bool {
            !unwatchedFolders && !agent.isStopping && agent.cachedStatus.withLock { $0 == nil }
        }

        /// Computes the status to serve when there is none and the working tree has been
        /// quiet a moment (a burst of writes costs one status, not one per event).
        mutating func refreshServedStatus() {
            guard statusStale, needsServedStatus, clock.now - lastChange >= Agent.statusSettleDelay else { return }
            // One attempt per change: a failure waits for the next change or request.
            statusStale = false
            guard !container.hasInterruptedCheckout else { return }
            do {
                // The head first: if it moves meanwhile, the client's head differs and nothing is served.
                let head = try container.withRepository { try container.headCommit($0)?.hex }
                let status = try container.status()
                agent.cachedStatus.withLock { $0 = CachedStatus(head: head, status: status) }
            } catch {
                agent.cachedStatus.withLock { $0 = nil }
                emit(.warning("cannot compute the status to serve (the next request tries again): \(error)"))
            }
        }

        /// False while a lock file of the branch or the index may belong to a writer at work.
        /// One left by a writer killed mid-update (this agent's previous run, say) is removed
        /// once it is old and nobody holds it open, instead of blocking every save after it.
        /// An old one that a process holds open is waited for; when `autosaving`, said once:
        /// the autosaves due wait for as long as that process keeps it.
        mutating func writersMayGoAhead(autosaving: Bool = false) -> Bool {
            switch container.removeStaleWriterLocks(olderThan: Agent.staleLockAge) {
            case .none:
                reportedOpenLock = nil
                return true
            case let .removed(path):
                reportedOpenLock = nil
                emit(.warning("removed \(path), left behind by an interrupted writer"))
                return true
            case .held:
                return false
            case let .heldOpen(path):
                if autosaving, reportedOpenLock != path {
                    reportedOpenLock = path
                    emit(
                        .warning(
                            "waiting for \(path): it is over \(Int(Agent.staleLockAge)) s old and a process has it open; saves wait until it is closed"
                        ))
                }
                return false
            }
        }

        /// Reads the watcher's changes into the queue; true when there were any (or some may
        /// have been missed).
        mutating func collectChanges() -> Bool {
            let changes: [TreeWatcher.Change]
            do {
                changes = try watcher.changes()
            } catch {
                emit(.warning("\(error); changes there are found by scanning every \(configuration.pollInterval.secondsText)"))
                unwatchedFolders = true
                // The events read with the failing one are lost: scan at once.
                nextScan = clock.now
                return true
            }
            let now = clock.now
            for change in changes {
                switch change {
                case let .file(path), let .folder(path):
                    // A plain folder that exists had its files reported one by one; one that
                    // vanished stands for the deletion of the documents saved in it.
                    if let document = AutosaveQueue.document(forPath: path, ignore: configuration.ignore),
                        !isPlainFolder(document)
                    {
                        queue.touch(document, at: now)
                    }
                case .overflow:
                    scan(.overflow)
                }
            }
            return !changes.isEmpty
        }

        /// True when `document` is a folder in the working tree that is not a file package.
        func isPlainFolder(_ document: DocumentPath) -> Bool {
            guard let stat = FileStat(path: container.root.path + "/" + document.path) else { return false }
            return stat.isDirectory && !DocumentPath.isPackageName(document.name)
        }

        /// Finds every changed document the slow way (libgit2's status) and queues it.
        mutating func scan(_ reason: AgentEvent.ScanReason) {
            if unwatchedFolders { nextScan = clock.now + configuration.pollInterval }
            do {
                let changed = try container.status().changed
                let now = clock.now
                var count = 0
                for change in changed {
                    guard let document = AutosaveQueue.document(forPath: change.document.path, ignore: configuration.ignore) else { continue }
                    queue.touch(document, at: now)
                    count += 1
                }
                if reason != .unwatched || count > 0 { emit(.scanned(reason: reason, documents: count)) }
            } catch {
                emit(.warning("cannot scan the working tree: \(error)"))
            }
        }

        /// Saves `documents` as one version; true when something was saved. A document that
        /// vanished before it was ever saved (a temporary file) is dropped; a document the
        /// save refuses is reported and the others are saved without it.
        mutating func autosave(_ documents: [DocumentPath]) -> Bool {
            // Saving a plain folder would save everything changed in it, ignored files too.
            var remaining = documents.filter { !isPlainFolder($0) }
            while !remaining.isEmpty {
                do {
                    guard let result = try container.save(remaining) else { return false }
                    emit(.saved(result))
                    return true
                } catch let DocverError.noSuchDocument(name) where remaining.contains(where: { $0.path.bytesEqual(name) }) {
                    remaining.removeAll { $0.path.bytesEqual(name) }
                } catch {
                    guard remaining.count > 1 else {
                        // The edit is still in the working tree: try again later, never forget it.
                        emit(.warning("cannot autosave \(remaining[0].path): \(error); trying again in \(Agent.retryDelay.secondsText)"))
                        queue.retry(remaining, after: Agent.retryDelay, now: clock.now)
                        return false
                    }
                    // Find the ones refused by saving one by one.
                    var saved = false
                    for document in remaining {
                        saved = autosave([document]) || saved
                    }
                    return saved
                }
            }
            return false
        }

        mutating func sync() {
            let names: [String]
            let urls: [String: String]
            do {
                let remotes = try container.remotes()
                urls = Dictionary(remotes.map { ($0.name, $0.url) }, uniquingKeysWith: { first, _ in first })
                names = configuration.remotes ?? remotes.map(\.name)
            } catch {
                emit(.warning("cannot read the remotes: \(error)"))
                nextSync = clock.now + configuration.pollInterval
                return
            }
            watchLocalRemotes(names, urls: urls)
            guard !names.isEmpty else {
                nextSync = clock.now + configuration.pollInterval
                return
            }
            var failure: String?
            let pushing = unpushedSaves
            for name in names {
                if agent.isStopping { return }
                if let url = urls[name], let problem = Agent.localRemoteProblem(url: url, relativeTo: container.root) {
                    failure = "\(name): \(problem)"
                    continue
                }
                do {
                    let report = try container.sync([name], savingFirst: [])
                    announce(report, pushedSaves: pushing)
                } catch {
                    // The path may have gone while the sync ran (libgit2 then names a file in it):
                    // say what is wrong with the remote, as the check before does.
                    let problem = urls[name].flatMap { Agent.localRemoteProblem(url: $0, relativeTo: container.root) }
                    failure = "\(name): \(problem ?? "\(error)")"
                }
            }
            let now = clock.now
            if let failure {
                let wait =
                    backoff.map { min($0 * 2, configuration.maximumBackoff) }
                    ?? min(configuration.initialBackoff, configuration.maximumBackoff)
                backoff = wait
                let since = offlineSince ?? Date()
                offlineSince = since
                nextSync = now + wait
                emit(.offline(since: since, reason: failure, retryIn: wait))
            } else {
                if let since = offlineSince { emit(.online(offlineSince: since)) }
                offlineSince = nil
                backoff = nil
                unpushedSaves = false
                nextSync = now + configuration.pollInterval
                agent.currentStatus.withLock {
                    $0.lastSync = Date(); $0.syncs += 1; $0.lastError = nil
                }
            }
        }

        func announce(_ report: SyncReport, pushedSaves: Bool) {
            report.warnings.forEach { emit(.warning($0)) }
            let lost = Set(report.documentChanges.filter { $0.kind == .yoursIsConflictVersion }.map(\.document))
            let kept = Set(report.documentChanges.filter { $0.kind == .conflictVersionKept }.map(\.document))
            guard pushedSaves || report.integrated || !report.documentChanges.isEmpty || !report.newConflicts.isEmpty else { return }
            emit(.synced(report))
            for document in Set(report.newConflicts.keys).union(lost).union(kept).sorted() {
                emit(
                    .conflict(
                        document: document, versions: report.newConflicts[document] ?? [],
                        yoursLost: lost.contains(document)))
            }
        }
    }
}

extension Agent {
    /// Why a remote on this machine cannot be synced with now (its path is gone, or holds no
    /// repository), or nil (a network remote, or one that is there). libgit2 only says
    /// "unsupported URL protocol" for a local path that does not exist.
    static func localRemoteProblem(url: String, relativeTo root: URL) -> String? {
        guard case let .local(path) = RemoteLocation(url, relativeTo: root) else { return nil }
        if FileStat(path: path) == nil { return "the remote's path \(path) does not exist" }
        do {
            try Container.checkRemoteRepository(at: path)
            return nil
        } catch {
            return "\(error)"
        }
    }
}

/// Hands the agent's events to the `run` caller's closure, one at a time, whichever thread
/// reports them (the loop, the answer thread, a repair inside a save).
final class AgentEventSink: Sendable {
    let handler = Mutex<(@Sendable (AgentEvent) -> Void)?>(nil)

    func deliver(_ event: AgentEvent) {
        handler.withLock { $0?(event) }
    }
}

extension Duration {
    /// "2 s", "0.5 s": for messages.
    var secondsText: String {
        let (seconds, attoseconds) = components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
