import DocverKit
import Foundation
import Testing

/// The NSFileVersion-style operations: replace, mark resolved, remove other versions.
@Suite struct ResolveOperationTests {
    // MARK: replace

    @Test func replaceMakesAVersionCurrentAsANewSaveOnThisDevicesBranch() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"])
        let (alice, bob) = (fixture.devices[0], fixture.devices[1])
        let doc = fixture.document
        let loser = fixture.losers[0]
        let oldHead = try #require(try alice.headID())
        #expect(try alice.read("note.txt") == "bob\n")

        let result = try alice.replace(doc, with: loser)
        #expect(result.changes.map(\.document.path) == ["note.txt"])
        #expect(result.changes.map(\.change) == [.modified])
        #expect(try alice.headID() == result.id, "the replacement is the new tip of alice's branch")
        #expect(try alice.git(["rev-parse", result.id + "^"]).trimmingCharacters(in: .whitespacesAndNewlines) == oldHead)
        let current = try #require(try alice.currentVersion(of: doc))
        #expect(current.id == result.id)
        #expect(current.device.id == "alice")
        #expect(try flatText(of: current, in: alice) == "alice\n")
        #expect(try alice.read("note.txt") == "alice\n", "the working tree follows")
        #expect(try commitTrailers(of: result.id, in: alice).contains("Docver-Replaced: \(loser) note.txt"))
        #expect(try alice.status().changed.isEmpty)
        // Replacing is not resolving: the conflict version is still there to decide on.
        #expect(try alice.unresolvedConflictVersions(of: doc).map(\.id) == [loser])
        // Any version of the document can be made current, not only conflict versions.
        try alice.replace(doc, with: fixture.base)
        #expect(try alice.read("note.txt") == "base\n")
        try expectFsckClean(alice.root)

