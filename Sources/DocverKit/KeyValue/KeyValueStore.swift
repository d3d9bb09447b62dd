import Foundation
import Synchronization

/// Small values that follow the user across devices: Apple's `NSUbiquitousKeyValueStore`
/// on a docver container.
///
/// The store is part of the container: one file per key under the reserved folder
/// `.docver/kv/` (docs/FORMAT.md), saved as commits of this device and synced through the
/// same remotes as the documents. Use it like `UserDefaults`: typed getters and setters work
/// on values held in memory; ``synchronize()`` saves the changes as one save of this device
/// and, when the container has remotes, syncs; ``changes(pollInterval:clock:)`` delivers the
/// keys other devices changed.
///
/// When two devices change the same key concurrently, every device keeps the same value: the
/// rule that picks a document's current version (latest modification date, then greater
/// device id, then greater version id; a value beats a concurrent removal), applied per key.
/// The losing value stays in history (``history(ofKey:)``); no conflict is left open. The rule
/// is applied at each integration, so a value that lost once does not compete again.
/// Concurrent writes to different keys never meet.
///
/// Getters return what Apple's do for a missing key or a value of another type: nil, 0 or
/// false. The store is safe to use from several tasks; blocking calls (``synchronize()``,
/// ``reload()``, ``history(ofKey:)``) read and write the repository, so call them off the
/// cooperative pool from `async` code.
public final class KeyValueStore: Sendable {
    /// The container the store belongs to.
    public let container: Container

    private struct State {
        /// The values at `head`.
        var persisted: [String: PropertyListValue] = [:]
        var snapshot: KeyValueSnapshot
        var head: ObjectID?
        /// Changes not saved yet (nil: removal).
        var pending: [String: PropertyListValue?] = [:]
        /// The file size of each key in memory (saved values with `pending` applied), kept up
        /// to date write by write so a quota check costs one file's size, not the store's.
        var sizes: [String: Int] = [:]
        var bytes = 0

        init(snapshot: KeyValueSnapshot, head: ObjectID?) {
            self.snapshot = snapshot
            self.head = head
            load(snapshot, head: head)
        }

        /// Takes the saved values at `head`, keeping the pending changes on top.
        mutating func load(_ snapshot: KeyValueSnapshot, head: ObjectID?) {
            self.snapshot = snapshot
            self.head = head
            persisted = snapshot.values
            sizes = snapshot.sizes
            for (key, value) in pending { sizes[key] = value.map { KeyValueFiles.contents(key: key, value: $0).count } }
            bytes = sizes.values.reduce(0, +)
        }

        var usage: KeyValueUsage { KeyValueUsage(keys: sizes.count, bytes: bytes) }
    }

    private let state: Mutex<State>

    /// Opens the store of `container`, reading the values this device's branch holds.
    public init(container: Container) throws {
        self.container = container
        let (head, snapshot) = try container.keyValueSnapshot()
        state = Mutex(State(snapshot: snapshot, head: head))
    }

    // MARK: Reading

    /// The value for `key`, or nil when there is none.
    public func object(forKey key: String) -> PropertyListValue? {
        state.withLock { state in
            if let pending = state.pending[key] { return pending }
            return state.persisted[key]
        }
    }

    /// The string for `key`; nil when missing or not a string.
    public func string(forKey key: String) -> String? {
        if case let .string(value)? = object(forKey: key) { return value }
        return nil
    }

    /// The data for `key`; nil when missing or not data.
    public func data(forKey key: String) -> Data? {
        if case let .data(value)? = object(forKey: key) { return value }
        return nil
    }

    /// The integer for `key`; 0 when missing or not an integer.
    public func longLong(forKey key: String) -> Int64 {
        if case let .int(value)? = object(forKey: key) { return value }
        return 0
    }

    /// The double for `key`; 0 when missing or not a double.
    public func double(forKey key: String) -> Double {
        if case let .double(value)? = object(forKey: key) { return value }
        return 0
    }

    /// The Boolean for `key`; false when missing or not a Boolean.
    public func bool(forKey key: String) -> Bool {
        if case let .bool(value)? = object(forKey: key) { return value }
        return false
    }

    /// The array for `key`; nil when missing or not an array.
    public func array(forKey key: String) -> [PropertyListValue]? {
        if case let .array(value)? = object(forKey: key) { return value }
        return nil
    }

    /// The dictionary for `key`; nil when missing or not a dictionary.
    public func dictionary(forKey key: String) -> [String: PropertyListValue]? {
        if case let .dictionary(value)? = object(forKey: key) { return value }
        return nil
    }

    /// Every key and value, as held in memory (saved values with unsaved changes applied).
    /// Call ``synchronize()`` first for the newest values.
    public var dictionaryRepresentation: [String: PropertyListValue] {
        state.withLock { state in
            var result = state.persisted
            for (key, value) in state.pending { result[key] = value }
            return result
        }
    }

    /// How much of the quota the values in memory use.
    public var usage: KeyValueUsage {
        state.withLock { $0.usage }
    }

    // MARK: Writing

    /// Sets `value` for `key` in memory; ``synchronize()`` saves it.
    ///
    /// Throws, changing nothing, when the key is invalid (``KeyValueQuota/validate(key:)``),
    /// the value cannot be stored (a double that is not finite), or the write would take the
    /// store past a quota (``KeyValueQuota``).
    public func set(_ value: PropertyListValue, forKey key: String) throws {
        try change(key, to: value)
    }

