import DocverKit
import Foundation
import Testing

/// Wherever a command leaves open work, one `hint:` line on stderr names the next command;
/// `resolve` without `--strategy` asks on a terminal and is a usage error elsewhere.
@Suite struct NextStepCLITests {
    // Runnable as written: one strategy in the command, the others named after it.
    private let resolveHint = "hint: resolve with: docver resolve note.txt --strategy merge (or --strategy latest-date, or choose)"
    private let arrivedHint =
        "hint: see the versions with 'docver conflicts note.txt', then resolve with: docver resolve note.txt --strategy merge (or --strategy latest-date, or choose)"

    /// alice and bob edit note.txt concurrently; bob has synced; alice's next sync brings the conflict.
    private func concurrentEdits(_ scratch: Scratch) throws -> (alice: Container, bob: Container, remote: URL) {
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("base\n", to: "note.txt")
        try alice.sync()
        try bob.sync()
        try alice.saveText("alice\n", to: "note.txt")
        scratch.clock.tick()
        try bob.saveText("bob\n", to: "note.txt")
        try bob.sync()
        return (alice, bob, remote)
    }

    @Test func syncCloneAndConflictsNameTheNextCommand() throws {
        let scratch = try Scratch()
        let (alice, _, remote) = try concurrentEdits(scratch)

        let sync = try docver("sync", in: alice.root)
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("1 document in conflict; see 'docver conflicts'"))
        #expect(sync.stderrLines == [arrivedHint], "\(sync.stderr)")

        // A sync that brings nothing new leaves no hint.
        let quiet = try docver("sync", in: alice.root)
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")

        // A new device that clones an open conflict is told too.
        let clone = try docver("clone", remote.path, scratch.path("carol").path, "--device", "carol", in: scratch.url)
        #expect(clone.status == 0, "\(clone.stderr)")
        #expect(clone.stderrLines == [arrivedHint], "\(clone.stderr)")

        // status lists the document in conflict and names the same next steps.
        let status = try docver("status", in: alice.root)
        #expect(status.stdout.contains("in conflict:\n  note.txt (1 unresolved conflict version)\n"), "\(status.stdout)")
        #expect(status.stderrLines == [arrivedHint], "\(status.stderr)")

