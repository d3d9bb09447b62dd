import Foundation

/// A document an editor works on, the UIDocument role: it loads and saves a ``DocumentModel``,
/// tracks changes, autosaves after a quiet period, reports its ``DocumentState``, notices
/// newer versions saved by other processes or brought by a sync, and resolves conflicts.
///
/// Every save is a docver save: a commit on this device's branch, written objects first and
/// then moved by compare-and-swap, so a crash never loses the previous version. A save is
/// based on the version the editor loaded; if the document changed underneath, the edits
/// compete under the conflict rules instead of overwriting the newer version.
///
/// Timing (autosave delay, polling for outside changes) runs on an injectable clock, so tests
/// drive it without sleeping.
public actor ManagedDocument<Model: DocumentModel> {
    /// Timing settings.
    public struct Configuration: Sendable {
        /// Quiet period after the last change before an autosave.
        public var autosaveDelay: Duration
        /// How often the document checks for changes made by other processes or syncs.
        public var pollInterval: Duration
        /// The clock both run on.
        public var clock: any Clock<Duration>

        /// Settings with the given timing (defaults: 2 s autosave delay, 1 s polling, the continuous clock).
        public init(
            autosaveDelay: Duration = .seconds(2), pollInterval: Duration = .seconds(1),
            clock: any Clock<Duration> = ContinuousClock()
        ) {
            self.autosaveDelay = autosaveDelay
            self.pollInterval = pollInterval
            self.clock = clock
        }
    }

    /// The container the document lives in.
    public let container: Container
    /// The document's location in the container.
    public private(set) var path: DocumentPath
    /// The model, once created or opened.
    public private(set) var model: Model?
    /// The current state.
    public private(set) var state: DocumentState = .closed
    /// When the version the model holds was saved.
    public private(set) var fileModificationDate: Date?

    private let configuration: Configuration
    private var customDisplayName: String?
    private var baseHead: String?
    private var loadedVersion: String?
    private var changeCount = 0
    private var autosaveTask: Task<Void, Never>?
    private var watchTask: Task<Void, Never>?
    private var errorHandler: (@Sendable (any Error) -> Void)?
    private var stateContinuations: [UUID: AsyncStream<DocumentState>.Continuation] = [:]
    private var eventContinuations: [UUID: AsyncStream<DocumentEvent>.Continuation] = [:]

    /// Everything the document does — reading versions, hashing, waiting for the container's
    /// writer lock — blocks, so the actor runs on a serial queue of its own instead of the
    /// cooperative pool (see ``BlockingExecutor``). Its methods stay free of suspension
    /// points while they work, so no edit can slip in between a save and its bookkeeping.
    private let executor = BlockingExecutor(label: "docver.ManagedDocument")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A closed document at `path`; call ``create(_:)`` or ``open()`` next.
    public init(container: Container, path: DocumentPath, configuration: Configuration = Configuration()) {
        self.container = container
        self.path = path
        self.configuration = configuration
    }

    /// The document type: the file extension.
    public var fileType: String { path.type }

    /// The file name without extension, unless the editor set another.
    public var displayName: String { customDisplayName ?? path.displayName }

    /// Overrides the display name (nil restores the default).
    public func setDisplayName(_ name: String?) { customDisplayName = name }

    /// True when the model has changes not yet saved.
    public var hasUnsavedChanges: Bool { changeCount != 0 }

    /// Receives read, save and revert failures (the `handleError` role); errors are thrown too.
    public func setErrorHandler(_ handler: (@Sendable (any Error) -> Void)?) { errorHandler = handler }

    // MARK: Notifications

    /// Every state change from now on.
    public func stateChanges() -> AsyncStream<DocumentState> {
        let (stream, continuation) = AsyncStream.makeStream(of: DocumentState.self)
        let id = UUID()
        stateContinuations[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeStateListener(id) } }
        return stream
    }

    /// Reloads and saves from now on.
    public func events() -> AsyncStream<DocumentEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DocumentEvent.self)
        let id = UUID()
        eventContinuations[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeEventListener(id) } }
        return stream
    }

    private func removeStateListener(_ id: UUID) { stateContinuations[id] = nil }
    private func removeEventListener(_ id: UUID) { eventContinuations[id] = nil }

    private func setState(_ new: DocumentState) {
        guard new != state else { return }
        state = new
        for continuation in stateContinuations.values { continuation.yield(new) }
    }

    private func announce(_ event: DocumentEvent) {
        for continuation in eventContinuations.values { continuation.yield(event) }
    }

    private func report(_ error: any Error) -> any Error {
        errorHandler?(error)
        return error
    }

    // MARK: Lifecycle

    /// Saves a new document with `model` as its first version (UIDocument's save for creating).
    /// Throws ``DocverError/documentExists(_:)`` if the document exists.
    public func create(_ model: Model) async throws {
        do {
            if let current = try container.currentVersion(of: path), !current.isDeletion {
                throw DocverError.documentExists(path.path)
            }
            if FileManager.default.fileExists(atPath: container.root.path + "/" + path.path) {
                throw DocverError.documentExists(path.path)
            }
            self.model = model
            let result = try container.saveContents(model.contents(forType: fileType), of: path, basedOn: container.headID())
            didSave(result)
            startWatching()
            refreshConflictState(base: .normal)
        } catch { throw report(error) }
    }

    /// Loads the document's current version.
    public func open() async throws {
        do {
            try downloadIfEvicted()
            try load()
            startWatching()
        } catch { throw report(error) }
    }

    /// Saves unsaved changes, then closes.
    public func close() async throws {
        guard !state.contains(.closed) else { return }
        if hasUnsavedChanges { try await save() }
        autosaveTask?.cancel()
        watchTask?.cancel()
        setState(.closed)
    }

    /// Saves the model as a new version (overwriting, in UIDocument's terms).
    public func save() async throws {
        guard let model, !state.contains(.closed) else { throw report(DocverError.documentNotOpen(path.path)) }
        do {
            let result = try container.saveContents(model.contents(forType: fileType), of: path, basedOn: baseHead)
            didSave(result)
        } catch {
            setState(state.union(.savingError))
            throw report(error)
        }
    }

    /// Saves the model as a new document at `newPath`; the document then refers to it.
    public func save(as newPath: DocumentPath) async throws {
        guard let model, !state.contains(.closed) else { throw report(DocverError.documentNotOpen(path.path)) }
        do {
            if let current = try container.currentVersion(of: newPath), !current.isDeletion {
                throw DocverError.documentExists(newPath.path)
            }
            let result = try container.saveContents(model.contents(forType: newPath.type), of: newPath, basedOn: baseHead)
            path = newPath
            didSave(result)
        } catch {
            throw report(error)
        }
    }

    /// Discards unsaved changes and reloads the current version.
    public func revert() async throws {
        do {
            try load()
        } catch { throw report(error) }
    }

    /// Records the document's deletion (a new version), then closes it. If another device or
    /// process changed it meanwhile, the modification wins and the deletion becomes a conflict
    /// version, as with any deletion.
    public func delete() async throws {
        do {
            _ = try container.saveContents(.deleted, of: path, basedOn: baseHead)
            changeCount = 0
            autosaveTask?.cancel()
            watchTask?.cancel()
            setState(.closed)
        } catch { throw report(error) }
    }

    // MARK: Editing

    /// Changes the model and counts the change (schedules an autosave).
    public func edit(_ body: @Sendable (inout Model) throws -> Void) throws {
        guard var current = model, !state.contains(.closed) else { throw DocverError.documentNotOpen(path.path) }
        guard !state.contains(.editingDisabled) else { throw DocverError.editingDisabled(path.path) }
        try body(&current)
        model = current
        updateChangeCount(.done)
    }

    /// Records a change (done, undone, redone) or that the document is clean (cleared).
    public func updateChangeCount(_ change: DocumentChangeKind) {
        switch change {
        case .done, .redone: changeCount += 1
        case .undone: changeCount -= 1
        case .cleared: changeCount = 0
        }
        scheduleAutosave()
    }

    private func scheduleAutosave() {
        autosaveTask?.cancel()
        guard hasUnsavedChanges else { return }
        let clock = configuration.clock
        let delay = configuration.autosaveDelay
        autosaveTask = Task { [weak self] in
            do { try await clock.sleep(for: delay) } catch { return }
            await self?.autosave()
        }
    }

    private func autosave() async {
        guard hasUnsavedChanges, !state.contains(.closed) else { return }
        try? await save()
    }

    // MARK: Versions and conflicts

    /// The document's current version.
    public func currentVersion() throws -> DocumentVersion? { try container.currentVersion(of: path) }

    /// Unresolved conflict versions, newest first.
    public func conflictVersions() throws -> [DocumentVersion] { try container.unresolvedConflictVersions(of: path) }

    /// Older versions that led to the current one, newest first.
    public func history(limit: Int? = nil) throws -> [DocumentVersion] { try container.history(of: path, limit: limit) }

    /// Resolves the document's conflict with a strategy (for user choice, pass a
    /// ``UserChoiceStrategy`` whose closure shows the editor's own interface), then reloads.
    /// Unsaved changes are saved first; while the strategy runs the state includes
    /// ``DocumentState/editingDisabled`` and edits are refused.
    public func resolve(using strategy: some ResolutionStrategy, keepVersions: Bool = false) async throws -> ResolutionOutcome {
        if hasUnsavedChanges { try await save() }
        // The strategy may wait for the user; edits made meanwhile would be dropped by the reload.
        setState(state.union(.editingDisabled))
        do {
            let outcome = try await container.resolve(path, using: strategy, keepVersions: keepVersions)
            try load()
            return outcome
        } catch {
            setState(state.subtracting(.editingDisabled))
            throw error
        }
    }

    // MARK: Outside changes (the file-presenter role)

    /// Checks once for a newer version or a conflict brought by a sync or another process.
    /// Runs while the document is open: each time the container's agent says a reference
    /// moved, or every ``Configuration/pollInterval`` when no agent runs.
    public func checkForChanges() async {
        guard !state.contains(.closed), let head = try? container.headID(), head != baseHead else { return }
        do {
            let current = try container.currentVersion(of: path)
            guard current?.id != loadedVersion else {
                baseHead = head  // other documents changed; this one did not
                refreshConflictState(base: state)
                return
            }
            if current?.isDeletion ?? true, !hasUnsavedChanges {
                // Deleted elsewhere: report it once, not at every poll. The model stays; saving
                // it makes the document again.
                baseHead = head
                loadedVersion = current?.id
                refreshConflictState(base: state)
                errorHandler?(DocverError.noSuchDocument(path.path))
                return
            }
            setState(state.union(.editingDisabled))
            if hasUnsavedChanges, let model {
                // Never throw edits away: save them against the version they were made on.
                let result = try container.saveContents(model.contents(forType: fileType), of: path, basedOn: baseHead)
                didSave(result)
                announce(.editsSavedIntoConflict(version: result.save))
            }
            try load(keepingState: true)
            announce(.reloaded(version: loadedVersion ?? ""))
            setState(state.subtracting(.editingDisabled))
        } catch {
            setState(state.subtracting(.editingDisabled))
            errorHandler?(error)
        }
    }

    private func startWatching() {
        watchTask?.cancel()
        let clock = configuration.clock
        let interval = configuration.pollInterval
        let changes = container.referenceChanges(pollInterval: interval, clock: clock)
        watchTask = Task { [weak self] in
            for await _ in changes {
                if Task.isCancelled { return }
                await self?.checkForChanges()
            }
        }
    }

    // MARK: Plumbing

    /// Brings an evicted document back (``Container/download(_:progress:)``) before it is
    /// loaded, announcing ``DocumentEvent/downloading(percent:)`` as its contents arrive.
    private func downloadIfEvicted() throws {
        guard container.isEvicted(path) else { return }
        let listeners = Array(eventContinuations.values)
        listeners.forEach { $0.yield(.downloading(percent: 0)) }
        _ = try container.download([path]) { progress in
            guard progress.totalObjects > 0 else { return }
            let percent = (Double(progress.objects) / Double(progress.totalObjects) * 1000).rounded() / 10
            listeners.forEach { $0.yield(.downloading(percent: percent)) }
        }
        listeners.forEach { $0.yield(.downloading(percent: 100)) }
    }

    private func load(keepingState: Bool = false) throws {
        let head = try container.headID()
        guard let current = try container.currentVersion(of: path), !current.isDeletion else {
            throw DocverError.noSuchDocument(path.path)
        }
        model = try Model(contents: container.contents(of: current), type: fileType)
        baseHead = head
        loadedVersion = current.id
        fileModificationDate = current.modified
        changeCount = 0
        autosaveTask?.cancel()
        refreshConflictState(base: keepingState ? state.subtracting(.closed) : .normal)
    }

    private func didSave(_ result: ContentsSaveResult) {
        baseHead = result.head
        changeCount = 0
        fileModificationDate = result.current.modified
        if result.current.id != result.save, let model = try? container.contents(of: result.current),
            let reloaded = try? Model(contents: model, type: fileType)
        {
            self.model = reloaded  // another version won: show it; ours is kept as a conflict version
        }
        loadedVersion = result.current.id
        announce(.saved(version: result.save))
        refreshConflictState(base: state.subtracting([.savingError, .closed]))
    }

    private func refreshConflictState(base: DocumentState) {
        var new = base
        if let conflicts = try? container.unresolvedConflictVersions(of: path), !conflicts.isEmpty {
            new.insert(.inConflict)
        } else {
            new.remove(.inConflict)
        }
        setState(new)
    }
}