    public func set(_ value: String, forKey key: String) throws { try set(.string(value), forKey: key) }
    public func set(_ value: Data, forKey key: String) throws { try set(.data(value), forKey: key) }
    public func set(_ value: Int64, forKey key: String) throws { try set(.int(value), forKey: key) }
    public func set(_ value: Int, forKey key: String) throws { try set(.int(Int64(value)), forKey: key) }
    public func set(_ value: Double, forKey key: String) throws { try set(.double(value), forKey: key) }
    public func set(_ value: Bool, forKey key: String) throws { try set(.bool(value), forKey: key) }
    public func set(_ value: [PropertyListValue], forKey key: String) throws { try set(.array(value), forKey: key) }
    public func set(_ value: [String: PropertyListValue], forKey key: String) throws { try set(.dictionary(value), forKey: key) }

    /// Removes the value for `key` in memory (nothing happens when there is none);
    /// ``synchronize()`` saves the removal.
    public func removeObject(forKey key: String) throws {
        try change(key, to: nil)
    }

    private func change(_ key: String, to value: PropertyListValue?) throws {
        try KeyValueQuota.validate(key: key)
        if let problem = value?.storageProblem { throw DocverError.invalidValue(problem) }
        let size = value.map { KeyValueFiles.contents(key: key, value: $0).count }
        try state.withLock { state in
            let before = state.usage
            let old = state.sizes[key]
            let after = KeyValueUsage(
                keys: before.keys + (size == nil ? 0 : 1) - (old == nil ? 0 : 1),
                bytes: before.bytes + (size ?? 0) - (old ?? 0))
            try KeyValueSnapshot.checkQuota(from: before, to: after)
            state.pending[key] = .some(value)
            state.sizes[key] = size
            state.bytes = after.bytes
        }
    }

    // MARK: Synchronizing

    /// Saves the changes made in memory as one save of this device (`Set bg`, ...), then,
    /// when the container has remotes, syncs the container (``Container/sync(_:)``: unsaved
    /// document edits are saved too, then fetch, integrate, push), and reads the values back.
    ///
    /// Returns the values of other devices that arrived, with their reason, or nil. A save
    /// past a quota (values of another process may have used it meanwhile) throws
    /// ``DocverError/keyValueQuotaExceeded(_:)``; the changes then stay in memory.
    @discardableResult
    public func synchronize() throws -> KeyValueStoreChange? {
        let before = state.withLock { $0.head }
        try save()
        if try !container.remotes().isEmpty { try container.sync() }
        return try reload(since: before).change
    }

    /// Saves the changes made in memory as one save of this device, without contacting any
    /// remote. Returns the save's id, or nil when there was nothing to save.
    @discardableResult
    public func save() throws -> String? {
        let pending = state.withLock { $0.pending }
        guard !pending.isEmpty else { return nil }
        let id = try container.saveKeyValues(pending)
        let (head, snapshot) = try container.keyValueSnapshot()
        state.withLock { state in
            // Keep what changed in memory while the save ran.
            for (key, value) in pending where state.pending[key] == value { state.pending[key] = nil }
            state.load(snapshot, head: head)
        }
        return id
    }

    /// Reads the saved values again (another process may have saved or synced), keeping the
    /// changes not saved yet. Returns the values of other devices that arrived since the
    /// store last read them, or nil.
    @discardableResult
    public func reload() throws -> KeyValueStoreChange? {
        try reload(since: state.withLock { $0.head }).change
    }

    /// Loads the values at the branch's head now, and what arrived between `old` and that
    /// head. The head is returned too: it may be newer than one read a moment before.
    private func reload(since old: ObjectID?) throws -> (change: KeyValueStoreChange?, head: ObjectID?) {
        let (head, snapshot) = try container.keyValueSnapshot()
        let change = try container.keyValueChange(from: old, to: head)
        state.withLock { $0.load(snapshot, head: head) }
        return (change, head)
    }

    /// The saved states of `key`, the current one first, with the role each plays now: the
    /// current value, values later writes replaced, and values that lost to concurrent writes.
    public func history(ofKey key: String) throws -> [KeyValueVersion] {
        try container.keyValueHistory(of: key)
    }

    // MARK: Observing

    /// The values other devices change, as they arrive: Apple's
    /// `didChangeExternallyNotification`. A sync in this process or another (`docver sync`)
    /// that brings new values yields one change with the keys and the reason; this device's
    /// own writes yield nothing. Changes count from the values the store last read (when it
    /// was opened, saved, synchronized or reloaded). The store's values in memory are up to
    /// date when a change is yielded.
    ///
    /// Arrivals are noticed by reading this device's branch every `pollInterval`, off the
    /// cooperative pool. The stream ends when it is cancelled or the container can no longer
    /// be read.
    public func changes(
        pollInterval: Duration = .seconds(1),
        clock: any Clock<Duration> = ContinuousClock()
    ) -> AsyncStream<KeyValueStoreChange> {
        let store = self
        // From the head the store last read, taken now: an arrival between this call and the
        // first poll is reported, not mistaken for the starting point.
        let start = state.withLock { $0.head?.hex }
        return AsyncStream { continuation in
            let task = Task {
                do {
                    var seen = start
                    while !Task.isCancelled {
                        try await clock.sleep(for: pollInterval)
                        let head = try await offCooperativePool { try store.container.headID() }
                        guard head != seen else { continue }
                        let old = seen.flatMap(ObjectID.init(hex:))
                        // The head the values were loaded from, which may be newer than the
                        // one just read: counting from the older one would yield the keys
                        // between them a second time.
                        let (change, loaded) = try await offCooperativePool { try store.reload(since: old) }
                        seen = loaded?.hex
                        if let change { continuation.yield(change) }
                    }
                } catch {
                    // Cancelled, or the container can no longer be read: the stream ends.
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
