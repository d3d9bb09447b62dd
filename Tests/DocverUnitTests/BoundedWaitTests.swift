@testable import DocverKit
import Foundation
import Testing

/// The bounded wait around calls without a time-out of their own (the name lookup).
@Suite struct BoundedWaitTests {
    @Test func workThatEndsInTimeGivesItsResult() {
        #expect(waitingAtMost(5) { 42 } == 42)
    }

    @Test func workThatRunsOverIsAbandonedAtTheLimit() {
        let started = Date()
        let result = waitingAtMost(0.2) { () -> Int in
            Thread.sleep(forTimeInterval: 3)
            return 1
        }
        let elapsed = -started.timeIntervalSinceNow
        #expect(result == nil)
        #expect(elapsed >= 0.2 && elapsed < 1.5, "returned after \(elapsed) s")
    }
}
