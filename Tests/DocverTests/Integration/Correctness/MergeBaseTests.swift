import DocverKit
import Foundation
import Testing

/// Issue 11, items 1 and 2: every conflict version is merged against its own base, listed
/// once, and a "clean" merge never drops an edit.
@Suite struct MergeBaseTests {
    private static let lines = (1...20).map { "line \($0)" }

    private func text(editing edits: [Int: String], of lines: [String] = lines) -> String {
        var result = lines
        for (number, text) in edits { result[number - 1] = text }
        return result.joined(separator: "\n") + "\n"
    }

    private func synced(_ ids: [String], _ scratch: Scratch) throws -> [Container] {
        let remote = try scratch.bareRemote()
        let devices = try ids.map { try scratch.device($0, remote: remote) }
        try devices[0].write(text(editing: [:]), to: "doc.txt")
        try devices[0].saveAll(message: "base")
        for device in devices { try device.sync() }
        return devices
    }

    /// Edits `doc.txt` on `device` by changing one line of what is in its working tree now.
    private func edit(_ device: Container, line: Int, to text: String) throws {
        var lines = try device.read("doc.txt").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[line - 1] = text
        try device.write(lines.joined(separator: "\n"), to: "doc.txt")
        try device.saveAll()
    }

    /// (docs/MODEL.md: R29.)
    @Test func editsMadeOnTopOfAnUnresolvedConflictAreAllMerged() async throws {
        let scratch = try Scratch()
        let devices = try synced(["alice", "bob"], scratch)
        let (alice, bob) = (devices[0], devices[1])
        try edit(alice, line: 2, to: "alice 2")
        scratch.clock.tick()
        try edit(bob, line: 10, to: "bob 10")
        try alice.sync(); try bob.sync(); try alice.sync()
        // Without resolving, each edits again, on top of whatever is current there.
        try edit(alice, line: 5, to: "alice 5")
        scratch.clock.tick()
        try edit(bob, line: 16, to: "bob 16")
        try alice.sync(); try bob.sync(); try alice.sync()
        try expectConverged([alice, bob])

        let outcome = try await alice.resolve(DocumentPath("doc.txt"), using: MergeStrategy())
        let merged = try alice.read("doc.txt")
        for edit in ["alice 2", "bob 10", "alice 5", "bob 16"] {
            #expect(merged.contains(edit), "the merge dropped '\(edit)'")
        }
        #expect(outcome.summary.contains("merge of \(outcome.resolved.count + 1) versions"))
        try alice.sync(); try bob.sync()
        let bobText = try bob.read("doc.txt")
        let bobStatus = try bob.status()
        #expect(bobText == merged, "bob has \(bobText), status \(bobStatus)")
        #expect(try alice.conflicts().isEmpty)
    }

    /// (docs/MODEL.md: R28.)
    @Test func crossedIntegrationsListEachConflictVersionOnceAndMergeAllEdits() async throws {
        let scratch = try Scratch()
        let devices = try synced(["alice", "bob", "carol"], scratch)
        let (alice, bob, carol) = (devices[0], devices[1], devices[2])
        try edit(carol, line: 16, to: "carol 16")
        scratch.clock.tick()
        try edit(alice, line: 2, to: "alice 2")
        scratch.clock.tick()
        try edit(bob, line: 10, to: "bob 10")
        try carol.sync()
        // Alice and Bob each integrate Carol's edit before seeing each other's integration.
        for device in [alice, bob] {
            _ = try device.git(["fetch", "origin", "+refs/heads/docver/carol:refs/remotes/origin/docver/carol"])
            try device.integrate()
        }
        try alice.sync(); try bob.sync(); try alice.sync(); try carol.sync()
        try expectConverged([alice, bob, carol])

        let doc = try DocumentPath("doc.txt")
        let conflict = try #require(try alice.conflicts(doc).first)
        let ids = conflict.conflicts.map(\.id)
        #expect(ids.count == Set(ids).count, "a conflict version is listed once")
        #expect(ids.count == 2, "three versions compete: the current one and two conflict versions")
        #expect(try alice.status().inConflict.map(\.conflicts) == [2])
        for version in conflict.conflicts {
            #expect(
                try bob.conflicts(doc).first?.base(of: version)?.id == conflict.base(of: version)?.id,
                "every device derives the same base")
        }

