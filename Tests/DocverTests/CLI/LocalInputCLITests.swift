import DocverKit
import Foundation
import Testing

/// Issue 16, cases 11-14: odd things in the working tree end in one clear line on stderr and
/// change nothing, instead of blocking, saving the wrong path or forging output lines.
@Suite struct LocalInputCLITests {
    /// Runs docver under `timeout`, so a hang fails the test instead of blocking the suite.
    private func docverWithin(_ seconds: Int, _ arguments: [String], in directory: URL) throws -> ProcessResult {
        try runProcess("/usr/bin/timeout", ["\(seconds)", docverExecutable] + arguments, in: directory)
    }

    /// Issue 16, case 10: libgit2 inflates a truncated loose object forever; docver checks
    /// the trees and blobs it reads first and ends with one line.
    @Test(arguments: ["HEAD^{tree}", "HEAD:a.txt"])
    func aTruncatedObjectEndsInOneLineWithinSeconds(object: String) throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText(String(repeating: "some text\n", count: 200), to: "a.txt")
        let id = try alice.git(["rev-parse", object]).trimmingCharacters(in: .whitespacesAndNewlines)
        let file = alice.root.path + "/.git/objects/" + id.prefix(2) + "/" + id.dropFirst(2)
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        chmod(file, 0o644)
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: file))
        for arguments in [["ls"], ["log"], ["versions", "a.txt"], ["show", "a.txt"], ["status"]] {
            let start = Date()
            let result = try docverWithin(20, arguments, in: alice.root)
            #expect(result.status == 0 || result.status == 1, "\(arguments) ended with \(result.status)")
            #expect(Date().timeIntervalSince(start) < 5, "\(arguments) took \(Date().timeIntervalSince(start)) s")
            if result.status == 1 {
                #expect(result.stderrLines.count <= 2, "\(arguments): \(result.stderr)")
                #expect(result.stderrLines.first?.hasPrefix("docver: error: ") == true, "\(arguments): \(result.stderr)")
            }
        }
    }

    /// Issue 16, case 10, inside libgit2: a truncated commit in the middle of the history is
    /// read by libgit2's own history walk (log, versions) and merge-base and ancestry checks
    /// (sync), never looked up by docver first; every object libgit2 reads is checked, so each
    /// command ends with the one-line error instead of inflating forever.
    @Test func aTruncatedCommitInsideTheHistoryEndsInOneLineWithinSeconds() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        for round in 1...5 {
            try alice.saveText(String(repeating: "round \(round)\n", count: 200), to: "a.txt")
        }
        let id = try alice.git(["rev-parse", "HEAD~2"]).trimmingCharacters(in: .whitespacesAndNewlines)
        try bob.sync()
        try bob.saveText("bob's\n", to: "b.txt")
        try bob.sync()
        let file = alice.root.path + "/.git/objects/" + id.prefix(2) + "/" + id.dropFirst(2)
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        chmod(file, 0o644)
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: file))
        let corrupt = "docver: error: object \(id) is corrupt"
        for arguments in [["log"], ["versions", "a.txt"], ["status"], ["sync"], ["log"]] {
            let start = Date()
            let result = try docverWithin(20, arguments, in: alice.root)
            let seconds = Date().timeIntervalSince(start)
            #expect(seconds < 5, "\(arguments) took \(seconds) s")
            if arguments == ["log"] || arguments == ["versions", "a.txt"] {
                #expect(result.status == 1, "\(arguments) ended with \(result.status)")
            } else {
                #expect(result.status == 0 || result.status == 1, "\(arguments) ended with \(result.status)")
            }
            if result.status != 0 {
                #expect(result.stderrLines.count <= 2, "\(arguments): \(result.stderr)")
                #expect(result.stderrLines.first?.hasPrefix(corrupt) == true, "\(arguments): \(result.stderr)")
            }
        }
    }

    /// The same damage in a remote on this machine: a sync that would fetch the truncated
    /// commit ends within seconds with one line naming it (libgit2's local transport inflated
    /// it forever), and integrates nothing of that branch.
    @Test func aTruncatedCommitInALocalRemoteEndsTheSyncInOneLineWithinSeconds() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        for round in 1...5 {
            try alice.saveText(String(repeating: "round \(round)\n", count: 200), to: "a.txt")
        }
        try alice.sync()
        // Every object of the remote loose, as small pushes leave them on a git server.
        let packs = remote.appendingPathComponent("objects/pack")
        for name in try FileManager.default.contentsOfDirectory(atPath: packs.path) where name.hasSuffix(".pack") {
            let pack = packs.appendingPathComponent(name)
            let moved = scratch.path(name)
            try FileManager.default.moveItem(at: pack, to: moved)
            try FileManager.default.removeItem(at: pack.deletingPathExtension().appendingPathExtension("idx"))
            let unpack = Process()
            unpack.executableURL = URL(fileURLWithPath: "/usr/bin/git")
            unpack.arguments = ["-C", remote.path, "unpack-objects", "-q"]
            unpack.standardInput = try FileHandle(forReadingFrom: moved)
            try unpack.run()
            unpack.waitUntilExit()
            #expect(unpack.terminationStatus == 0)
        }
        let id = try alice.git(["rev-parse", "HEAD~2"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let file = remote.path + "/objects/" + id.prefix(2) + "/" + id.dropFirst(2)
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        chmod(file, 0o644)
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: file))

        let bob = try scratch.device("bob", remote: remote)
        let start = Date()
        let result = try docverWithin(20, ["sync"], in: bob.root)
        let seconds = Date().timeIntervalSince(start)
        #expect(seconds < 5, "sync took \(seconds) s")
        // The tip arrives, the commit below it cannot: the branch is refused as any branch
        // whose objects cannot be read (a warning naming the object; bob keeps working).
        #expect(result.status == 0 || result.status == 1, "sync ended with \(result.status): \(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(result.stderrLines.first?.contains(id) == true, "\(result.stderr)")
        #expect(result.stderr.contains("nothing from that branch was integrated") || result.stderr.contains("is corrupt"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bob.root.appendingPathComponent("a.txt").path))
        #expect(try docver("status", in: bob.root).status == 0)
    }

    /// Issue 16, case 14: errors that misled.
    @Test func aFileWhereDocverKeepsItsFolderIsNamedPlainly() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("one\n", to: "a.txt")
        let folder = alice.root.path + "/.git/docver"
        try FileManager.default.removeItem(atPath: folder)
        #expect(FileManager.default.createFile(atPath: folder, contents: Data("x".utf8)))
        try alice.write("two\n", to: "a.txt")
        let result = try docver("save", in: alice.root)
        #expect(result.status == 1)
        #expect(result.stderrLines.first?.hasSuffix(".git/docver: a file (not a folder) is in its place") == true, "\(result.stderr)")
    }

    @Test func anEmptyIndexIsRebuiltWithAWarning() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("one\n", to: "a.txt")
        #expect(FileManager.default.createFile(atPath: alice.root.path + "/.git/index", contents: Data()))
        let status = try docver("status", in: alice.root)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stderr.contains("warning: rebuilt an empty .git/index from the last save"))
        #expect(status.stdout.contains("nothing changed since the last save"))
        #expect(try runGit(["status", "--porcelain"], in: alice.root).isEmpty)
    }

    @Test func aPathThroughAFolderLinkIsRefusedLikeGit() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("one\n", to: "real/r.txt")
        let before = try refSnapshot(alice.root)
        try FileManager.default.createSymbolicLink(atPath: alice.root.path + "/alias", withDestinationPath: "real")
        let result = try docver("save", "alias/r.txt", in: alice.root)
        #expect(result.status == 1)
        #expect(
            result.stderrLines.first
                == "docver: error: invalid document name 'alias/r.txt': 'alias' is a symbolic link; save the link itself, or name the file by its real path"
        )
        #expect(try refSnapshot(alice.root) == before)
        #expect(try docver("save", "alias", in: alice.root).status == 0, "the link itself is saved")
    }

    @Test func aFIFOIsRefusedWithoutOpeningIt() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("one\n", to: "a.txt")
        let before = try refSnapshot(alice.root)
        #expect(mkfifo(alice.root.path + "/pipe.txt", 0o644) == 0)
        let start = Date()
        let result = try docverWithin(20, ["save", "pipe.txt"], in: alice.root)
        #expect(result.status == 1, "\(result.status) \(result.stderr)")
        #expect(
            result.stderrLines == [
                "docver: error: invalid document name 'pipe.txt': it is a FIFO, socket or device; only files, folders and links are versioned"
            ])
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(try refSnapshot(alice.root) == before)
        // The writer lock was not kept: another writer goes on.
        try alice.write("two\n", to: "a.txt")
        #expect(try docverWithin(20, ["save"], in: alice.root).status == 0)
    }

    @Test func aFolderHoldingItsOwnRepositoryIsRefusedNotStoredElsewhere() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("one\n", to: "a.txt")
        let before = try refSnapshot(alice.root)
        try alice.write("inner\n", to: "sub/inner.txt")
        try runGit(["init", "-q"], in: alice.root.appendingPathComponent("sub"))
        for arguments in [["save"], ["save", "sub"]] {
            let result = try docver(arguments, in: alice.root)
            #expect(result.status == 1)
            #expect(
                result.stderrLines.first
                    == "docver: error: invalid document name 'sub': it is a folder holding its own git repository (.git); move it out of the container or remove its .git"
            )
            #expect(try refSnapshot(alice.root) == before)
        }
        #expect(try !alice.git(["ls-files"]).contains("sub"))
    }

    @Test func aNameThatIsNotUTF8IsNamedEscapedAndNothingChanges() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("one\n", to: "a.txt")
        let before = try refSnapshot(alice.root)
        let name = Array(alice.root.path.utf8) + Array("/x".utf8) + [0xFF] + Array(".txt".utf8)
        let descriptor = name.withUnsafeBufferPointer { buffer -> Int32 in
            let path = Array(buffer) + [0]
            return path.withUnsafeBufferPointer {
                open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644)
            }
        }
        #expect(descriptor >= 0)
        close(descriptor)
        let result = try docver("save", in: alice.root)
        #expect(result.status == 1)
        #expect(
            result.stderrLines.first == #"docver: error: invalid document name "x\377.txt": the name is not UTF-8; rename it to save it"#,
            "\(result.stderr)")
        #expect(try refSnapshot(alice.root) == before)
    }

    @Test func namesWithControlCharactersArePrintedQuotedLikeGit() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("one\n", to: "a.txt")
        try alice.write("forged\n", to: "b\n  added     c.txt")
        let status = try docver("status", in: alice.root)
        #expect(status.status == 0)
        #expect(status.stdout.contains(#"  added     "b\n  added     c.txt""#), "\(status.stdout)")
        #expect(!status.stdout.split(separator: "\n").contains("  added     c.txt"), "a forged line: \(status.stdout)")
        let save = try docver("save", in: alice.root)
        #expect(save.stderrLines.count == 1, "\(save.stderr)")
    }

    /// Issue 16, case 14: a folder docver cannot open is not a folder whose documents were
    /// deleted. libgit2 lists its files as deleted; status and save refuse with one line
    /// naming the document, and record nothing, instead of saving (and syncing) deletions.
    /// As root, docver is run as `nobody` (root reads any folder).
    @Test func anUnreadableFolderIsNeverSavedAsDeleted() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.write("secret\n", to: "private/a.txt")
        try alice.write("open\n", to: "open/b.txt")
        _ = try alice.saveAll()
        try alice.write("open, edited\n", to: "open/b.txt")
        let head = try alice.headID()
        var prefix: [String] = []
        var executable = docverExecutable
        if getuid() == 0 {
            // A copy of the binary in the scratch folder: the build folder may sit below a
            // folder only root can enter (a clone in a `mktemp -d` folder, mode 0700), and
            // `nobody` could not run it there (env: Permission denied, exit 126).
            executable = scratch.path("docver-for-nobody").path
            try FileManager.default.copyItem(atPath: docverExecutable, toPath: executable)
            _ = try runProcess("/bin/chown", ["-R", "65534:65534", scratch.url.path])
            prefix = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", "/usr/bin/env", "HOME=\(scratch.url.path)"]
        }
        let folder = alice.root.appendingPathComponent("private").path
        chmod(folder, 0)
        defer { chmod(folder, 0o755) }
        for arguments in [["status"], ["save"], ["save", "private/a.txt"], ["save", "private"]] {
            let command = prefix.isEmpty ? executable : prefix[0]
            let result = try runProcess(command, Array(prefix.dropFirst()) + (prefix.isEmpty ? [] : [executable]) + arguments, in: alice.root)
            #expect(result.status == 1, "\(arguments): \(result.stdout) \(result.stderr)")
            #expect(
                result.stderrLines.first
                    == "docver: error: cannot look at private/a.txt (Permission denied): docver cannot tell whether it changed or was deleted, and records neither",
                "\(arguments): \(result.stderr)")
        }
        chmod(folder, 0o755)
        // (Back to root's, or libgit2 refuses a repository owned by someone else.)
        if !prefix.isEmpty { _ = try runProcess("/bin/chown", ["-R", "0:0", scratch.url.path]) }
        #expect(try alice.headID() == head, "nothing was saved")
        #expect(try alice.status().changed.map(\.document.path) == ["open/b.txt"], "private/a.txt is as it was saved")
    }
}
