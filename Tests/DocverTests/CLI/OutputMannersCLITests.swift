import DocverKit
import Foundation
import Testing

/// Colour, dates, the pager, progress, -q and -v: what the output looks like on a terminal and
/// in a pipe (docs/CLI.md, Conventions).
@Suite struct OutputMannersCLITests {
    /// alice and bob, with note.txt in conflict (overlapping edits).
    func conflicted(_ scratch: Scratch) throws -> ConflictFixture {
        try ConflictFixture.make(
            scratch, base: ["note.txt": Data("one\ntwo\n".utf8)],
            edits: [["note.txt": Data("one\nalice\n".utf8)], ["note.txt": Data("one\nbob\n".utf8)]],
            staggered: false)
    }

    // MARK: Colour

    @Test func colourOnlyOnTerminalsUnlessAskedFor() throws {
        let scratch = try Scratch()
        let fixture = try conflicted(scratch)
        let here = fixture.devices[0].root
        for command in [["ls"], ["versions", "note.txt"], ["conflicts"], ["log"]] {
            let piped = try docver(command, in: here)
            #expect(piped.status == 0 && !piped.stdout.isEmpty && !piped.stdout.contains(escape), "\(command): \(piped.stdout)")
            let always = try docver(command + ["--color=always"], in: here)
            #expect(always.stdout.contains(escape), "\(command) --color=always: \(always.stdout)")
            let tty = try docverWithTerminal(command, in: here)
            #expect(tty.status == 0 && tty.terminal.contains(escape), "\(command) on a terminal: \(tty.terminal)")
            // Without the escapes, the terminal shows what the pipe shows (but for the dates).
            // (On the terminal, stderr's hint after `conflicts` shows too.)
            #expect(
                tty.terminal.components(separatedBy: "\n").filter { !$0.contains("hint:") }.count
                    == piped.stdout.components(separatedBy: "\n").count, "\(command): \(tty.terminal)")
            for (name, environment, arguments) in [
                ("NO_COLOR", ["NO_COLOR": "1"], [String]()), ("TERM=dumb", ["TERM": "dumb"], []),
                ("no TERM", ["TERM": nil], []), ("--color=never", [:], ["--color=never"]),
            ] as [(String, [String: String?], [String])] {
                let plain = try docverWithTerminal(command + arguments, in: here, environment: environment)
                #expect(plain.status == 0 && !plain.terminal.contains(escape), "\(command) with \(name): \(plain.terminal)")
            }
            let forced = try docverWithTerminal(command + ["--color=always"], in: here, environment: ["NO_COLOR": "1"])
            #expect(forced.terminal.contains(escape), "--color=always wins over NO_COLOR")
            let emptyNoColor = try docverWithTerminal(command, in: here, environment: ["NO_COLOR": ""])
            #expect(emptyNoColor.terminal.contains(escape), "an empty NO_COLOR does not turn colour off")
        }
        // The roles: '!' of a document in conflict in red, ids in yellow, version roles.
        let listed = try docver(["ls", "--color=always"], in: here).stdout
        #expect(listed.contains("\(escape)31m!\(escape)0m"), "\(listed)")
        let versions = try docver(["versions", "note.txt", "--color=always"], in: here).stdout
        #expect(
            versions.contains("\(escape)32mcurrent") && versions.contains("\(escape)31mconflict") && versions.contains("\(escape)33m"),
            "\(versions)")
        // diff: file headers bold, hunk headers cyan, removed lines red, added lines green.
        let loser = try #require(try fixture.conflict(on: fixture.devices[0]).conflicts.first).id
        let diff = try docver(["diff", "note.txt", loser, "@", "--color=always"], in: here)
        #expect(diff.status == 0)
        for expected in ["\(escape)1m---", "\(escape)1m+++", "\(escape)36m@@", "\(escape)31m-", "\(escape)32m+"] {
            #expect(diff.stdout.contains(expected), "no \(expected.debugDescription) in \(diff.stdout)")
        }
        let plainDiff = try docver(["diff", "note.txt", loser, "@"], in: here)
        #expect(!plainDiff.stdout.contains(escape) && plainDiff.stdout.contains("@@"))
        // A bad --color is a usage error.
        #expect(try docver(["ls", "--color=sometimes"], in: here).status == 64)
    }

    @Test func diagnosticsAreColouredOnlyWhenStderrIsATerminal() throws {
        let scratch = try Scratch()
        let here = try conflicted(scratch).devices[0].root
        let onTerminal = try docverWithTerminal(["versions", "nosuch.txt"], in: here)
        #expect(onTerminal.status == 1)
        #expect(onTerminal.terminal.contains("docver: \(escape)1;31merror:\(escape)0m no such document: nosuch.txt"), "\(onTerminal.terminal)")
        // stdout on the terminal, stderr in a pipe: the pipe gets no escapes.
        let piped = try docverWithTerminal(["versions", "nosuch.txt"], in: here, stderrOnTerminal: false)
        #expect(piped.status == 1)
        #expect(piped.stderr.hasPrefix("docver: error: no such document: nosuch.txt"), "\(piped.stderr)")
        #expect(!piped.stderr.contains(escape))
    }

    // MARK: Dates

    @Test func datesAreRelativeOnTerminalsAndISO8601Elsewhere() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("hello\n", to: "note.txt")
        let here = alice.root
        let log = try #require(try parseJSON(docver("log", "--json", in: here).stdoutData) as? [[String: Any]])
        let dateText = try #require(log.first?["date"] as? String)
        #expect(dateText.hasSuffix("Z"), "--json dates are UTC: \(dateText)")
        let saved = try #require(ISO8601DateFormatter().date(from: dateText))
        func now(_ offset: TimeInterval) -> String { ISO8601DateFormatter().string(from: saved.addingTimeInterval(offset)) }

        // In a pipe: ISO 8601 in local time with the offset.
        let piped = try docver(["log"], in: here).stdout
        #expect(piped.range(of: #"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}"#, options: .regularExpression) != nil, "\(piped)")
        let kolkata = try runProcess(docverExecutable, ["log"], in: here, environment: ["TZ": "Asia/Kolkata"]).stdout
        #expect(kolkata.contains("+05:30"), "\(kolkata)")

        // On a terminal: relative within a week, absolute with the zone beyond it and in the future.
        let relative: [(TimeInterval, String)] = [
            (30, "just now"), (5 * 60 + 10, "5 minutes ago"), (3 * 3_600, "3 hours ago"),
            (3 * 86_400 + 60, "3 days ago"),
        ]
        for (offset, expected) in relative {
            let run = try docverWithTerminal(["log"], in: here, environment: ["DOCVER_NOW": now(offset)])
            #expect(run.terminal.contains(expected), "\(offset) s later: \(run.terminal)")
        }
        let absolute: [TimeInterval] = [-86_400, 30 * 86_400]
        for offset in absolute {
            let environment: [String: String?] = ["DOCVER_NOW": now(offset), "TZ": "UTC"]
            let run = try docverWithTerminal(["log"], in: here, environment: environment)
            let text = run.terminal
            #expect(!text.contains("ago") && text.contains("+00:00"), "\(offset) s later: \(text)")
            let pattern = #"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+00:00"#
            #expect(text.range(of: pattern, options: .regularExpression) != nil)
        }
        // --json stays ISO 8601 UTC on a terminal too.
        let json = try docverWithTerminal(["log", "--json"], in: here, environment: ["DOCVER_NOW": now(60)])
        #expect(json.terminal.contains("\"\(dateText)\"") && !json.terminal.contains("ago"), "\(json.terminal)")
    }

    // MARK: Pager

    @Test func logVersionsAndDiffGoThroughThePagerOnlyOnATerminal() throws {
        let scratch = try Scratch()
        let fixture = try conflicted(scratch)
        let here = fixture.devices[0].root
        let loser = try #require(fixture.conflict(on: fixture.devices[0]).conflicts.first).id
        let pager = ["DOCVER_PAGER": "sed s/^/PAGED:/"]
        for command in [["log"], ["versions", "note.txt"], ["diff", "note.txt", loser, "@"]] {
            let paged = try docverWithTerminal(command, in: here, environment: pager)
            #expect(paged.status == 0)
            let lines = paged.terminal.split(separator: "\n")
            #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("PAGED:") }, "\(command): \(paged.terminal)")
            for (name, environment, arguments) in [
                ("--no-pager", pager, ["--no-pager"]), ("DOCVER_PAGER=cat", ["DOCVER_PAGER": "cat"], []),
                ("DOCVER_PAGER empty", ["DOCVER_PAGER": "", "PAGER": "sed s/^/PAGED:/"], []), ("--json", pager, ["--json"]),
                ("a pager that does not exist", ["DOCVER_PAGER": "no-such-pager-program -x"], []),
            ] as [(String, [String: String?], [String])] {
                let direct = try docverWithTerminal(command + arguments, in: here, environment: environment)
                #expect(
                    direct.status == 0 && !direct.terminal.isEmpty && !direct.terminal.contains("PAGED:"),
                    "\(command) with \(name): \(direct.terminal)")
            }
            // In a pipe, never.
            let piped = try runProcess(docverExecutable, command, in: here, environment: pager)
            #expect(piped.status == 0 && !piped.stdout.contains("PAGED:"))
        }
        // $PAGER when DOCVER_PAGER is not set.
        let fallback = try docverWithTerminal(["log"], in: here, environment: ["DOCVER_PAGER": nil, "PAGER": "sed s/^/PAGER:/"])
        #expect(fallback.terminal.hasPrefix("PAGER:"), "\(fallback.terminal)")
        // Commands that do not page: status.
        #expect(!(try docverWithTerminal(["status"], in: here, environment: pager)).terminal.contains("PAGED:"))
        // The pager hides neither errors nor exit codes.
        let failed = try docverWithTerminal(["versions", "nosuch.txt"], in: here, environment: pager)
        #expect(failed.status == 1)
        #expect(failed.terminal.contains("docver: \(escape)1;31merror:\(escape)0m no such document"), "\(failed.terminal)")
        let failedDiff = try docverWithTerminal(["diff", "ffff"], in: here, environment: pager)
        #expect(failedDiff.status == 1 && failedDiff.terminal.contains("error:"), "\(failedDiff.terminal)")

        // Ctrl-C while the pager runs goes to the pager: docver neither dies nor leaves it behind.
        let interrupting = scratch.path("interrupting-pager")
        try Data("#!/bin/sh\ntrap '' INT\nkill -INT 0\nexec sed s/^/PAGED:/\n".utf8).write(to: interrupting)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: interrupting.path)
        let interrupted = try docverWithTerminal(["log"], in: here, environment: ["DOCVER_PAGER": interrupting.path])
        #expect(interrupted.status == 0, "\(interrupted.status): \(interrupted.terminal)")
        #expect(interrupted.terminal.hasPrefix("PAGED:"), "\(interrupted.terminal)")

        // The pager is in the terminal's foreground process group, where it may read the keyboard.
        let grouping = scratch.path("grouping-pager")
        try Data("#!/bin/sh\nps -o pgid=,tpgid= -p $$ | sed 's/^ */GROUP:/'\ncat >/dev/null\n".utf8).write(to: grouping)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: grouping.path)
        let grouped = try docverWithTerminal(["log"], in: here, environment: ["DOCVER_PAGER": grouping.path])
        let groups = try #require(grouped.terminal.split(separator: "\n").first { $0.hasPrefix("GROUP:") }, "\(grouped.terminal)")
            .dropFirst("GROUP:".count).split(separator: " ")
        #expect(groups.count == 2 && groups[0] == groups[1], "pager's group and the terminal's foreground group: \(groups)")

        // A reader that stops early (the pager quits) ends the command with SIGPIPE, as in git:
        // the diff of two 200 KB versions overflows the pipe.
        let alice = fixture.devices[0]
        let first = try alice.saveText((0..<20_000).map { "line \($0)\n" }.joined(), to: "long.txt")
        try alice.saveText((0..<20_000).map { "changed \($0)\n" }.joined(), to: "long.txt")
        let stopped = try docverWithTerminal(["diff", "long.txt", first, "@"], in: here, environment: ["DOCVER_PAGER": "head -1"])
        #expect(stopped.status == 128 + SIGPIPE || stopped.status == -SIGPIPE, "\(stopped.status)")
        #expect(stopped.terminal.split(separator: "\n").count == 1, "\(stopped.terminal.prefix(300))")
    }

    // MARK: Progress

    @Test func cloneAndSyncShowProgressOnATerminalOnly() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        var random = SplitMix64(seed: 15)
        for index in 0..<20 {
            let bytes = (0..<20_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            try Data(bytes).write(to: alice.root.appendingPathComponent("file\(index).bin"))
        }
        _ = try alice.save(nil)
        try alice.sync()

        let started = Date()
        let clone = try docverWithTerminal(["clone", remote.path, scratch.path("bob").path, "--device", "bob"], in: scratch.url)
        let seconds = Date().timeIntervalSince(started)
        #expect(clone.status == 0, "\(clone.terminal)")
        // At most ten redraws a second, and a first and last one per transfer (fetch and push).
        let redraws = clone.terminal.filter { $0 == "\r" }.count
        #expect(Double(redraws) <= seconds * 10 + 4, "\(redraws) redraws in \(seconds) s")
        let finals = clone.terminal.components(separatedBy: .newlines).filter { $0.contains("receiving from origin") }
        let last = try #require(finals.last?.components(separatedBy: "\r").last(where: { !$0.isEmpty }), "\(clone.terminal)")
        #expect(last.hasPrefix("receiving from origin: 100% ("), "\(last)")
        #expect(last.hasSuffix(", done.") && last.contains(" KB"), "\(last)")
        #expect(clone.terminal.contains("cloned into"))

        // In a pipe, or with -q: no progress, the result only.
        let piped = try docverWithTerminal(
            ["clone", remote.path, scratch.path("carol").path, "--device", "carol"],
            in: scratch.url, stderrOnTerminal: false)
        #expect(piped.status == 0 && piped.terminal.contains("cloned into"))
        #expect(!piped.stderr.contains("receiving") && !piped.terminal.contains("receiving"), "\(piped.stderr)")
        let quiet = try docverWithTerminal(["-q", "clone", remote.path, scratch.path("dave").path, "--device", "dave"], in: scratch.url)
        #expect(quiet.status == 0 && quiet.terminal.contains("cloned into") && !quiet.terminal.contains("receiving"), "\(quiet.terminal)")

        // sync: the fetch, and the push of new saves.
        try Data((0..<50_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }).write(to: alice.root.appendingPathComponent("new.bin"))
        let sync = try docverWithTerminal(["sync"], in: alice.root)
        #expect(sync.status == 0 && sync.terminal.contains("sending to origin: 100%") && sync.terminal.contains("done."), "\(sync.terminal)")
        // The bytes sent are the pack's: at least the 50 KB of random bytes (libgit2's local
        // transport reports no byte count of its own).
        let sent = try #require(
            sync.terminal.components(separatedBy: .newlines).last { $0.contains("sending to origin") }?
                .components(separatedBy: "\r").last(where: { !$0.isEmpty }), "\(sync.terminal)")
        let kilobytes = try #require(sent.firstMatch(of: /objects\), ([0-9.]+) KB(?: \| .*)?, done\.$/), "\(sent)").1
        #expect(try #require(Double(kilobytes)) >= 50, "\(sent)")
        let bobSync = try docverWithTerminal(["sync"], in: scratch.path("bob"))
        #expect(bobSync.terminal.contains("receiving from origin: 100%"), "\(bobSync.terminal)")
        let pipedSync = try docver(["sync"], in: scratch.path("carol"))
        #expect(pipedSync.status == 0 && !pipedSync.stderr.contains("receiving"), "\(pipedSync.stderr)")
    }

    /// Relative dates differ in width ("just now", "2026-01-01 00:00:00 +00:00"): the columns
    /// of `versions` and `conflicts` still line up on a terminal.
    @Test func columnsLineUpWithDatesOfDifferentWidths() throws {
        let scratch = try Scratch()
        let fixture = try conflicted(scratch)
        let alice = fixture.devices[0]
        // A plain git commit dated long ago (a save of alice through the commit hook).
        try alice.write("one\nold\n", to: "note.txt")
        let old = ["GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"]
        let committed = try runProcess("/usr/bin/git", ["commit", "-q", "-am", "an old edit"], in: alice.root, environment: old)
        #expect(committed.status == 0, "\(committed.stderr)")
        for command in [["versions", "note.txt"], ["conflicts"]] {
            let run = try docverWithTerminal(command, in: alice.root, stderrOnTerminal: false, environment: ["DOCVER_PAGER": "cat"])
            #expect(run.status == 0, "\(run.terminal)")
            let plain = run.terminal.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
            let lines = plain.split(separator: "\n").filter { $0.contains("bytes") }
            #expect(lines.count >= 3, "\(run.terminal) / \(run.stdout) / \(run.stderr)")
            #expect(
                plain.contains("2026-01-01") && plain.count > 0 && (plain.contains("ago") || plain.contains("just now")), "mixed widths: \(plain)")
            // The size column (the last) starts at the same place on every line.
            let starts = lines.compactMap { line in
                line.range(of: #"[0-9]+ bytes$"#, options: .regularExpression).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
            }
            #expect(starts.count == lines.count && Set(starts).count == 1, "\(command): columns do not line up:\n\(lines.joined(separator: "\n"))")
        }
    }

    /// log's date and device columns line up on a terminal, as those of versions and
    /// conflicts do, whatever the widths of device names and relative dates.
    @Test func logColumnsLineUpOnATerminal() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let short = try scratch.device("al", name: "Al", remote: remote)
        let long = try scratch.device("alice", name: "Alice's Laptop", remote: remote)
        try short.saveText("one\n", to: "a.txt", message: "first")
        try short.sync()
        try long.sync()
        try long.saveText("two\n", to: "a.txt", message: "second")
        // A plain git commit dated long ago: an absolute date beside relative ones.
        try long.write("three\n", to: "a.txt")
        let old = ["GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"]
        let committed = try runProcess("/usr/bin/git", ["commit", "-q", "-am", "third"], in: long.root, environment: old)
        #expect(committed.status == 0, "\(committed.stderr)")
        let run = try docverWithTerminal(["log"], in: long.root, stderrOnTerminal: false, environment: ["DOCVER_PAGER": "cat"])
        #expect(run.status == 0, "\(run.terminal)\(run.stderr)")
        let lines = run.terminal.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
            .split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.contains { $0.contains("  Al  ") || $0.contains("  Al    ") } && lines.contains { $0.contains("Alice's Laptop") }, "\(lines)")
        // The subject (the last column) starts at the same place on every line.
        let starts = lines.compactMap { line in
            line.range(of: #"(first|second|third)$"#, options: .regularExpression).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
        }
        #expect(starts.count == 3 && Set(starts).count == 1, "log columns do not line up:\n\(lines.joined(separator: "\n"))")
        // In a pipe each line still comes as soon as it is found, one space pair between columns.
        let piped = try docver(["log"], in: long.root)
        #expect(piped.stdout.contains("  Al  first\n"), "\(piped.stdout)")
    }

    // MARK: -q and -v

    @Test func quietSilencesHintsAndVerboseAddsDebugLines() throws {
        let scratch = try Scratch()
        let fixture = try conflicted(scratch)
        let here = fixture.devices[0].root
        // status in a container with conflicts ends with a hint (what next); -q leaves it out.
        let plain = try docver(["status"], in: here)
        #expect(plain.status == 0 && plain.stderrLines.count == 1 && plain.stderr.hasPrefix("hint: "), "\(plain.stderr)")
        let quietStatus = try docver(["-q", "status"], in: here)
        #expect(quietStatus.status == 0 && quietStatus.stdout == plain.stdout && quietStatus.stderr.isEmpty, "\(quietStatus.stderr)")
        let verbose = try docver(["-v", "status"], in: here)
        #expect(verbose.status == 0 && verbose.stdout == plain.stdout)
        #expect(
            verbose.stderrLines.allSatisfy { $0.hasPrefix("docver: debug: ") || $0.hasPrefix("hint: ") }
                && verbose.stderr.contains("opened the container"), "\(verbose.stderr)")
        #expect(verbose.stderr.contains("the command took"))
        let after = try docver(["status", "--verbose", "-v"], in: here)
        #expect(after.status == 0 && after.stderr.contains("docver: debug: "))
        let sync = try docver(["sync", "-v"], in: here)
        #expect(sync.stderr.contains("syncing with remote 'origin'") && sync.stderr.contains("sync took"), "\(sync.stderr)")
        #expect(try docver(["-q", "-v", "status"], in: here).status == 64)
        // -vv: the transfers' progress as trace lines, also in a pipe; -v: only their totals.
        try fixture.devices[0].write("more\n", to: "more.txt")
        let traced = try docver(["sync", "-vv"], in: here)
        #expect(traced.status == 0)
        #expect(
            traced.stderr.contains("docver: trace: sending to origin:") && traced.stderr.contains("docver: debug: sending to origin: 100%"),
            "\(traced.stderr)")
        #expect(traced.stderrLines.allSatisfy { $0.hasPrefix("docver: debug: ") || $0.hasPrefix("docver: trace: ") })

        // A merge with markers ends with a hint; -q leaves it out, never the result or exit code.
        let markers = try docver(["resolve", "note.txt", "--strategy", "merge", "--markers"], in: here)
        let quiet = try docver(["resolve", "note.txt", "--strategy", "merge", "--markers", "-q"], in: fixture.devices[1].root)
        #expect(markers.status == 1 && quiet.status == 1)
        #expect(!quiet.stdout.isEmpty && quiet.stdout.split(separator: "\n").count == markers.stdout.split(separator: "\n").count)
        #expect(markers.stderr.contains("hint:"), "\(markers.stderr)")
        #expect(!quiet.stderr.contains("hint:"), "\(quiet.stderr)")
        // A repair already made (a stale lock removed) is a warning of no consequence: -q leaves it out.
        _ = FileManager.default.createFile(atPath: here.path + "/.git/index.lock", contents: Data())
        try fixture.devices[0].write("quiet\n", to: "quiet.txt")
        let repaired = try docver(["save", "-q"], in: here)
        #expect(repaired.status == 0 && repaired.stdout.contains("saved 1 document"), "\(repaired.stderr)")
        #expect(repaired.stderr.isEmpty, "\(repaired.stderr)")
        #expect(!FileManager.default.fileExists(atPath: here.path + "/.git/index.lock"))
        // Errors stay with -q.
        let failed = try docver(["-q", "versions", "nosuch.txt"], in: here)
        #expect(failed.status == 1 && failed.stderr.hasPrefix("docver: error: no such document"))
    }
}