        // conflicts: the listing, then how to resolve; without conflicts, no hint.
        let conflicts = try docver("conflicts", in: alice.root)
        #expect(conflicts.status == 0)
        #expect(conflicts.stdout.hasPrefix("note.txt\n"))
        #expect(conflicts.stderrLines == [resolveHint], "\(conflicts.stderr)")
        let json = try docver("conflicts", "--json", in: alice.root)
        #expect(json.stderr.isEmpty, "--json output carries no hint")
        #expect(try docver("resolve", "note.txt", "--strategy", "latest-date", in: alice.root).status == 0)
        let none = try docver("conflicts", in: alice.root)
        #expect(none.stdout == "no conflicts\n")
        #expect(none.stderr.isEmpty)
        #expect(try docver("status", in: alice.root).stderr.isEmpty)
    }

    @Test func severalDocumentsInConflictNameTheFirstAndTheAllForm() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        for name in ["a b.txt", "z.txt"] { try alice.write("base\n", to: name) }
        _ = try alice.save(nil)
        try alice.sync()
        try bob.sync()
        for name in ["a b.txt", "z.txt"] { try alice.write("alice\n", to: name) }
        _ = try alice.save(nil)
        scratch.clock.tick()
        for name in ["a b.txt", "z.txt"] { try bob.write("bob\n", to: name) }
        _ = try bob.save(nil)
        try bob.sync()
        let hint =
            "hint: resolve each with: docver resolve 'a b.txt' --strategy merge, or all at once: docver resolve --all --strategy merge (or --strategy latest-date, or choose)"
        let sync = try docver("sync", in: alice.root)
        #expect(sync.stderrLines == ["hint: see the versions with 'docver conflicts', then " + hint.dropFirst("hint: ".count)], "\(sync.stderr)")
        let conflicts = try docver("conflicts", in: alice.root)
        #expect(conflicts.stderrLines == [hint], "\(conflicts.stderr)")
        // The hint's own command works as printed (here: all at once).
        #expect(try docver("resolve", "--all", "--strategy", "latest-date", in: alice.root).status == 0)
        #expect(try alice.conflicts().isEmpty)
    }

    @Test func resolveWithoutAStrategyIsAUsageErrorOffATerminalAndListsTheStrategies() throws {
        let scratch = try Scratch()
        let (alice, _, _) = try concurrentEdits(scratch)
        try alice.sync()
        let before = try refSnapshot(alice.root)

        let result = try docver("resolve", "note.txt", in: alice.root)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(!result.stderr.contains("Missing expected argument"), "\(result.stderr)")
        for strategy in ["--strategy latest-date", "--strategy merge", "--strategy choose --keep ID"] {
            #expect(result.stderr.contains(strategy), "\(result.stderr)")
        }
        #expect(try refSnapshot(alice.root) == before)
        #expect(try alice.conflicts().count == 1)
    }

    @Test func resolveWithoutAStrategyOnATerminalAsksWhichVersionToKeep() throws {
        let scratch = try Scratch()
        let (alice, _, _) = try concurrentEdits(scratch)
        try alice.sync()
        // `script` runs the command on a pseudo-terminal and feeds it our input.
        let command = "\(Terminal.quoted(docverExecutable)) -C \(Terminal.quoted(alice.root.path)) resolve note.txt"
        let result = try runProcess("/usr/bin/script", ["-qec", command, "/dev/null"], input: Data("2\n".utf8))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("note.txt is in conflict. Versions:"), "\(result.stdout)")
        #expect(result.stdout.contains("kept version"), "\(result.stdout)")
        #expect(try alice.conflicts().isEmpty)
        #expect(try alice.read("note.txt") == "alice\n", "version 2 (alice's conflict version) was kept")
    }

    @Test func theVersionToKeepIsKeepAndTheOldSpellingStillWorks() throws {
        let help = try docver("resolve", "--help")
        #expect(help.status == 0)
        let versionOptions = help.stdout.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("--version") }
        #expect(versionOptions.count == 1, "\(help.stdout)")
        #expect(help.stdout.contains("--keep <id>"))

        for spelling in ["--keep", "--version"] {
            let scratch = try Scratch()
            let (alice, _, _) = try concurrentEdits(scratch)
            try alice.sync()
            let loser = try #require(try alice.conflicts().first?.conflicts.first?.id)
            let resolved = try docver(["resolve", "note.txt", "--strategy", "choose", spelling, String(loser.prefix(8))], in: alice.root)
            #expect(resolved.status == 0, "\(spelling): \(resolved.stderr)")
            #expect(try alice.read("note.txt") == "alice\n")
            #expect(try alice.conflicts().isEmpty)
        }
        // --keep alone implies choose; both spellings at once, or --keep with another strategy, are usage errors.
        let scratch = try Scratch()
        let (alice, _, _) = try concurrentEdits(scratch)
        try alice.sync()
        let loser = try #require(try alice.conflicts().first?.conflicts.first?.id)
        #expect(try docver(["resolve", "note.txt", "--keep", loser, "--version", loser], in: alice.root).status == 64)
        #expect(try docver(["resolve", "note.txt", "--strategy", "merge", "--keep", loser], in: alice.root).status == 64)
        #expect(try alice.conflicts().count == 1)
        let implied = try docver(["resolve", "note.txt", "--keep", loser], in: alice.root)
        #expect(implied.status == 0, "\(implied.stderr)")
        #expect(try alice.read("note.txt") == "alice\n")
    }

    /// The help lists `--version  Show the version.`, so a bare --version does that, wherever
    /// it stands; only with a value is it the old spelling of --keep (also as --version=ID).
    @Test func resolveVersionWithoutAValueShowsTheProgramsVersion() throws {
        let scratch = try Scratch()
        let (alice, _, _) = try concurrentEdits(scratch)
        try alice.sync()
        let before = try refSnapshot(alice.root)
        for arguments in [["resolve", "--version"], ["resolve", "note.txt", "--version"], ["resolve", "--all", "--version", "--dry-run"]] {
            let result = try docver(arguments, in: alice.root)
            #expect(result.status == 0 && result.stdout == "0.1.0\n" && result.stderr.isEmpty, "\(arguments): \(result.stdout)\(result.stderr)")
        }
        #expect(try refSnapshot(alice.root) == before)
        let loser = try #require(try alice.conflicts().first?.conflicts.first?.id)
        let resolved = try docver(["resolve", "note.txt", "--version=\(loser.prefix(8))"], in: alice.root)
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(try alice.read("note.txt") == "alice\n")
    }

    @Test func aRefusedMergeAndMarkersNameTheNextStep() throws {
        let scratch = try Scratch()
        let (alice, _, _) = try concurrentEdits(scratch)
        try alice.sync()
        let refused = try docver("resolve", "note.txt", "--strategy", "merge", in: alice.root)
        #expect(refused.status == 1)
        #expect(refused.stderrLines.last == "hint: resolve with --strategy choose, or save the merge with --markers", "\(refused.stderr)")
        let markers = try docver("resolve", "note.txt", "--strategy", "merge", "--markers", in: alice.root)
        #expect(markers.status == 1)
        #expect(
            markers.stderrLines == [
                "hint: edit note.txt to remove the conflict markers, then run: docver save note.txt && docver mark-resolved note.txt"
            ],
            "\(markers.stderr)")
    }
}

private enum Terminal {
    /// A word for `sh -c`.
    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
