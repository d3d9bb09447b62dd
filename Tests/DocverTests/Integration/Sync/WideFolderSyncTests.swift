import Foundation
import Testing

@testable import DocverKit

/// A save that adds a folder of many documents arrives at a cost that follows the documents,
/// not their number squared (issue 26). Counted, not timed: the tree diffs a sync makes
/// (``GitWorkCounter``). How fast: Benchmarks/wide_folder.py and docs/PERFORMANCE.md.
@Suite struct WideFolderSyncTests {
    /// Bob's save (made with git fast-import on top of his last save) adds `wide/` with 2,000
    /// documents; Alice's sync receives it. Describing the arrival diffed that save's trees
    /// once per document it brought (looking for renames); now a few diffs in all.
    @Test func aSaveAddingAWideFolderArrivesWithAFewTreeDiffs() throws {
        let count = 2000
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("alice\n", to: "a.txt")
        try alice.sync()
        try bob.sync()
        try bob.saveText("bob\n", to: "b.txt")
        try bob.sync()
        try alice.sync()
        let tip = try bob.git(["rev-parse", "refs/heads/docver/bob"]).trimmingCharacters(in: .whitespacesAndNewlines)
        var stream =
            "commit refs/heads/docver/bob\ncommitter Bob <bob@example.com> \(Int(Date().timeIntervalSince1970)) +0000\n"
            + "data 10\nwide save\nfrom \(tip)\n"
        for index in 0..<count {
            let text = "\(index)\n"
            stream += "M 100644 inline wide/f\(index).txt\ndata \(text.utf8.count)\n\(text)\n"
        }
        let imported = try runProcess("/usr/bin/git", ["fast-import", "--quiet"], in: bob.root, input: Data(stream.utf8))
        try #require(imported.status == 0, "\(imported.stderr)")
        _ = try bob.git(["push", "-q", "origin", "refs/heads/docver/bob"])

        let counter = GitWorkCounter()
        let report = try GitWorkCounter.$current.withValue(counter) { try alice.sync() }
        let diffs = counter.treeDiffs.load(ordering: .relaxed)
        #expect(diffs <= 20, "\(diffs) tree diffs to receive one save of \(count) documents")
        #expect(report.documentChanges.filter { $0.document.path.hasPrefix("wide/") }.count == count)
        let files = try FileManager.default.contentsOfDirectory(atPath: alice.root.path + "/wide")
        #expect(files.count == count)
        #expect(try alice.read("wide/f1234.txt") == "1234\n")
        #expect(try alice.log(of: DocumentPath("wide/f\(count - 1).txt")).count == 1)
    }

    /// A clone of a container whose one save added 2,000 documents: the save's message names
    /// every document (more than 4 KB), and the device of each arriving document was read by
    /// parsing it again, 2,000 times (a clone of 20,000 documents took 149 s, 90 % of it
    /// there). Now it is parsed once or so.
    @Test func aCloneParsesAWideSavesMessageOnce() throws {
        let count = 2000
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try FileManager.default.createDirectory(at: alice.root.appendingPathComponent("wide"), withIntermediateDirectories: true)
        for index in 0..<count { try alice.write("\(index)\n", to: "wide/f\(index).txt") }
        _ = try alice.saveAll()
        try alice.sync()
        let counter = GitWorkCounter()
        let destination = scratch.path("bob")
        let (bob, report) = try GitWorkCounter.$current.withValue(counter) {
            try Container.clone(from: remote.path, to: destination, device: Device(id: "bob"))
        }
        let parses = counter.longMessageParses.load(ordering: .relaxed)
        #expect(parses <= 5, "the save's message was parsed \(parses) times to clone \(count) documents")
        // A clone counts what it received instead of walking each document's versions.
        #expect(report.receivedDocuments == count)
        #expect(report.documentChanges.isEmpty)
        #expect(try bob.read("wide/f1234.txt") == "1234\n")
    }
}

extension WideFolderSyncTests {
    /// A device with no saves yet is told how many documents it received, not each one as
    /// `updated` (issue 28); what arrived in conflict, or holding conflict markers, is still
    /// listed, on `sync` as on `clone`.
    @Test func aNewDeviceCountsWhatItReceivedAndListsItsConflicts() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        _ = try alice.saveText("a\n", to: "a.txt")
        _ = try alice.saveText("b\n", to: "notes/b.txt")
        try alice.sync()
        try bob.sync()
        // A conflict on c.txt: both create it before seeing the other's.
        scratch.clock.tick()
        _ = try alice.saveText("alice\n", to: "c.txt")
        scratch.clock.tick()
        _ = try bob.saveText("bob\n", to: "c.txt")
        try alice.sync()
        try bob.sync()
        try alice.sync()

        // And a document saved with conflict markers in it, which is told one by one too.
        _ = try alice.saveText("<<<<<<< ours\nmine\n=======\nyours\n>>>>>>> theirs\n", to: "marked.txt")
        try alice.sync()

        let carol = try scratch.device("carol", remote: remote)
        let report = try carol.sync()
        #expect(report.receivedDocuments == 4)
        #expect(report.documentChanges.map(\.kind) == [.conflictVersionKept, .updated], "the conflict and the markers: \(report.documentChanges)")
        #expect(report.documentChanges.map(\.document.path) == ["c.txt", "marked.txt"])
        #expect(report.documentChanges.last?.containsConflictMarkers == true)
        let again = try carol.sync()
        #expect(again.receivedDocuments == 0, "a device with saves lists its changes")

        let clone = try docver("clone", remote.path, scratch.path("dave").path, "--device", "dave")
        #expect(clone.status == 0, "\(clone.stderr)")
        #expect(clone.stdout.contains("as device 'dave' (dave): 4 documents\n"), "\(clone.stdout)")
        #expect(clone.stdout.contains("c.txt: alice's version"), "the conflict is told: \(clone.stdout)")
        let json = try docver("clone", remote.path, scratch.path("erin").path, "--device", "erin", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        #expect(object["received"] as? Int == 4)
        #expect((object["changes"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } == ["conflictVersionKept", "updated"])

        // Once the conflict is settled on another device, a device joining later hears
        // nothing of it: it never had a version of c.txt ("resolved on another device" was
        // history to it, not news).
        _ = try alice.markResolved(DocumentPath("c.txt"))
        try alice.sync()
        let frank = try Container.clone(from: remote.path, to: scratch.path("frank"), device: Device(id: "frank")).report
        #expect(frank.documentChanges.map(\.document.path) == ["marked.txt"], "\(frank.documentChanges)")
    }
}
