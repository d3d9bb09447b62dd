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
