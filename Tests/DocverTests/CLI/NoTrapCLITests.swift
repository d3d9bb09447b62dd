import DocverKit
import Foundation
import Testing

/// Issue 16, case 7: numbers from outside (commit dates, nesting, command-line values) end in
/// a clamped value or a one-line error, never in a runtime trap.
@Suite struct NoTrapCLITests {
    /// A trap ends the process with a signal: a status that is neither success (0), an error
    /// (1) nor a usage error (64).
    private func expectNoTrap(_ result: ProcessResult, _ command: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            [0, 1, 64].contains(result.status), "\(command) ended with \(result.status): \(result.stderr)",
            sourceLocation: sourceLocation)
    }

    @Test(arguments: ["inf", "nan", "1e300", "-inf", "0"])
    func watchRefusesAnIntervalItCannotWaitFor(interval: String) throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let result = try docver(["watch", "--interval=\(interval)"], in: alice.root)
        #expect(result.status == 64)
        #expect(result.stderrLines.first?.contains("--interval must be between 0.01 and 86400 seconds") == true, "\(result.stderr)")
    }

    /// A plain git commit on the device's branch with a date beyond what a date can hold.
    @Test(arguments: ["9223372036854775807", "67767976233532800", "253402300800"])
    func aSaveDatedOutOfRangeIsListedAsAnInvalidDate(date: String) throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("one\n", to: "a.txt")
        let head = try alice.git(["rev-parse", "HEAD"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let blob = try runProcess("/usr/bin/git", ["hash-object", "-w", "--stdin"], in: alice.root, input: Data("two\n".utf8))
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let tree = try runProcess("/usr/bin/git", ["mktree"], in: alice.root, input: Data("100644 blob \(blob)\ta.txt\n".utf8))
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let text = "tree \(tree)\nparent \(head)\nauthor A <a@example.com> \(date) +0000\ncommitter A <a@example.com> \(date) +0000\n\nEdit a.txt\n"
        let commit = try runProcess(
            "/usr/bin/git", ["hash-object", "-w", "-t", "commit", "--literally", "--stdin"],
            in: alice.root, input: Data(text.utf8)
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try runGit(["update-ref", "refs/heads/docver/alice", commit, head], in: alice.root)
        try runGit(["reset", "-q", "--hard"], in: alice.root)

        for command in [["log"], ["ls"], ["versions", "a.txt"], ["status"], ["conflicts"], ["log", "--json"], ["ls", "--json"]] {
            let result = try docver(command, in: alice.root)
            expectNoTrap(result, command.joined(separator: " "))
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        #expect(try docver("versions", "a.txt", in: alice.root).stdout.contains("invalid date"))
        // An integration commit is written from these dates: bob's save competes with it.
        try bob.saveText("bob\n", to: "a.txt")
        try bob.sync()
        let sync = try docver("sync", in: alice.root)
        expectNoTrap(sync, "sync")
        #expect(sync.status == 0, "\(sync.stderr)")
        let conflicts = try docver("conflicts", in: alice.root)
        expectNoTrap(conflicts, "conflicts")
        try expectFsckClean(alice.root)
    }

    /// A tree nested deeper than docver walks, committed locally with plain git, ends in a
    /// one-line error instead of exhausting the stack.
    @Test func aTreeNestedTooDeeplyIsAnErrorNotACrash() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("one\n", to: "a.txt")
        let path = Array(repeating: "d", count: 1500).joined(separator: "/") + "/deep.txt"
        let stream =
            "commit refs/heads/docver/alice\ncommitter A <a@example.com> 1700000000 +0000\ndata 5\ndeep\n"
            + "from refs/heads/docver/alice^0\nM 100644 inline \(path)\ndata 5\ndeep\n\n"
        let imported = try runProcess("/usr/bin/git", ["fast-import", "--quiet", "--force"], in: alice.root, input: Data(stream.utf8))
        #expect(imported.status == 0, "\(imported.stderr)")
        for command in [["ls"], ["log"], ["versions", "a.txt"]] {
            let result = try docver(command, in: alice.root)
            expectNoTrap(result, command.joined(separator: " "))
            if result.status != 0 {
                #expect(result.stderrLines.count <= 2, "\(result.stderr)")
                #expect(result.stderr.contains("nested deeper than 1000 levels"), "\(result.stderr)")
            }
        }
    }
}
