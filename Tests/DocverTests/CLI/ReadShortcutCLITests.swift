import DocverKit
import Foundation
import Testing

/// `versions DOC`, `log [DOC]`, `ls`, and `status` and `conflicts` when no agent answers them,
/// run without the argument parser (Shortcut.swift). The
/// shortcut must print exactly what the normal path prints: on a pipe, on a terminal (colour,
/// relative dates, the pager), with NO_COLOR, and for every failure (message, hint, exit code).
/// `--color auto` is the default but no plain form, so it forces the normal path.
@Suite struct ReadShortcutCLITests {
    func expectSame(_ arguments: [String], in directory: URL, _ comment: String = "") throws {
        let shortcut = try docver(arguments, in: directory)
        let normal = try docver(["--color", "auto"] + arguments, in: directory)
        let label = "docver \(arguments.joined(separator: " ")) \(comment)"
        #expect(shortcut.status == normal.status, "\(label): \(shortcut.status) against \(normal.status)")
        #expect(shortcut.stdout == normal.stdout, "\(label)")
        #expect(shortcut.stderr == normal.stderr, "\(label)")
        let now = ["DOCVER_NOW": "2030-01-01T00:00:00Z"]
        for environment: [String: String?] in [
            now.mapValues { $0 }, ["NO_COLOR": "1", "DOCVER_PAGER": "cat"],
            ["DOCVER_PAGER": "sed s/^/paged:/", "DOCVER_NOW": "2030-01-01T00:00:00Z"],
        ] {
            let onTerminal = try docverWithTerminal(arguments, in: directory, environment: environment)
            let normalOnTerminal = try docverWithTerminal(["--color", "auto"] + arguments, in: directory, environment: environment)
            #expect(onTerminal.terminal == normalOnTerminal.terminal, "\(label) on a terminal with \(environment)")
        }
    }

    @Test func theShortcutPrintsWhatTheNormalPathPrints() throws {
        let scratch = try Scratch()
        let alice = try containerWithAConflictAndChanges(scratch)
        let notes = alice.root.appendingPathComponent("notes")
        let forms: [([String], URL)] = [
            (["versions", "a.txt"], alice.root), (["versions", "a.txt", "--json"], alice.root),
            (["versions", "b.md"], notes), (["-C", "..", "versions", "a.txt"], notes),
            (["versions", alice.root.appendingPathComponent("notes/b.md").path], scratch.url),
            (["log"], alice.root), (["log", "--json"], alice.root), (["log", "a.txt"], alice.root),
            (["log", "notes/b.md", "--json"], alice.root), (["log", "-C", alice.root.path, "notes/b.md"], scratch.url),
            (["ls"], alice.root), (["ls", "--json"], alice.root), (["-C", "notes", "ls"], alice.root),
            // No agent runs here: status and conflicts run locally too.
            (["status"], alice.root), (["status", "--json"], notes), (["conflicts"], alice.root),
            (["-C", alice.root.path, "conflicts", "--json"], scratch.url),
        ]
        for (arguments, directory) in forms { try expectSame(arguments, in: directory) }
    }

    @Test func failuresAreTheNormalPathsToo() throws {
        let scratch = try Scratch()
        let alice = try containerWithAConflictAndChanges(scratch)
        try FileManager.default.createDirectory(at: scratch.path("plain"), withIntermediateDirectories: true)
        let forms: [([String], URL)] = [
            // A name typed from the wrong folder: the hint names the document it may mean.
            (["versions", "b.md"], alice.root), (["log", "b.md"], alice.root),
            (["versions", "missing.txt"], alice.root), (["versions", "../outside.txt"], alice.root),
            (["versions", "/etc/passwd"], alice.root), (["versions", "a.txt"], scratch.path("plain")),
            (["log"], scratch.path("plain")), (["ls"], scratch.path("plain")), (["status"], scratch.path("plain")),
            (["conflicts", "--json"], scratch.path("plain")),
            (["-C", scratch.path("nowhere").path, "ls"], scratch.url),
            // Forms the shortcut leaves to the parser.
            (["versions"], alice.root), (["versions", "a.txt", "notes/b.md"], alice.root), (["ls", "a.txt"], alice.root),
        ]
        for (arguments, directory) in forms {
            try expectSame(arguments, in: directory)
            let result = try docver(arguments, in: directory)
            #expect(result.status != 0, "docver \(arguments) succeeded: \(result.stdout)")
            #expect(result.stderr.hasPrefix("docver: error:") || result.stderr.hasPrefix("Error:"), "\(arguments): \(result.stderr)")
        }
        // The failures changed nothing.
        #expect(try runGit(["status", "--porcelain"], in: alice.root) == " M notes/b.md\n?? c.txt\n")
    }
}
