import DocverKit
import Foundation
import Testing

/// The resolver as people use it: the interactive chooser on a terminal, diffs, the log, and
/// undoing a resolution with restore.
@Suite struct ResolveCLITests {
    @Test func theInteractiveChooserShowsVersionsAndADiffAndKeepsTheChoice() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(
            scratch, names: ["Alice's Laptop", "Bob's Phone"],
            base: "title\nbase line\n", edits: ["title\nalice's line\n", "title\nbob's line\n"])
        let bob = fixture.devices[1]
        let loser = fixture.losers[0]

        let session = try docverOnTerminal(["resolve", "note.txt", "--strategy", "choose"], in: bob.root, answers: ["d 1 2", "2"])
        #expect(session.status == 0, "\(session.output)")
        let output = session.output
        #expect(output.contains("note.txt is in conflict. Versions:"))
        #expect(output.contains("1) current   Bob's Phone"), "\(output)")
        #expect(output.contains("2) conflict  Alice's Laptop"), "\(output)")
        #expect(output.contains("\"bob's line\"") || output.contains("\"title\""), "a preview of each version")
        #expect(output.contains("b) base"))
        #expect(output.components(separatedBy: "choice> ").count - 1 == 2, "asked twice: \(output)")
        // The diff from version 1 (current) to version 2.
        #expect(output.contains("# note.txt: version \(fixture.winner.prefix(12)) (Bob's Phone, "), "\(output)")
        #expect(output.contains(" -> version \(loser.prefix(12)) (Alice's Laptop, "), "\(output)")
        #expect(output.contains("--- a/note.txt"), "\(output)")
        #expect(output.contains("+++ b/note.txt"), "\(output)")
        #expect(output.contains("\n-bob's line\n"))
        #expect(output.contains("\n+alice's line\n"))
        #expect(output.contains("note.txt: kept version \(loser.prefix(12)) from Alice's Laptop as current"))

        #expect(try bob.read("note.txt") == "title\nalice's line\n")
        #expect(try currentFlatText(fixture.document, in: bob) == "title\nalice's line\n")
        #expect(try bob.conflicts().isEmpty)
        let recorded = try commitTrailers(of: #require(try bob.headID()), in: bob)
        #expect(recorded.contains("Docver-Strategy: choose"))
        #expect(recorded.contains("Docver-Resolved: \(loser) note.txt"))
    }

