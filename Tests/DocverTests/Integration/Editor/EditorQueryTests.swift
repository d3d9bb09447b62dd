import DocverKit
import Foundation
import Testing

/// The live query (the NSMetadataQuery role): initial results, then updates as other
/// processes save. Runs on the real clock with a short poll interval, bounded by timeouts.
@Suite struct EditorQueryTests {
    @Test func liveQueryYieldsInitialResultsThenAnUpdateAfterASaveInAnotherProcess() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("a\n", to: "a.txt")
        try alice.saveText("b\n", to: "notes/b.txt")
        try alice.saveText("{}\n", to: "data.json")

        let stream = alice.liveQuery(DocumentQuery(types: ["txt"]), pollInterval: .milliseconds(50))
        let updates = Recorder(stream)
        try await updates.wait("the initial results") { !$0.isEmpty }
        #expect(updates.all.count == 1)
        #expect(updates.all[0].map(\.path.path) == ["a.txt", "notes/b.txt"])

        // A matching document saved by another process appears.
        try alice.write("c\n", to: "c.txt")
        try docverSucceeds("save", "c.txt", in: alice)
        try await updates.wait("the update") { $0.count >= 2 }
        let updated = try #require(updates.all.last)
        #expect(updated.map(\.path.path) == ["a.txt", "c.txt", "notes/b.txt"])
        let item = try #require(updated.first { $0.path.path == "c.txt" })
        #expect(item.device.id == "alice")
        #expect(item.size == 2)
        #expect(!item.hasUnresolvedConflicts)

        // A change outside the query (a .json save) changes no result and yields nothing.
        let count = updates.all.count
        try alice.write("{\"x\": 1}\n", to: "data.json")
        try docverSucceeds("save", "data.json", in: alice)
        // A later matching change proves the poller went past the .json save.
        try alice.write("a, edited\n", to: "a.txt")
        try docverSucceeds("save", "a.txt", in: alice)
        try await updates.wait("the a.txt update") { $0.count > count }
        #expect(updates.all.count == count + 1, "the .json save yielded no update")
        #expect(updates.all.last?.first { $0.path.path == "a.txt" }?.size == 10)
    }

    @Test func liveQueryFollowsAnEditorAndConflicts() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("first\n", to: "note.txt")
        try alice.sync()
        try bob.sync()

        let updates = Recorder(alice.liveQuery(DocumentQuery(hasUnresolvedConflicts: true), pollInterval: .milliseconds(50)))
        try await updates.wait("the initial results") { !$0.isEmpty }
        #expect(updates.all == [[]], "nothing in conflict yet")

        let doc = try textDocument(alice, "note.txt")
        try await doc.open()
        try await doc.edit { $0.text = "alice\n" }
        try await doc.save()
        try bob.saveText("bob\n", to: "note.txt")
        try bob.sync()
        try docverSucceeds("sync", in: alice)

        try await updates.wait("the conflict") { $0.last?.isEmpty == false }
        #expect(updates.all.last?.map(\.path.path) == ["note.txt"])
        #expect(updates.all.last?.first?.hasUnresolvedConflicts == true)

        _ = try await doc.resolve(using: LatestDateStrategy())
        try await updates.wait("the resolution") { $0.last?.isEmpty == true && $0.count >= 3 }
        try await doc.close()
    }

    @Test func liveQueryStopsWhenTheConsumerGoesAway() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("a\n", to: "a.txt")
        let first = try await withTimeout(.seconds(300), "the first results") {
            for try await results in alice.liveQuery(pollInterval: .milliseconds(20)) {
                return results
            }
            return []
        }
        #expect(first.map(\.path.path) == ["a.txt"])
    }
}
