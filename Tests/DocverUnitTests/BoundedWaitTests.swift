import Foundation
import Testing

@testable import DocverKit

/// The bounded wait around calls without a time-out of their own (the name lookup).
@Suite struct BoundedWaitTests {
    @Test func workThatEndsInTimeGivesItsResult() {
        #expect(waitingAtMost(5) { 42 } == 42)
    }

    @Test func workThatRunsOverIsAbandonedAtTheLimit() {
        let started = Date()
        // The work would take 60 s; the wait returns at its 0.2 s limit. The upper bound only
        // shows it did not wait for the work: generous, so a busy machine's scheduling is no failure.
        let result = waitingAtMost(0.2) { () -> Int in
            Thread.sleep(forTimeInterval: 60)
            return 1
        }
        let elapsed = -started.timeIntervalSinceNow
        #expect(result == nil)
        #expect(elapsed >= 0.2 && elapsed < 30, "returned after \(elapsed) s")
    }
}
