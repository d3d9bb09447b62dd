import DocverKit
import Foundation
import Testing

/// A device with push access (or a damaged server) pushes, with plain git, objects that
/// `git fsck --strict` refuses or that a working tree cannot hold. The device that syncs must
/// refuse that branch with a warning naming it, keep integrating the other devices, keep its
/// own branch free of those objects, and keep working.
@Suite struct HostileRemoteTests {
    /// One entry of a hand-built tree.
    struct RawEntry {
        var mode: String
        var name: [UInt8]
        var id: String
    }

    /// A plain git repository the hostile device builds objects in and pushes from.
    struct Mallory {
        let directory: URL
        let remote: URL

        init(scratch: Scratch, remote: URL) throws {
            directory = scratch.path("mallory")
            self.remote = remote
            try runGit(["init", "-q", directory.path], in: scratch.url)
        }

        func git(_ arguments: [String], input: Data? = nil) throws -> String {
            let result = try runProcess("/usr/bin/git", arguments, in: directory, input: input)
            guard result.status == 0 else { throw GitCommandFailed(arguments: arguments, status: result.status, stderr: result.stderr) }
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func blob(_ text: String) throws -> String {
            try git(["hash-object", "-w", "--stdin"], input: Data(text.utf8))
        }

        /// A tree written byte for byte, whatever its names, modes or order.
        func tree(_ entries: [RawEntry]) throws -> String {
            var data = Data()
            for entry in entries {
                data += Data((entry.mode + " ").utf8) + Data(entry.name) + Data([0])
                data += Data(hexBytes(entry.id))
            }
            return try git(["hash-object", "-w", "-t", "tree", "--literally", "--stdin"], input: data)
        }

        /// A commit written byte for byte, with any date.
        func commit(tree: String, date: String = "1700000000", message: String = "Save x") throws -> String {
            let text = "tree \(tree)\nauthor M <m@example.com> \(date) +0000\ncommitter M <m@example.com> \(date) +0000\n\n\(message)\n"
            return try git(["hash-object", "-w", "-t", "commit", "--literally", "--stdin"], input: Data(text.utf8))
        }

        /// A commit on top of `parent`, dated like ``commit(tree:date:message:)``'s.
        func commit(tree: String, parent: String, message: String = "Save x") throws -> String {
            let text =
                "tree \(tree)\nparent \(parent)\nauthor M <m@example.com> 1700000000 +0000\n"
                + "committer M <m@example.com> 1700000000 +0000\n\n\(message)\n"
            return try git(["hash-object", "-w", "-t", "commit", "--literally", "--stdin"], input: Data(text.utf8))
        }

        /// Pushes `commit` as the branch of device `device` (receive.fsckObjects is off by default).
        func push(_ commit: String, as device: String = "mallory") throws {
            _ = try git(["push", "-q", "--force", remote.path, "\(commit):refs/heads/docver/\(device)"])
        }

        private func hexBytes(_ hex: String) -> [UInt8] {
            var bytes: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                bytes.append(UInt8(hex[index..<next], radix: 16)!)
                index = next
            }
            return bytes
        }
    }

    /// Sets up alice and bob syncing through a bare remote, lets mallory push `hostile` (built
    /// from mallory's repository), then checks alice's sync.
    private func expectRefused(
        _ expectedProblem: String, sourceLocation: SourceLocation = #_sourceLocation,
        hostile: (Mallory) throws -> String
    ) throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("alice\n", to: "a.txt")
        try alice.sync()
        let mallory = try Mallory(scratch: scratch, remote: remote)
        let commit = try hostile(mallory)
        try mallory.push(commit)
        try bob.sync()
        try bob.saveText("bob\n", to: "b.txt")
        try bob.sync()

