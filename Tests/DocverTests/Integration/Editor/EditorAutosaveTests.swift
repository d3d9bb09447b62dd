import DocverKit
import Foundation
import Testing

/// Autosave after a quiet period, driven by a manual clock: nothing sleeps in real time for
/// the timing; the tests only wait (briefly, bounded) for tasks to reach their sleep.
@Suite struct EditorAutosaveTests {
    @Test func autosavesAfterTheQuietPeriodAndNotBefore() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("start\n", to: "note.txt")
        let clock = ManualClock()
        let doc = try textDocument(alice, "note.txt", clock: clock, autosaveDelay: .seconds(5))
        try await doc.open()
        let events = Recorder(await doc.events())
        let refs = try refSnapshot(alice.root)

        try await doc.edit { $0.text = "typed\n" }
        try await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(5)))

        clock.advance(by: .milliseconds(4999))
        // Give a wrongly woken autosave every chance to run before checking that none did.
        for _ in 0..<50 { await Task.yield() }
        #expect(await doc.hasUnsavedChanges)
        #expect(try refSnapshot(alice.root) == refs, "no save before the quiet period is over")
        #expect(events.all.isEmpty)

        clock.advance(by: .milliseconds(1))
        try await events.wait("the autosave") { $0.count == 1 }

        #expect(await !doc.hasUnsavedChanges)
        #expect(try alice.currentText("note.txt") == "typed\n")
        #expect(try alice.read("note.txt") == "typed\n")
        #expect(try alice.versionCount("note.txt") == 2)
        let current = try #require(try alice.currentVersion(of: DocumentPath("note.txt")))
        #expect(events.all == [.saved(version: current.id)])
        #expect(await doc.state == .normal)

        // Once saved, more time passing saves nothing more.
        let after = try refSnapshot(alice.root)
        clock.advance(by: .seconds(60))
        for _ in 0..<50 { await Task.yield() }
        #expect(try refSnapshot(alice.root) == after)
        try await doc.close()
        try expectFsckClean(alice.root)
    }

    @Test func eachEditRestartsTheQuietPeriod() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let clock = ManualClock()
        let doc = try textDocument(alice, "note.txt", clock: clock, autosaveDelay: .seconds(5))
        try await doc.create(TextModel(text: ""))
        let events = Recorder(await doc.events())
        let refs = try refSnapshot(alice.root)

        for word in ["one", "two", "three"] {
            try await doc.edit { $0.text += word + "\n" }
            try await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(5)))
            clock.advance(by: .seconds(3))  // typing again before the quiet period ends
        }
        for _ in 0..<50 { await Task.yield() }
        #expect(try refSnapshot(alice.root) == refs, "9 seconds of typing, never 5 quiet ones: no autosave")
        #expect(await doc.hasUnsavedChanges)

        clock.advance(by: .seconds(2))
        try await events.wait("the autosave") { $0.count == 1 }
        #expect(try alice.currentText("note.txt") == "one\ntwo\nthree\n")
        #expect(try alice.versionCount("note.txt") == 2, "one autosave for the whole burst")
        #expect(await !doc.hasUnsavedChanges)
        try await doc.close()
    }

    @Test func everyQuietPeriodAfterEditsGetsItsOwnAutosave() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let clock = ManualClock()
        let doc = try textDocument(alice, "note.txt", clock: clock, autosaveDelay: .seconds(2))
        try await doc.create(TextModel(text: "0"))
        let events = Recorder(await doc.events())

        for round in 1...3 {
            try await doc.edit { $0.text = "\(round)" }
            try await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(2)))
            clock.advance(by: .seconds(2))
            try await events.wait("autosave \(round)") { $0.count == round }
            #expect(try alice.currentText("note.txt") == "\(round)")
        }
        #expect(try alice.versionCount("note.txt") == 4)
        try await doc.close()
        try expectFsckClean(alice.root)
    }

    @Test func closeBeforeTheQuietPeriodSavesOnceAndCancelsTheAutosave() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let clock = ManualClock()
        let doc = try textDocument(alice, "note.txt", clock: clock, autosaveDelay: .seconds(5))
        try await doc.create(TextModel(text: "a"))
        try await doc.edit { $0.text = "b" }
        try await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(5)))

        try await doc.close()
        let refs = try refSnapshot(alice.root)
        #expect(try alice.versionCount("note.txt") == 2)
        #expect(clock.pendingDeadlines.isEmpty, "closing cancels the autosave and the polling")
        clock.advance(by: .seconds(60))
        for _ in 0..<50 { await Task.yield() }
        #expect(try refSnapshot(alice.root) == refs)
    }
}