        // The CLI, with a short id, on the other device.
        let bobHead = try #require(try bob.headID())
        let cli = try docver(["replace", "note.txt", String(loser.prefix(8))], in: bob.root)
        #expect(cli.status == 0, "\(cli.stderr)")
        #expect(cli.stdout.contains("is now current"))
        #expect(try bob.read("note.txt") == "alice\n")
        let bobCurrent = try #require(try bob.currentVersion(of: doc))
        #expect(bobCurrent.device.id == "bob")
        #expect(try bob.git(["rev-parse", bobCurrent.id + "^"]).trimmingCharacters(in: .whitespacesAndNewlines) == bobHead)
    }

    // MARK: mark resolved

    @Test func markResolvedKeepsTheVersionsReadableAsResolvedAndIsOneWay() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"])
        let (alice, bob) = (fixture.devices[0], fixture.devices[1])
        let doc = fixture.document
        let loser = fixture.losers[0]
        let oldHead = try #require(try alice.headID())
        #expect(try listedConflictVersions("note.txt", in: alice) == [loser: false])

        let result = try alice.markResolved(doc)
        // Only a record: the tree and the current version stay.
        let trees = try alice.git(["rev-parse", result.id + "^{tree}", oldHead + "^{tree}"]).split(separator: "\n")
        #expect(trees.count == 2 && trees[0] == trees[1])
        let recorded = try commitTrailers(of: result.id, in: alice)
        #expect(recorded.contains("Docver-Resolved: \(loser) note.txt"))
        #expect(!recorded.contains { $0.hasPrefix("Docver-Removed:") })
        #expect(try alice.currentVersion(of: doc)?.id == fixture.winner)
        #expect(try alice.read("note.txt") == "bob\n")

        #expect(try alice.conflicts().isEmpty)
        #expect(try alice.status().inConflict.isEmpty)
        #expect(try alice.resolvedConflictVersions(of: doc).map(\.id) == [loser])
        #expect(try listedConflictVersions("note.txt", in: alice) == [loser: true])
        let plain = try #require(try parseJSON(docver(["versions", "note.txt", "--json"], in: alice.root).stdoutData) as? [String: Any])
        #expect((plain["conflicts"] as? [Any])?.isEmpty == true, "without --all resolved versions are not listed")
        #expect(try docver(["versions", "note.txt", "--all"], in: alice.root).stdout.contains("resolved  \(loser.prefix(12))"))
        // The resolved version stays readable.
        #expect(try flatText(of: alice.version(loser, of: doc), in: alice) == "alice\n")

        // One-way: there is nothing left to mark, and syncing never raises it again.
        #expect(throws: DocverError.notInConflict("note.txt")) { try alice.markResolved(doc) }
        #expect(throws: DocverError.notAConflictVersion(version: fixture.winner, document: "note.txt")) {
            try bob.markResolved(doc, versions: [fixture.winner])
        }
        #expect(try bob.unresolvedConflictVersions(of: doc).map(\.id) == [loser], "bob has not synced yet")
        try alice.sync()
        try bob.sync()
        try expectConverged([alice, bob])
        for device in [alice, bob] {
            #expect(try device.conflicts().isEmpty)
            #expect(try listedConflictVersions("note.txt", in: device) == [loser: true])
        }
        #expect(throws: DocverError.notInConflict("note.txt")) { try bob.markResolved(doc, versions: [loser]) }
    }

    @Test func markResolvedMarksASubsetByID() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(
            scratch, ids: ["ann", "ben", "cat"], base: "base\n",
            edits: ["ann\n", "ben\n", "cat\n"])
        let cat = fixture.devices[2]
        let (first, second) = (fixture.losers[0], fixture.losers[1])
        #expect(try listedConflictVersions("note.txt", in: cat) == [first: false, second: false])

        // A version that is not an unresolved conflict version is refused, changing nothing.
        let before = try ResolveSnapshot(cat)
        #expect(throws: DocverError.notAConflictVersion(version: fixture.winner, document: "note.txt")) {
            try cat.markResolved(fixture.document, versions: [fixture.winner])
        }
        try expectContainerUnchanged(cat, since: before, "marking the current version")

        let cli = try docver(["mark-resolved", "note.txt", String(first.prefix(10))], in: cat.root)
        #expect(cli.status == 0, "\(cli.stderr)")
        #expect(try cat.unresolvedConflictVersions(of: fixture.document).map(\.id) == [second])
        #expect(try listedConflictVersions("note.txt", in: cat) == [first: true, second: false])
        #expect(try cat.status().inConflict.map(\.conflicts) == [1])
        let recorded = try commitTrailers(of: #require(try cat.headID()), in: cat)
        #expect(recorded.filter { $0.hasPrefix("Docver-Resolved:") } == ["Docver-Resolved: \(first) note.txt"])

        // Already resolved: not an unresolved conflict version any more.
        #expect(throws: DocverError.notAConflictVersion(version: first, document: "note.txt")) {
            try cat.markResolved(fixture.document, versions: [first])
        }
        try cat.markResolved(fixture.document, versions: [second])
        #expect(try cat.conflicts().isEmpty)
        #expect(try listedConflictVersions("note.txt", in: cat) == [first: true, second: true])
        #expect(try cat.read("note.txt") == "cat\n")
    }

    // MARK: remove other versions

    @Test func removeOtherVersionsDropsThemFromTheVersionStoreOnly() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"])
        let (alice, bob) = (fixture.devices[0], fixture.devices[1])
        let doc = fixture.document
        let loser = fixture.losers[0]
        let current = try #require(try alice.currentVersion(of: doc))
        let history = try alice.history(of: doc).map(\.id)
        #expect(history == [fixture.base])

        let result = try alice.removeOtherVersions(of: doc)
        let recorded = try commitTrailers(of: result.id, in: alice)
        #expect(recorded.contains("Docver-Resolved: \(loser) note.txt"), "an unresolved version is resolved as it goes")
        #expect(recorded.contains("Docver-Removed: \(loser) note.txt"))
        #expect(try alice.conflicts().isEmpty)
        #expect(try alice.resolvedConflictVersions(of: doc).isEmpty)
        #expect(try listedConflictVersions("note.txt", in: alice).isEmpty)
        // The current version and its history stay, and so does the removed save in git.
        #expect(try alice.currentVersion(of: doc) == current)
        #expect(try alice.history(of: doc).map(\.id) == history)
        #expect(try alice.read("note.txt") == "bob\n")
        #expect(try alice.isReachable(loser))
        #expect(try flatText(of: alice.version(loser, of: doc), in: alice) == "alice\n")
        #expect(throws: DocverError.noOtherVersions(document: "note.txt")) { try alice.removeOtherVersions(of: doc) }

        // On bob, through the CLI: resolved-but-kept versions are removed too.
        #expect(try docver(["mark-resolved", "note.txt"], in: bob.root).status == 0)
        #expect(try listedConflictVersions("note.txt", in: bob) == [loser: true])
        let cli = try docver(["remove-other-versions", "note.txt"], in: bob.root)
        #expect(cli.status == 0, "\(cli.stderr)")
        #expect(cli.stdout.contains("other versions removed"))
        #expect(try listedConflictVersions("note.txt", in: bob).isEmpty)
        #expect(try bob.history(of: doc).map(\.id) == history)
        let again = try docver(["remove-other-versions", "note.txt"], in: bob.root)
        #expect(again.status == 1)
        #expect(again.stderr.contains("has no other versions to remove"))

        for device in [alice, bob, alice] { try device.sync() }
        try expectConverged([alice, bob])
        #expect(try listedConflictVersions("note.txt", in: alice).isEmpty)
    }
}
