import Foundation

/// Runs blocking work — waiting for the writer lock, reading and hashing files, walking
/// history — on a thread of its own instead of the cooperative pool, which has one thread
/// per core and must never wait. Every `async` entry point of the library that calls the
/// synchronous core goes through here.
///
/// Each call gets a thread of its own, not a `DispatchQueue.global()` or concurrent queue:
/// libdispatch serves those with about one thread per core and no more, so two waits for
/// the writer lock on a 2-core machine stalled every other caller (seen in the test suite).
/// A thread costs tens of microseconds; the work it runs costs milliseconds.
func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.qualityOfService = .userInitiated
        thread.start()
    }
}

/// A serial executor on a dispatch queue of its own, for actors whose every method does
/// blocking work (ManagedDocument): their jobs run there, never on the cooperative pool.
final class BlockingExecutor: SerialExecutor {
    // Immutable after init, and DispatchQueue is thread-safe: Sendable by construction.
    private let queue: DispatchQueue

    /// A serial queue made with `DispatchQueue(label:)` gets a thread when it has work, beyond
    /// the one-per-core limit of the global queues (overcommit).
    init(label: String) { queue = DispatchQueue(label: label, qos: .userInitiated) }

    func enqueue(_ job: consuming ExecutorJob) {
        let unownedJob = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { unownedJob.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}
