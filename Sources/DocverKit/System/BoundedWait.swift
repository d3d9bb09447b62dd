import Foundation
import Synchronization

/// Runs `work` on a thread of its own and waits at most `seconds` for it: its result, or nil
/// when it has not finished by then.
///
/// For blocking calls that take no time-out of their own (`getaddrinfo`, which waits as long
/// as the system's resolver configuration says, 10 s and more per name server). A call that
/// runs over is not stopped — nothing can stop it — but left to end on its thread, and its
/// result dropped; `work` must own everything it touches.
func waitingAtMost<T: Sendable>(_ seconds: Double, for work: @escaping @Sendable () -> T) -> T? {
    let outcome = OutcomeBox<T>()
    let thread = Thread { outcome.finish(work()) }
    thread.name = "docver bounded wait"
    thread.start()
    return outcome.wait(seconds)
}

/// The result of one ``waitingAtMost(_:for:)`` call, handed from its thread to the waiter.
private final class OutcomeBox<T: Sendable>: Sendable {
    private let value = Mutex<T?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ result: sending T) {
        value.withLock { $0 = result }
        done.signal()
    }

    func wait(_ seconds: Double) -> T? {
        guard done.wait(timeout: .now() + max(0, seconds)) == .success else { return nil }
        return value.withLock { $0 }
    }
}
