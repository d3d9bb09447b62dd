import Foundation
import Synchronization

/// A clock that only moves when a test calls ``advance(by:)``: code under test that sleeps on
/// it (autosave, polling) wakes exactly when the test says so, without real waiting.
///
/// Sendable through a `Mutex`: all mutable state (the time and the pending sleepers) lives
/// inside it, and continuations are resumed only after the lock is released.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol, CustomStringConvertible {
        /// Time since the clock was made.
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        var description: String { "t+\(offset)" }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [UInt64: Sleeper] = [:]
    }

    private let state = Mutex(State())

    init() {}

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Decide under the lock, so a concurrent cancel or advance sees either no
                // sleeper (and we resume here) or a registered one (and it resumes it).
                let immediate: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the time forward and wakes every sleeper whose deadline has passed.
    func advance(by duration: Duration) {
        let due: [Sleeper] = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// The deadlines of the tasks sleeping now, earliest first.
    var pendingDeadlines: [Instant] {
        state.withLock { $0.sleepers.values.map(\.deadline).sorted() }
    }

    /// Waits (in real time, briefly polling) until a task sleeps until `deadline`: a test
    /// calls it before ``advance(by:)`` so the sleep it means to end has really begun.
    func waitForSleeper(until deadline: Instant, timeout: Duration = .seconds(300)) async throws {
        try await waitUntil(timeout: timeout, "a sleeper until \(deadline); pending: \(pendingDeadlines)") {
            self.pendingDeadlines.contains(deadline)
        }
    }

    /// Waits until at least `count` tasks sleep on this clock.
    func waitForSleepers(_ count: Int, timeout: Duration = .seconds(300)) async throws {
        try await waitUntil(timeout: timeout, "\(count) sleepers; pending: \(pendingDeadlines)") {
            self.pendingDeadlines.count >= count
        }
    }
}

/// Polls `condition` in real time until it holds, failing after `timeout`. For waiting on
/// other tasks or processes to get somewhere, never for the timing under test. The bound is
/// generous (300 s) and counts only time this wait was awake to watch: the whole suite shares
/// the cooperative pool's two threads on a 2-core machine, and synchronous tests can hold
/// both for minutes (a CI run starved agents and live queries, whose tasks could not even
/// start, past 300 s of wall-clock time). So the wait fails only once the wall-clock bound
/// is past and it has also polled, awake, for ``PollBudget/awakeAfterDeadline`` since; the
/// bound only catches hangs.
func waitUntil(
    timeout: Duration = .seconds(300), _ what: @autoclosure () -> String = "condition",
    _ condition: () async throws -> Bool
) async throws {
    var budget = PollBudget(timeout: timeout)
    while try await !condition() {
        guard budget.mayWaitMore() else { throw TimedOut(what: what()) }
        try await Task.sleep(for: .milliseconds(2))
    }
}

/// When a poll loop may give up: `timeout` of wall-clock time has passed and, since then, the
/// loop has been awake for ``awakeAfterDeadline`` in polls that each followed the previous one
/// promptly (a poll that comes late, because the pool was busy, does not count).
struct PollBudget {
    static let awakeAfterDeadline: Duration = .seconds(10)
    private let clock = ContinuousClock()
    private let deadline: ContinuousClock.Instant
    private var last: ContinuousClock.Instant
    private var awake: Duration = .zero

    init(timeout: Duration) {
        deadline = clock.now.advanced(by: timeout)
        last = clock.now
    }

    mutating func mayWaitMore() -> Bool {
        let now = clock.now
        defer { last = now }
        guard now >= deadline else { return true }
        // A poll that follows the previous one within a second counts as time watched.
        let gap = now - last
        if gap < .seconds(1) { awake += gap }
        return awake < Self.awakeAfterDeadline
    }
}

/// Runs `body`, failing with ``TimedOut`` if it takes longer than `timeout` (real time, counted
/// as ``waitUntil(timeout:_:_:)`` counts it: see ``PollBudget``).
func withTimeout<T: Sendable>(
    _ timeout: Duration, _ what: String = "operation",
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            var budget = PollBudget(timeout: timeout)
            while budget.mayWaitMore() { try await Task.sleep(for: .milliseconds(20)) }
            throw TimedOut(what: what)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Collects everything an async sequence yields, in the background, for later inspection.
final class Recorder<Element: Sendable>: Sendable {
    private final class Storage: Sendable {
        let values = Mutex<[Element]>([])
    }

    private let storage: Storage
    private let task: Task<Void, Never>

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Element {
        let storage = Storage()
        self.storage = storage
        task = Task {
            do {
                for try await value in sequence { storage.values.withLock { $0.append(value) } }
            } catch {}
        }
    }

    deinit { task.cancel() }

    var all: [Element] { storage.values.withLock { $0 } }

    /// Waits until what was recorded satisfies `condition`.
    func wait(
        timeout: Duration = .seconds(300), _ what: String = "recorded values",
        until condition: @escaping ([Element]) -> Bool
    ) async throws {
        try await waitUntil(timeout: timeout, "\(what); recorded: \(all)") { condition(self.all) }
    }
}
