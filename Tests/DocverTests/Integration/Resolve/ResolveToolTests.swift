import DocverKit
import Foundation
import Testing

/// `docver resolve DOC --tool [NAME]` runs the user's merge tool as `git mergetool` does:
/// found through git's config (`merge.tool`, `mergetool.NAME.cmd`, `.trustExitCode`,
/// `.path`), given BASE, LOCAL, REMOTE and MERGED; its result is saved as a merge, and a tool
/// that fails changes nothing.
@Suite struct ResolveToolTests {
    static let base = "one\ntwo\nthree\n"
    static let edits = ["one\ntwo (alice)\nthree\n", "one\ntwo (bob)\nthree\n"]

    /// A conflict on note.txt (bob's version current, alice's the conflict version) and a
    /// folder the tools write what they saw into.
    private func conflict(_ scratch: Scratch) throws -> (fixture: ConflictFixture, seen: URL) {
        let fixture = try ConflictFixture.text(scratch, base: Self.base, edits: Self.edits)
        let seen = scratch.path("seen")
        try FileManager.default.createDirectory(at: seen, withIntermediateDirectories: true)
        return (fixture, seen)
    }

    private func config(_ container: Container, _ key: String, _ value: String) throws {
        _ = try runGit(["config", key, value], in: container.root)
    }

