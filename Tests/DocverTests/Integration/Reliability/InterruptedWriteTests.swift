import DocverKit
import Foundation
import Testing

/// What a killed docver leaves behind, built by hand with plain git exactly as a kill at one
/// chosen moment leaves it (the crash harness, CrashRecoveryTests, kills at random moments).
@Suite struct InterruptedWriteTests {
    /// The intent file as docs/FORMAT.md describes it.
    private func writeIntent(
        _ container: Container, operation: String, from: String?, to: String,
        files: [(path: String, old: String?, new: String?)]
    ) throws {
        let encodedFiles = files.map { file -> [String: Any] in
            var object: [String: Any] = ["path": file.path]
            if let old = file.old { object["old"] = ["id": old, "mode": "blob"] }
            if let new = file.new { object["new"] = ["id": new, "mode": "blob"] }
            return object
        }
        var intent: [String: Any] = ["version": 1, "operation": operation, "to": to, "files": encodedFiles]
        if let from { intent["from"] = from }
        let data = try JSONSerialization.data(withJSONObject: intent)
        try data.write(to: container.root.appendingPathComponent(".git/docver/intent"))
    }

    private func rev(_ expression: String, in container: Container) throws -> String {
        try container.git(["rev-parse", expression]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Bob edits `document`; Alice fetches it and is killed while integrating it: the intent is
    /// written and her branch fast-forwarded, the file not yet written.
    private func killedWhileIntegratingBobsEdit(_ scratch: Scratch, document: String = "a.txt") throws -> Container {
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("first\n", to: document)
        try alice.sync()
        try bob.sync()
        try bob.saveText("bob's edit\n", to: document)
        try bob.sync()
        try runGit(["fetch", "-q", "origin"], in: alice.root)
        let from = try rev("refs/heads/docver/alice", in: alice)
        let to = try rev("refs/remotes/origin/docver/bob", in: alice)
        try writeIntent(
            alice, operation: "integrate", from: from, to: to,
            files: [(document, try rev("\(from):\(document)", in: alice), try rev("\(to):\(document)", in: alice))])
        try runGit(["update-ref", "refs/heads/docver/alice", to, from], in: alice.root)
        return alice
    }

    /// A temporary file an earlier build left beside a planned file in a folder (not at the
    /// top) is removed by the recovery too.
    @Test func aKillLeavesNoTemporaryFileBesideANestedDocument() throws {
        let scratch = try Scratch()
        let alice = try killedWhileIntegratingBobsEdit(scratch, document: "notes/deep/a.txt")
        let beside = alice.root.appendingPathComponent("notes/deep/.docver-tmp-99999-1")
        try Data("bob's e".utf8).write(to: beside)
        let status = try docver("status", in: alice.root)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stderr.contains("warning: finished an interrupted integrate"), "\(status.stderr)")
        #expect(try alice.read("notes/deep/a.txt") == "bob's edit\n")
        #expect(!FileManager.default.fileExists(atPath: beside.path), "the temporary file beside the document is removed")
        #expect(try runGit(["status", "--porcelain"], in: alice.root).isEmpty)
    }

    /// Issue 16, case 1: a kill after the branch moved and before the file was written left a
    /// file that recovery took for the user's edit, and the next sync pushed it everywhere.
    @Test func aKillAfterTheBranchMovedIsFinishedNotSaved() throws {
        let scratch = try Scratch()
        // The kill: intent written, branch moved (a fast-forward), a temporary file half written.
        let alice = try killedWhileIntegratingBobsEdit(scratch)
        try Data("bob's e".utf8).write(to: alice.root.appendingPathComponent(".docver-tmp-99999-1"))
        // (Where checkouts make their temporary files now; the one beside is what earlier builds left.)
        let staged = alice.root.appendingPathComponent(".git/docver/staging/.docver-tmp-99999-2")
        try FileManager.default.createDirectory(at: staged.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("bob's ed".utf8).write(to: staged)

        let status = try docver("status", in: alice.root)
        #expect(status.status == 0)
        #expect(status.stderr.contains("warning: finished an interrupted integrate"), "\(status.stderr)")
        #expect(status.stdout.contains("nothing changed since the last save"), "\(status.stdout)")
        #expect(try alice.read("a.txt") == "bob's edit\n")
        #expect(!FileManager.default.fileExists(atPath: alice.root.appendingPathComponent(".docver-tmp-99999-1").path))
        #expect(!FileManager.default.fileExists(atPath: staged.path))
        #expect(!FileManager.default.fileExists(atPath: alice.root.appendingPathComponent(".git/docver/intent").path))
        #expect(try runGit(["status", "--porcelain"], in: alice.root).isEmpty)
        try alice.sync()
        #expect(try alice.git(["show", "refs/heads/docver/alice:a.txt"]) == "bob's edit\n")
        try expectFsckClean(alice.root)
    }

    /// A user's edit made after the kill (the file holds neither the old nor the new state) is
    /// left alone and shows as changed: recovery never overwrites it.
    @Test func anEditMadeAfterTheKillIsKept() throws {
        let scratch = try Scratch()
        let alice = try killedWhileIntegratingBobsEdit(scratch)
        try alice.write("alice typed this after the crash\n", to: "a.txt")

        #expect(try alice.status().changed.map(\.document.path) == ["a.txt"])
        #expect(try alice.read("a.txt") == "alice typed this after the crash\n")
        try expectFsckClean(alice.root)
    }

    /// An intent whose branch never moved is rolled back: nothing was written, nothing changes.
    @Test func anIntentWhoseBranchNeverMovedIsRolledBack() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("first\n", to: "a.txt")
        let head = try rev("refs/heads/docver/alice", in: alice)
        let blob = try rev("\(head):a.txt", in: alice)
        let other = try alice.git(["commit-tree", "-m", "never reached", "-p", head, "\(head)^{tree}"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try writeIntent(
            alice, operation: "write-document", from: head, to: other,
            files: [("a.txt", blob, "0123456789012345678901234567890123456789")])
        let status = try docver("status", in: alice.root)
        #expect(status.status == 0)
        #expect(status.stderr.contains("warning: rolled back an interrupted write-document"), "\(status.stderr)")
        #expect(try alice.read("a.txt") == "first\n")
        #expect(try rev("refs/heads/docver/alice", in: alice) == head)
        #expect(!FileManager.default.fileExists(atPath: alice.root.appendingPathComponent(".git/docver/intent").path))
    }

    /// Issue 16, case 3: a kill between a save's branch move and its index write left `status`
    /// saying "modified" forever while `save` answered "nothing to save".
    @Test func aKillBetweenTheBranchMoveAndTheIndexWriteIsFinished() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("first\n", to: "a.txt")
        try alice.write("second\n", to: "a.txt")
        let from = try rev("refs/heads/docver/alice", in: alice)
        // The save's commit, made without touching the index (as docver does before its index write).
        let index = scratch.path("scratch-index").path
        let environment = ["GIT_INDEX_FILE": index]
        _ = try runProcess("/usr/bin/git", ["read-tree", from], in: alice.root, environment: environment)
        _ = try runProcess("/usr/bin/git", ["add", "a.txt"], in: alice.root, environment: environment)
        let tree = try runProcess("/usr/bin/git", ["write-tree"], in: alice.root, environment: environment).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let to = try alice.git(["commit-tree", "-m", "Save a.txt", "-p", from, tree]).trimmingCharacters(in: .whitespacesAndNewlines)
        try writeIntent(
            alice, operation: "save", from: from, to: to,
            files: [("a.txt", nil, nil), ("a.txt", nil, try rev("\(to):a.txt", in: alice))])
        try runGit(["update-ref", "refs/heads/docver/alice", to, from], in: alice.root)

        #expect(try alice.status().changed.isEmpty)
        #expect(try runGit(["status", "--porcelain"], in: alice.root).isEmpty)
        #expect(try alice.save() == nil)
    }

    /// Issue 16, case 3: a stale `index.lock` made save report success after 2.6 s without
    /// updating the index; a stale branch lock made every save fail after 10 s.
    @Test func staleLockFilesAreRemovedWithAWarning() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("first\n", to: "a.txt")
        #expect(FileManager.default.createFile(atPath: alice.root.path + "/.git/index.lock", contents: Data()))
        #expect(FileManager.default.createFile(atPath: alice.root.path + "/.git/refs/heads/docver/alice.lock", contents: Data()))
        try alice.write("second\n", to: "a.txt")
        let start = Date()
        let save = try docver("save", in: alice.root)
        #expect(save.status == 0, "\(save.stderr)")
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(save.stderr.contains("warning: removed a stale lock file that no process held: .git/index.lock"), "\(save.stderr)")
        #expect(save.stderr.contains("warning: removed a stale lock file that no process held: .git/refs/heads/docver/alice.lock"))
        #expect(try alice.git(["show", "refs/heads/docver/alice:a.txt"]) == "second\n")
        #expect(try runGit(["status", "--porcelain"], in: alice.root).isEmpty)
    }

    /// The crash harness's long profile: a sync killed while its first save held
    /// `index.lock`, before any write intent, left the lock, and `status` (which takes the
    /// writer lock only to finish an intent) left it too, so `git status` and `git add` failed
    /// until the next docver write.
    @Test func statusRemovesAStaleIndexLock() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("first\n", to: "a.txt")
        #expect(FileManager.default.createFile(atPath: alice.root.path + "/.git/index.lock", contents: Data()))
        let status = try docver("status", in: alice.root)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stderr.contains("warning: removed a stale lock file that no process held: .git/index.lock"), "\(status.stderr)")
        #expect(!FileManager.default.fileExists(atPath: alice.root.path + "/.git/index.lock"))
        #expect(try runGit(["status", "--porcelain"], in: alice.root).isEmpty)
    }

    /// The crash harness's long profile: a sync killed after its fetch named bob's branch and
    /// before it moved the objects in from the quarantine left a remote-tracking branch naming
    /// a missing commit; `git fsck --strict` and `git log --all` failed until the next sync.
    @Test func statusRemovesATrackingBranchWhoseCommitNeverArrived() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("first\n", to: "a.txt")
        let reference = alice.root.path + "/.git/refs/remotes/origin/docver/bob"
        try FileManager.default.createDirectory(atPath: (reference as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("e30aeb6484c4bccaa3663e09d53680b3a2c15be9\n".utf8).write(to: URL(fileURLWithPath: reference))
        let status = try docver("status", in: alice.root)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stderr.contains("removed refs/remotes/origin/docver/bob"), "\(status.stderr)")
        #expect(!FileManager.default.fileExists(atPath: reference))
        try expectFsckClean(alice.root)
    }

    /// The agent's SIGKILL profile (release CI run): a fetch killed while it updated the
    /// remote-tracking branches left `refs/remotes/origin/docver/alice.lock`, and every later
    /// sync failed with "failed to lock file". Such locks are stale lock files too.
    @Test func staleRemoteTrackingLocksAreRemovedWithAWarning() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("first\n", to: "a.txt")
        try alice.sync(); try bob.sync()
        try bob.saveText("bob\n", to: "b.txt")
        try bob.sync()
        for name in ["alice", "bob"] {
            #expect(FileManager.default.createFile(atPath: alice.root.path + "/.git/refs/remotes/origin/docver/\(name).lock", contents: Data()))
        }
        let sync = try docver("sync", in: alice.root)
        #expect(sync.status == 0, "\(sync.stderr)")
        for name in ["alice", "bob"] {
            #expect(
                sync.stderr.contains("warning: removed a stale lock file that no process held: .git/refs/remotes/origin/docver/\(name).lock"),
                "\(sync.stderr)")
        }
        #expect(try alice.read("b.txt") == "bob\n")
    }

    /// CI, `aKilledCloneLeavesNothingASecondCloneCannotUse`: a clone killed while its push
    /// updated `refs/heads/docver/carol` in a remote on this machine left that branch's lock
    /// file in the remote, and every later push of the device was refused ("the remote kept
    /// refusing this device's branch"). A lock on the remote that no process holds is stale too.
    @Test func aStaleLockOnALocalRemotesBranchIsRemovedWithAWarning() throws {
        let (scratch, remote, alice, lockPath) = try aliceWithHerBranchLockedOnTheRemote()
        defer { withExtendedLifetime(scratch) {} }
        let sync = try docver("sync", in: alice.root)
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(
            sync.stderr.contains("warning: removed a stale lock file that no process held on 'origin': refs/heads/docver/alice.lock"),
            "\(sync.stderr)")
        #expect(!FileManager.default.fileExists(atPath: lockPath))
        #expect(try runGit(["show", "refs/heads/docver/alice:a.txt"], in: remote) == "second\n")
        try expectFsckClean(remote)
    }

    /// A lock on the remote's branch that a process holds open is left alone: the sync fails,
    /// in one line that says what the remote refused, and this device's saves stay here.
    @Test func aLockOnALocalRemotesBranchHeldOpenFailsTheSyncInOneLine() throws {
        let (scratch, remote, alice, lockPath) = try aliceWithHerBranchLockedOnTheRemote()
        defer { withExtendedLifetime(scratch) {} }
        let holder = try #require(FileHandle(forReadingAtPath: lockPath))
        defer { try? holder.close() }
        let head = try rev("refs/heads/docver/alice", in: alice)
        let sync = try docver("sync", in: alice.root)
        #expect(sync.status != 0)
        #expect(sync.stderr.split(separator: "\n").count == 1, "\(sync.stderr)")
        #expect(sync.stderr.contains("push to 'origin' was rejected: the remote kept refusing this device's branch:"), "\(sync.stderr)")
        #expect(sync.stderr.contains("alice.lock' for writing\n"), "\(sync.stderr)")
        #expect(FileManager.default.fileExists(atPath: lockPath))
        #expect(try rev("refs/heads/docver/alice", in: alice) == head)
        #expect(try runGit(["show", "refs/heads/docver/alice:a.txt"], in: remote) == "first\n")
    }

    /// A lock file some process holds open is not stale: docver leaves it and waits as before.
    @Test func aLockFileHeldOpenIsLeftAlone() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("first\n", to: "a.txt")
        let lockPath = alice.root.path + "/.git/index.lock"
        #expect(FileManager.default.createFile(atPath: lockPath, contents: Data()))
        let holder = try #require(FileHandle(forReadingAtPath: lockPath))
        try alice.write("second\n", to: "a.txt")
        let save = try docver("save", in: alice.root)
        #expect(FileManager.default.fileExists(atPath: lockPath))
        #expect(!save.stderr.contains("stale lock"))
        try holder.close()
        try FileManager.default.removeItem(atPath: lockPath)
    }

    /// Alice, synced with "first" in `a.txt` and "second" saved since, and the lock file of
    /// her branch in the remote (as a push killed mid-update leaves it).
    private func aliceWithHerBranchLockedOnTheRemote() throws -> (Scratch, remote: URL, alice: Container, lockPath: String) {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try alice.saveText("first\n", to: "a.txt")
        try alice.sync()
        let lockPath = remote.path + "/refs/heads/docver/alice.lock"
        #expect(FileManager.default.createFile(atPath: lockPath, contents: Data()))
        try alice.saveText("second\n", to: "a.txt")
        return (scratch, remote, alice, lockPath)
    }
}