        let outcome = try await alice.resolve(doc, using: MergeStrategy())
        #expect(outcome.summary.contains("merge of 3 versions"), "\(outcome.summary)")
        let merged = try alice.read("doc.txt")
        for edit in ["alice 2", "bob 10", "carol 16"] {
            #expect(merged.contains(edit), "the merge dropped '\(edit)'")
        }
    }

    /// A resolution by merge is made from every version it merged: a later merge of one of
    /// those versions' further edits starts from it, not from before the conflict, so a
    /// change the edit undid (a revert) stays undone.
    @Test func aRevertMadeAfterAConflictWasMergedElsewhereStaysReverted() async throws {
        let scratch = try Scratch()
        let devices = try synced(["alice", "bob"], scratch)
        let (alice, bob) = (devices[0], devices[1])
        try edit(alice, line: 2, to: "alice 2")
        scratch.clock.tick()
        try edit(bob, line: 8, to: "bob 8")
        try alice.sync(); try bob.sync()
        let doc = try DocumentPath("doc.txt")
        _ = try await bob.resolve(doc, using: MergeStrategy())
        #expect(try bob.read("doc.txt").contains("alice 2"))
        try bob.sync()
        // Alice, who has not seen the merge, takes her line 2 back and edits line 5.
        try edit(alice, line: 2, to: "line 2")
        try edit(alice, line: 5, to: "alice 5")
        try alice.sync(); try bob.sync(); try alice.sync()
        try expectConverged([alice, bob])
        if try !alice.conflicts(doc).isEmpty {
            let conflict = try #require(try alice.conflicts(doc).first)
            // The base of Alice's new version is her own edit, which the merge was made from.
            for version in conflict.conflicts {
                #expect(
                    try conflict.base(of: version).map { try flatText(of: $0, in: alice) }??.contains("alice 2") == true,
                    "the base is the version both started from")
            }
            _ = try await alice.resolve(doc, using: MergeStrategy())
        }
        let merged = try alice.read("doc.txt")
        #expect(!merged.contains("alice 2"), "Alice's revert was undone:\n\(merged)")
        for edit in ["alice 5", "bob 8", "line 2"] {
            #expect(merged.contains(edit), "the merge dropped '\(edit)'")
        }
    }

    /// Fuzz seed 56: a replace copies one version's contents and is made from that version
    /// alone. Counted as made from the version it replaced too, it undid that version's edit
    /// in a later merge with the replaced version's own further edit, reporting a clean merge.
    @Test func aReplaceDoesNotUndoTheReplacedVersionsEditInALaterMerge() async throws {
        let scratch = try Scratch()
        let devices = try synced(["alice", "bob"], scratch)
        let (alice, bob) = (devices[0], devices[1])
        let doc = try DocumentPath("doc.txt")
        try edit(alice, line: 2, to: "alice 2")
        scratch.clock.tick()
        try edit(bob, line: 10, to: "bob 10")
        try alice.sync(); try bob.sync(); try alice.sync()
        let conflict = try #require(try alice.conflicts(doc).first)
        #expect(conflict.current.device.id == "bob")
        // Alice makes her own version current again; Bob, not having seen it, edits on.
        try alice.replace(doc, with: try #require(conflict.conflicts.first).id)
        scratch.clock.tick()
        try edit(bob, line: 15, to: "bob 15")
        try alice.sync(); try bob.sync(); try alice.sync()
        try expectConverged([alice, bob])
        _ = try await alice.resolve(doc, using: MergeStrategy())
        let merged = try alice.read("doc.txt")
        for edit in ["alice 2", "bob 10", "bob 15"] {
            #expect(merged.contains(edit), "the merge dropped '\(edit)':\n\(merged)")
        }
    }

    /// Two devices merge the same conflict at once, then edit on: the two new versions share
    /// two best common ancestors (the versions both merges were made from), a criss-cross.
    /// The merge starts from those ancestors merged, as git's recursive merge does, so a
    /// change one side undid after its merge stays undone.
    /// (docs/MODEL.md: R29.)
    @Test func crissCrossMergesStartFromTheAncestorsMergedRecursively() async throws {
        let scratch = try Scratch()
        let devices = try synced(["alice", "bob"], scratch)
        let (alice, bob) = (devices[0], devices[1])
        let doc = try DocumentPath("doc.txt")
        try edit(alice, line: 1, to: "alice 1")
        scratch.clock.tick()
        try edit(bob, line: 9, to: "bob 9")
        try alice.sync(); try bob.sync(); try alice.sync()
        // Both resolve by merge before seeing each other's resolution.
        _ = try await alice.resolve(doc, using: MergeStrategy())
        _ = try await bob.resolve(doc, using: MergeStrategy())
        #expect(try alice.read("doc.txt") == bob.read("doc.txt"))
        try edit(alice, line: 15, to: "alice 15")
        scratch.clock.tick()
        try edit(bob, line: 1, to: "line 1")
        try edit(bob, line: 5, to: "bob 5")
        try alice.sync(); try bob.sync(); try alice.sync()
        try expectConverged([alice, bob])
        let conflict = try #require(try alice.conflicts(doc).first, "both changed the merged version")
        #expect(conflict.conflicts.count == 1)
        _ = try await alice.resolve(doc, using: MergeStrategy())
        let merged = try alice.read("doc.txt")
        #expect(merged.hasPrefix("line 1\n"), "Bob's revert of line 1 was undone:\n\(merged)")
        for edit in ["bob 5", "bob 9", "alice 15"] {
            #expect(merged.contains(edit), "the merge dropped '\(edit)':\n\(merged)")
        }
    }
}