    @Test func aToolsResultIsSavedAsAMergeOfEveryVersion() async throws {
        let scratch = try Scratch()
        let (fixture, seen) = try conflict(scratch)
        let bob = fixture.latest
        // The tool keeps what it was given and writes both lines into MERGED.
        try config(
            bob, "mergetool.both.cmd",
            """
            cp "$BASE" '\(seen.path)/base'; cp "$LOCAL" '\(seen.path)/local'; cp "$REMOTE" '\(seen.path)/remote'; \
            cp "$MERGED" '\(seen.path)/merged-before'; printf 'one\\ntwo (alice)\\ntwo (bob)\\nthree\\n' > "$MERGED"
            """)
        let result = try docver(["resolve", "note.txt", "--tool", "both"], in: bob.root)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOf: seen.appendingPathComponent("base"), encoding: .utf8) == Self.base)
        #expect(try String(contentsOf: seen.appendingPathComponent("local"), encoding: .utf8) == Self.edits[1], "LOCAL: the current version")
        #expect(try String(contentsOf: seen.appendingPathComponent("remote"), encoding: .utf8) == Self.edits[0], "REMOTE: the conflict version")
        let before = try String(contentsOf: seen.appendingPathComponent("merged-before"), encoding: .utf8)
        #expect(
            before.contains("<<<<<<<") && before.contains("two (alice)") && before.contains("two (bob)"),
            "MERGED starts as git's merge with markers: \(before)")
        #expect(try bob.read("note.txt") == "one\ntwo (alice)\ntwo (bob)\nthree\n")
        #expect(try bob.conflicts(fixture.document).isEmpty, "the conflict is resolved")
        let message = try runGit(["log", "-1", "--format=%B", "docver/bob"], in: bob.root)
        #expect(message.contains("Docver-Strategy: merge"), "recorded as a merge of every version: \(message)")
        // The merge reaches alice, and her conflict closes too.
        try bob.sync(); try fixture.devices[0].sync()
        try expectConverged(fixture.devices)
        #expect(try fixture.devices[0].read("note.txt") == "one\ntwo (alice)\ntwo (bob)\nthree\n")
    }

    @Test func toolAloneUsesGitsMergeToolAndTheJSONNamesTheStrategy() async throws {
        let scratch = try Scratch()
        let (fixture, _) = try conflict(scratch)
        let bob = fixture.latest
        try config(bob, "merge.tool", "mine")
        try config(bob, "mergetool.mine.cmd", #"cp "$LOCAL" "$MERGED"; echo kept >> "$MERGED""#)
        let result = try docver(["resolve", "note.txt", "--json", "--tool"], in: bob.root)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""strategy":"tool""#) || result.stdout.contains(#""strategy" : "tool""#), "\(result.stdout)")
        #expect(result.stdout.contains("merged"), "\(result.stdout)")
        #expect(try bob.read("note.txt") == Self.edits[1] + "kept\n")
        #expect(try bob.conflicts(fixture.document).isEmpty)
    }

    @Test func aBuiltInNameRunsGitsCommandLineWithTheConfiguredPath() async throws {
        let scratch = try Scratch()
        let (fixture, seen) = try conflict(scratch)
        let bob = fixture.latest
        // vimdiff's command line: vim -f -d -c '…' LOCAL BASE REMOTE MERGED; a stand-in program
        // at mergetool.vimdiff.path records its arguments and writes a result into MERGED.
        let program = scratch.path("fake-vim")
        try Data(
            """
            #!/bin/sh
            printf '%s\\n' "$@" > '\(seen.path)/arguments'
            printf 'merged by the tool\\n' > "$8"
            """.utf8
        ).write(to: program)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
        try config(bob, "mergetool.vimdiff.path", program.path)
        let result = try docver(["resolve", "note.txt", "--tool", "vimdiff"], in: bob.root)
        #expect(result.status == 0, "\(result.stderr)")
        let arguments = try String(contentsOf: seen.appendingPathComponent("arguments"), encoding: .utf8).split(separator: "\n")
        #expect(arguments.prefix(3) == ["-f", "-d", "-c"], "\(arguments)")
        #expect(
            arguments.count == 8 && arguments[4].hasSuffix("note_LOCAL.txt") && arguments[5].hasSuffix("note_BASE.txt")
                && arguments[6].hasSuffix("note_REMOTE.txt") && arguments[7].hasSuffix("/note.txt"), "\(arguments)")
        #expect(try bob.read("note.txt") == "merged by the tool\n")
    }

    /// A tool that fails (trusted exit status), leaves MERGED as it was (untrusted), or leaves
    /// conflict markers: one line naming the tool, exit 1, and nothing in the container changes.
    @Test(arguments: [
        ("exit 3", "true", "exited with status 3"),
        ("true", "false", "left the result unchanged"),
        (#"cp "$MERGED" "$MERGED.copy"; cat "$MERGED.copy" > "$MERGED"; touch -d '2001-01-01' "$MERGED"; exit 0"#, "false", "left conflict markers"),
    ])
    func aFailedToolChangesNothing(command: String, trust: String, says: String) async throws {
        let scratch = try Scratch()
        let (fixture, _) = try conflict(scratch)
        let bob = fixture.latest
        try config(bob, "mergetool.broken.cmd", command)
        try config(bob, "mergetool.broken.trustExitCode", trust)
        let before = try ResolveSnapshot(bob)
        let result = try docver(["resolve", "note.txt", "--tool", "broken"], in: bob.root)
        #expect(result.status == 1)
        #expect(result.stderrLines.first?.hasPrefix("docver: error: cannot merge note.txt: merge tool 'broken' ") == true, "\(result.stderr)")
        #expect(result.stderr.contains(says), "\(result.stderr)")
        #expect(result.stderr.contains("nothing was saved"), "\(result.stderr)")
        #expect(result.stderr.contains("hint: run the tool again with 'docver resolve note.txt --tool'"), "\(result.stderr)")
        try expectContainerUnchanged(bob, since: before, command)
        #expect(try bob.conflicts(fixture.document).first?.conflicts.map(\.id) == fixture.losers)
    }

    @Test func noToolOrAnUnknownOneIsAOneLineErrorAndChangesNothing() async throws {
        let scratch = try Scratch()
        let (fixture, _) = try conflict(scratch)
        let bob = fixture.latest
        try config(bob, "merge.tool", "")  // empty here, whatever the user's own config says
        let before = try ResolveSnapshot(bob)
        let none = try docver(["resolve", "note.txt", "--tool"], in: bob.root)
        #expect(none.status == 1)
        #expect(
            none.stderrLines.first?.hasPrefix("docver: error: no merge tool is configured; set one with 'git config merge.tool NAME'") == true,
            "\(none.stderr)")
        let unknown = try docver(["resolve", "note.txt", "--tool", "nosuchtool"], in: bob.root)
        #expect(unknown.status == 1)
        #expect(
            unknown.stderrLines.first?.hasPrefix("docver: error: unknown merge tool 'nosuchtool': set mergetool.nosuchtool.cmd") == true,
            "\(unknown.stderr)")
        let both = try docver(["resolve", "note.txt", "--tool", "meld", "--strategy", "merge"], in: bob.root)
        #expect(both.status == 64, "\(both.stderr)")
        let dry = try docver(["resolve", "note.txt", "--tool", "meld", "--dry-run"], in: bob.root)
        #expect(dry.status == 64, "\(dry.stderr)")
        try expectContainerUnchanged(bob, since: before, "no tool")
    }

    /// Several conflict versions: the tool runs once per version, oldest first, each time on
    /// the result so far.
    @Test func eachConflictVersionIsMergedInTurn() async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(
            scratch, ids: ["alice", "bob", "carol"], base: "base\n",
            edits: ["alice\n", "bob\n", "carol\n"])
        let carol = fixture.latest
        // Appends REMOTE to LOCAL: the result holds every version, current first.
        try config(carol, "mergetool.append.cmd", #"cat "$LOCAL" "$REMOTE" > "$MERGED""#)
        let result = try docver(["resolve", "note.txt", "--tool", "append"], in: carol.root)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try carol.read("note.txt") == "carol\nalice\nbob\n")
        #expect(try carol.conflicts(fixture.document).isEmpty)
    }
}