        let sync = try docver("sync", in: alice.root)
        #expect(sync.status == 0, "sync failed: \(sync.stderr)", sourceLocation: sourceLocation)
        let warnings = sync.stderrLines.filter { $0.contains("refused the saves of 'origin/docver/mallory'") }
        #expect(warnings.count == 1, "no warning naming the branch: \(sync.stderr)", sourceLocation: sourceLocation)
        #expect(warnings.first?.contains(expectedProblem) == true, "\(sync.stderr)", sourceLocation: sourceLocation)
        // The device keeps working: bob's save arrived, mallory's did not.
        #expect(try alice.read("b.txt") == "bob\n", sourceLocation: sourceLocation)
        #expect(try !alice.isReachable(commit), sourceLocation: sourceLocation)
        #expect(try docver("status", in: alice.root).status == 0, sourceLocation: sourceLocation)
        try alice.saveText("alice again\n", to: "a.txt")
        let again = try docver("sync", in: alice.root)
        #expect(again.status == 0, "\(again.stderr)", sourceLocation: sourceLocation)
        // Alice's own branch (and so what she pushes) holds nothing git fsck refuses.
        let check = scratch.path("fsck-check.git")
        let clone = try runProcess(
            "/usr/bin/git",
            [
                "-c", "transfer.fsckObjects=true", "clone", "-q", "--bare", "--no-local",
                alice.root.path, check.path,
            ])
        #expect(clone.status == 0, "alice's branch holds objects fsck refuses: \(clone.stderr)", sourceLocation: sourceLocation)
        let remoteCheck = try runProcess("/usr/bin/git", ["fsck", "--strict", "--no-dangling", "refs/heads/docver/alice"], in: remote)
        #expect(
            !remoteCheck.stdout.contains("error") && !remoteCheck.stderr.contains("refs/heads/docver/alice"),
            sourceLocation: sourceLocation)
    }

    private func fileTree(_ mallory: Mallory, name: [UInt8], mode: String = "100644") throws -> String {
        let blob = try mallory.blob("hostile\n")
        return try mallory.tree([RawEntry(mode: mode, name: name, id: blob)])
    }

    @Test(arguments: ["..", ".", ".git", ".GIT", "git~1", ".git.", ".g\u{200C}it", ".docver"])
    func aForbiddenNameIsRefused(name: String) throws {
        try expectRefused("'") { mallory in
            let inner = try fileTree(mallory, name: Array("x".utf8))
            let blob = try mallory.blob("hostile\n")
            // As a folder (`../x`) for most names, as a file for the rest.
            let tree =
                name == ".docver" || name == "."
                ? try mallory.tree([RawEntry(mode: "100644", name: Array(name.utf8), id: blob)])
                : try mallory.tree([RawEntry(mode: "40000", name: Array(name.utf8), id: inner)])
            return try mallory.commit(tree: tree)
        }
    }

    /// Each arriving save is checked against its parent (only the entries it changed): a
    /// forbidden name added next to valid documents by a save in the middle of the branch,
    /// and removed by the save after it, is found all the same.
    @Test func aForbiddenNameInAnOlderSaveIsRefusedThoughALaterSaveRemovesIt() throws {
        try expectRefused("'dir/.git'") { mallory in
            let one = try mallory.blob("one\n"), two = try mallory.blob("two\n")
            let inner = try fileTree(mallory, name: Array("x".utf8))
            let valid = try mallory.tree([
                RawEntry(mode: "100644", name: Array("a.txt".utf8), id: one),
                RawEntry(mode: "100644", name: Array("b.txt".utf8), id: two),
            ])
            let hostile = try mallory.tree([
                RawEntry(mode: "40000", name: Array(".git".utf8), id: inner),
                RawEntry(mode: "100644", name: Array("a.txt".utf8), id: one),
                RawEntry(mode: "100644", name: Array("b.txt".utf8), id: two),
            ])
            let edited = try mallory.tree([
                RawEntry(mode: "100644", name: Array("a.txt".utf8), id: two),
                RawEntry(mode: "100644", name: Array("b.txt".utf8), id: two),
            ])
            let first = try mallory.commit(tree: mallory.tree([RawEntry(mode: "40000", name: Array("dir".utf8), id: valid)]))
            let second = try mallory.commit(
                tree: mallory.tree([RawEntry(mode: "40000", name: Array("dir".utf8), id: hostile)]),
                parent: first)
            return try mallory.commit(
                tree: mallory.tree([RawEntry(mode: "40000", name: Array("dir".utf8), id: edited)]),
                parent: second)
        }
    }

    @Test func aNameWithASlashIsRefused() throws {
        try expectRefused("'/'") { mallory in try mallory.commit(tree: fileTree(mallory, name: Array("/etc/passwd".utf8))) }
    }

    @Test func aNameWithANewlineIsRefused() throws {
        try expectRefused("control characters") { mallory in try mallory.commit(tree: fileTree(mallory, name: Array("a\nb.txt".utf8))) }
    }

    @Test func aNameThatIsNotUTF8IsRefused() throws {
        try expectRefused("not UTF-8: 'x\\377'") { mallory in try mallory.commit(tree: fileTree(mallory, name: [UInt8(ascii: "x"), 0xFF])) }
    }

    @Test func duplicateEntriesAreRefused() throws {
        try expectRefused("duplicate entries") { mallory in
            let one = try mallory.blob("one\n"), two = try mallory.blob("two\n")
            return try mallory.commit(
                tree: mallory.tree([
                    RawEntry(mode: "100644", name: Array("a.txt".utf8), id: one),
                    RawEntry(mode: "100644", name: Array("a.txt".utf8), id: two),
                ]))
        }
    }

    /// A file and a folder of one name are duplicates too, with entries between them.
    @Test func aFileAndAFolderOfOneNameAreRefused() throws {
        try expectRefused("duplicate entries named 'a'") { mallory in
            let one = try mallory.blob("one\n")
            let inner = try fileTree(mallory, name: Array("x".utf8))
            return try mallory.commit(
                tree: mallory.tree([
                    RawEntry(mode: "100644", name: Array("a".utf8), id: one),
                    RawEntry(mode: "100644", name: Array("a-b".utf8), id: one),
                    RawEntry(mode: "100644", name: Array("a.txt".utf8), id: one),
                    RawEntry(mode: "40000", name: Array("a".utf8), id: inner),
                ]))
        }
    }

    @Test(arguments: ["100664", "160000", "100600"])
    func anUnsupportedModeIsRefused(mode: String) throws {
        try expectRefused("mode") { mallory in try mallory.commit(tree: fileTree(mallory, name: Array("a.txt".utf8), mode: mode)) }
    }

    @Test(arguments: ["/etc/passwd", "../outside", "sub/../../outside", ".git/config", "x/../.git"])
    func aLinkPointingOutsideIsRefused(target: String) throws {
        try expectRefused("the link 'link'") { mallory in
            let blob = try mallory.blob(target)
            return try mallory.commit(tree: mallory.tree([RawEntry(mode: "120000", name: Array("link".utf8), id: blob)]))
        }
    }

    // A date beyond 64 bits ("18446744073709551617") is not here: libgit2's local transport
    // cannot parse such a commit on the remote and the whole fetch fails with one error line
    // (docs/SECURITY.md, "Known limits").
    @Test(arguments: ["9223372036854775807", "67767976233532800", "-1", "12x"])
    func aCommitDateOutOfRangeIsRefused(date: String) throws {
        try expectRefused("date") { mallory in try mallory.commit(tree: fileTree(mallory, name: Array("a.txt".utf8)), date: date) }
    }

    @Test func foldersNestedTooDeeplyAreRefused() throws {
        try expectRefused("nested deeper than") { mallory in
            // One fast-import run builds every level.
            let path = Array(repeating: "d", count: ArrivalValidator_maximumDepth).joined(separator: "/") + "/deep.txt"
            let stream =
                "commit refs/heads/deep\ncommitter M <m@example.com> 1700000000 +0000\ndata 5\ndeep\n\n"
                + "M 100644 inline \(path)\ndata 8\nhostile\n\n"
            _ = try mallory.git(["fast-import", "--quiet"], input: Data(stream.utf8))
            return try mallory.git(["rev-parse", "refs/heads/deep"])
        }
    }

    /// A valid link (inside the container) is accepted and checked out as a link.
    @Test func aLinkInsideTheContainerIsAccepted() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try alice.saveText("alice\n", to: "a.txt")
        try alice.sync()
        let mallory = try Mallory(scratch: scratch, remote: remote)
        let target = try mallory.blob("../a.txt")
        let file = try mallory.blob("alice\n")
        let folder = try mallory.tree([RawEntry(mode: "120000", name: Array("link".utf8), id: target)])
        let tree = try mallory.tree([
            RawEntry(mode: "100644", name: Array("a.txt".utf8), id: file),
            RawEntry(mode: "40000", name: Array("sub".utf8), id: folder),
        ])
        try mallory.push(mallory.commit(tree: tree, date: String(Int(Date().timeIntervalSince1970))))
        let sync = try docver("sync", in: alice.root)
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(!sync.stderr.contains("refused"), "\(sync.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: alice.root.path + "/sub/link") == "../a.txt")
        try expectFsckClean(alice.root)
    }
}

/// The validator's depth limit, as the tests see it (ArrivalValidator is internal).
private let ArrivalValidator_maximumDepth = 1000
