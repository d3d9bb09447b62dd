import Foundation

/// Runs blocking work — waiting for the writer lock, reading and hashing files, walking
/// history — on a thread of its own instead of the cooperative pool, which has one thread
/// per core and must never wait. Every `async` entry point of the library that calls the
/// synchronous core goes through here.
func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .userInitiated).async {
            continuation.resume(with: Result { try body() })
        }
    }
}

/// A serial executor on a dispatch queue of its own, for actors whose every method does
/// blocking work (ManagedDocument): their jobs run there, never on the cooperative pool.
final class BlockingExecutor: SerialExecutor {
    // Immutable after init, and DispatchQueue is thread-safe: Sendable by construction.
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label, qos: .userInitiated) }

    func enqueue(_ job: consuming ExecutorJob) {
        let unownedJob = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { unownedJob.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}