    @Test func quittingTheInteractiveChooserChangesNothing() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"])
        let alice = fixture.devices[0]
        let before = try ResolveSnapshot(alice)
        let session = try docverOnTerminal(
            ["resolve", "note.txt", "--strategy", "choose"], in: alice.root,
            answers: ["d b 2", "what", "q"])
        #expect(session.status == 1, "\(session.output)")
        // The diff from the base to version 2.
        #expect(session.output.contains("# note.txt: version \(fixture.base.prefix(12)) (alice, "), "\(session.output)")
        #expect(session.output.contains("\n-base\n"))
        #expect(session.output.contains("\n+alice\n"))
        #expect(
            session.output.contains(
                "not understood: 'what'; valid: 1 or 2 (keep that version), 'd N M' with N and M among 1, 2 and b (diff), 'q' (cancel)"),
            "the chooser lists the valid inputs: \(session.output)")
        #expect(session.output.contains("resolution of note.txt was cancelled"))
        try expectContainerUnchanged(alice, since: before, "quitting the chooser")
        #expect(try alice.unresolvedConflictVersions(of: fixture.document).map(\.id) == fixture.losers)
    }

    @Test func diffComparesVersionsTheBaseAndTheCurrentVersion() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "same\nbase\n", edits: ["same\nalice\n", "same\nbob\n"])
        let alice = fixture.devices[0]
        let (loser, winner) = (fixture.losers[0], fixture.winner)
        let doc = fixture.document

        let library = try alice.diff(from: alice.version(loser, of: doc), to: alice.version(winner, of: doc))
        #expect(library.hasPrefix("diff --git a/note.txt b/note.txt\n--- a/note.txt\n+++ b/note.txt\n@@ "), "\(library)")
        // The command line names the two versions on a line of its own, before the patch.
        let label = "# note.txt: version \(loser.prefix(12)) (alice, "
        #expect(library.contains("\n-alice\n"))
        #expect(library.contains("\n+bob\n"))
        #expect(library.contains(" same\n"))
        #expect(try alice.diff(from: alice.version(winner, of: doc), to: alice.version(winner, of: doc)).isEmpty)

        let twoVersions = try docver(["diff", "note.txt", String(loser.prefix(8)), String(winner.prefix(8))], in: alice.root)
        #expect(twoVersions.status == 0, "\(twoVersions.stderr)")
        #expect(twoVersions.stdout.hasPrefix(label), "\(twoVersions.stdout)")
        #expect(twoVersions.stdout.contains(" -> version \(winner.prefix(12)) (bob, "))
        #expect(twoVersions.stdout.hasSuffix(")\n" + library))
        let againstCurrent = try docver(["diff", "note.txt", String(loser.prefix(8))], in: alice.root)
        #expect(againstCurrent.stdout.hasSuffix(" -> working copy\n" + library), "without unsaved edits, the working copy is the current version")
        let againstBase = try docver(["diff", "note.txt", loser, "--base"], in: alice.root)
        #expect(againstBase.status == 0, "\(againstBase.stderr)")
        #expect(againstBase.stdout.hasPrefix("# note.txt: version \(fixture.base.prefix(12)) (alice, "))
        #expect(againstBase.stdout.contains("\n-base\n"))
        #expect(againstBase.stdout.contains("\n+alice\n"))

        // After the resolution there is no base to compare with.
        #expect(try docver(["resolve", "note.txt", "--strategy", "latest-date"], in: alice.root).status == 0)
        let noBase = try docver(["diff", "note.txt", loser, "--base"], in: alice.root)
        #expect(noBase.status == 1)
        #expect(noBase.stderr.contains("note.txt is not in conflict"))
    }

    @Test func theLogShowsTheResolutionAndRestoreUndoesIt() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"])
        let bob = fixture.devices[1]
        let (loser, winner) = (fixture.losers[0], fixture.winner)

        let resolve = try docver(["resolve", "note.txt", "--strategy", "choose", "--keep", loser], in: bob.root)
        #expect(resolve.status == 0, "\(resolve.stderr)")
        let resolution = try #require(try bob.headID())
        #expect(try bob.read("note.txt") == "alice\n")

        let log = try docver(["log", "note.txt", "-n", "1"], in: bob.root)
        #expect(log.status == 0)
        #expect(log.stdout.hasPrefix(String(resolution.prefix(12))))
        #expect(log.stdout.contains("Resolve conflict in note.txt (choose)"))
        let entries = try #require(try parseJSON(docver(["log", "note.txt", "--json"], in: bob.root).stdoutData) as? [[String: Any]])
        let first = try #require(entries.first)
        #expect(first["id"] as? String == resolution)
        #expect(first["kind"] as? String == "resolution")
        #expect(first["device"] as? String == "bob")
        #expect((first["changes"] as? [[String: Any]])?.map { $0["document"] as? String } == ["note.txt"])
        #expect(entries.contains { $0["kind"] as? String == "integration" && $0["conflicts"] as? Int == 1 })
        #expect(try bob.log(of: fixture.document, limit: 1).first?.kind == .resolution)

        // Restoring the version that was current before the resolution undoes it, as a new save.
        let restore = try docver(["restore", "note.txt", String(winner.prefix(10))], in: bob.root)
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(try bob.read("note.txt") == "bob\n")
        let current = try #require(try bob.currentVersion(of: fixture.document))
        #expect(current.id != resolution)
        #expect(try flatText(of: current, in: bob) == "bob\n")
        #expect(try commitTrailers(of: current.id, in: bob).contains("Docver-Restored: \(winner) note.txt"))
        #expect(try bob.history(of: fixture.document).first?.id == resolution, "the resolution stays in history")
        let afterRestore = try docver(["log", "note.txt", "-n", "2"], in: bob.root).stdout
        #expect(afterRestore.contains("Restore note.txt to version \(winner.prefix(12))"))
        #expect(afterRestore.contains("Resolve conflict in note.txt (choose)"))
        #expect(try bob.conflicts().isEmpty, "the resolved version is not raised again")
        #expect(try bob.status().changed.isEmpty)
        try expectFsckClean(bob.root)
    }

    // MARK: Conflict markers and mark-resolved

    /// `resolve --markers` on the `a / alice|bob / c` fixture, through the CLI, on bob.
    private static func resolveWithMarkers(_ scratch: Scratch) throws -> (fixture: ConflictFixture, result: ProcessResult) {
        let fixture = try ConflictFixture.text(scratch, base: "a\nb\nc\n", edits: ["a\nalice\nc\n", "a\nbob\nc\n"])
        let result = try docver(["resolve", "note.txt", "--strategy", "merge", "--markers"], in: fixture.devices[1].root)
        return (fixture, result)
    }

    static let markersRefused = "docver: error: note.txt still contains conflict markers (lines 2-8)"
    static let markersHint = "hint: edit the document to remove the markers and save it, or pass --force to mark it resolved as it is"

    @Test func resolveWithMarkersSaysTheNextSteps() throws {
        let scratch = try Scratch()
        let (fixture, result) = try Self.resolveWithMarkers(scratch)
        #expect(result.status == 1)
        #expect(result.stdout == "note.txt: saved the merge with conflict markers as current; the conflict stays open\n")
        #expect(
            result.stderrLines == [
                "hint: edit note.txt to remove the conflict markers, then run: "
                    + "docver save note.txt && docver mark-resolved note.txt"
            ])
        #expect(try fixture.devices[1].read("note.txt").contains("<<<<<<< bob (current)"))

        // A name the shell would split is quoted in the commands.
        let spaced = try ConflictFixture.text(
            try Scratch(), document: "my notes.txt", base: "a\nb\nc\n",
            edits: ["a\nalice\nc\n", "a\nbob\nc\n"])
        let quoted = try docver(["resolve", "my notes.txt", "--strategy", "merge", "--markers"], in: spaced.devices[1].root)
        #expect(
            quoted.stderrLines == [
                "hint: edit my notes.txt to remove the conflict markers, then run: "
                    + "docver save 'my notes.txt' && docver mark-resolved 'my notes.txt'"
            ])

        // A dry run saves nothing, so there is nothing to do next; --json prints only JSON.
        let dryRun = try docver(
            ["resolve", "my notes.txt", "--strategy", "merge", "--markers", "--dry-run"],
            in: spaced.devices[0].root)
        #expect(dryRun.status == 1)
        #expect(dryRun.stdout == "my notes.txt: would save the merge with conflict markers as current; the conflict stays open\n")
        #expect(dryRun.stderr.isEmpty, "\(dryRun.stderr)")
        let json = try docver(["resolve", "my notes.txt", "--strategy", "merge", "--markers", "--json"], in: spaced.devices[0].root)
        #expect(json.status == 1)
        #expect(json.stderr.isEmpty, "\(json.stderr)")
    }

    @Test func markResolvedIsRefusedWhileMarkersRemainAndChangesNothing() throws {
        let scratch = try Scratch()
        let (fixture, _) = try Self.resolveWithMarkers(scratch)
        let bob = fixture.devices[1]
        let before = try ResolveSnapshot(bob)

        for arguments in [["mark-resolved", "note.txt"], ["mark-resolved", "note.txt", String(fixture.losers[0].prefix(8))]] {
            let refused = try docver(arguments, in: bob.root)
            #expect(refused.status == 1)
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderrLines == [Self.markersRefused, Self.markersHint])
            try expectContainerUnchanged(bob, since: before, arguments.joined(separator: " "))
        }
        let remove = try docver(["remove-other-versions", "note.txt"], in: bob.root)
        #expect(remove.status == 1)
        #expect(remove.stderrLines == [Self.markersRefused, Self.markersHint])
        try expectContainerUnchanged(bob, since: before, "remove-other-versions")
        #expect(try bob.unresolvedConflictVersions(of: fixture.document).map(\.id) == fixture.losers)
    }

    @Test func markResolvedWithForceAcceptsTheMarkers() throws {
        let scratch = try Scratch()
        let (fixture, _) = try Self.resolveWithMarkers(scratch)
        let bob = fixture.devices[1]
        let marked = try bob.read("note.txt")

        let forced = try docver(["mark-resolved", "note.txt", "--force"], in: bob.root)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stderr.isEmpty)
        #expect(forced.stdout.hasPrefix("note.txt: marked resolved (save "))
        #expect(try bob.conflicts().isEmpty)
        #expect(try bob.read("note.txt") == marked)
        #expect(try commitTrailers(of: #require(try bob.headID()), in: bob).contains("Docver-Resolved: \(fixture.losers[0]) note.txt"))
    }

    @Test func removeOtherVersionsWithForceAcceptsTheMarkers() throws {
        let scratch = try Scratch()
        let (fixture, _) = try Self.resolveWithMarkers(scratch)
        let bob = fixture.devices[1]
        let forced = try docver(["remove-other-versions", "note.txt", "--force"], in: bob.root)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.hasPrefix("note.txt: other versions removed (save "))
        #expect(try bob.conflicts().isEmpty)
        #expect(try listedConflictVersions("note.txt", in: bob).isEmpty)
    }

    @Test func markResolvedIsAcceptedOnceTheMarkersAreRemovedAndSaved() throws {
        let scratch = try Scratch()
        let (fixture, _) = try Self.resolveWithMarkers(scratch)
        let (alice, bob) = (fixture.devices[0], fixture.devices[1])

        #expect(try docver(["mark-resolved", "note.txt"], in: bob.root).status == 1)
        try bob.write("a\nalice and bob\nc\n", to: "note.txt")
        let save = try docver(["save", "note.txt"], in: bob.root)
        #expect(save.status == 0, "\(save.stderr)")
        let accepted = try docver(["mark-resolved", "note.txt"], in: bob.root)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stderr.isEmpty)
        #expect(try bob.conflicts().isEmpty)
        for device in [bob, alice] { try device.sync() }
        try expectConverged([alice, bob])
        #expect(try alice.read("note.txt") == "a\nalice and bob\nc\n")
    }
}
