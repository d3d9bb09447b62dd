import DocverKit
import Foundation
import Testing

/// docver's containers are plain git repositories, in both directions.
@Suite struct CoreGitInteropTests {
    @Test func gitReadsWhatDocverWrote() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice", name: "Alice's Laptop")
        try alice.saveText("hello\n", to: "note.txt")
        try alice.write("text", to: "trip.imagenotes/text.txt")
        try alice.write("png", to: "trip.imagenotes/images/a.png")
        try alice.write("deep", to: "folder/sub/deep.txt")
        _ = try #require(try alice.save())
        try alice.saveText("hello again\n", to: "note.txt", message: "Second")
        try alice.remove("folder/sub/deep.txt")
        _ = try #require(try alice.save())
        let old = try #require(try alice.history(of: DocumentPath("note.txt")).first)
        try alice.restore(DocumentPath("note.txt"), to: old.id)

        try expectFsckClean(alice.root)
        #expect(try alice.git(["show", "docver/alice:note.txt"]) == "hello\n")
        #expect(try alice.git(["show", "docver/alice:trip.imagenotes/images/a.png"]) == "png")
        #expect(try alice.git(["cat-file", "-t", "docver/alice:trip.imagenotes"]) == "tree\n")
        #expect(
            try alice.git(["ls-tree", "-r", "--name-only", "docver/alice"]) == "note.txt\ntrip.imagenotes/images/a.png\ntrip.imagenotes/text.txt\n")
        let all = try alice.git(["log", "--all", "--format=%D|%an|%s"])
        #expect(all.contains("docver/alice"))
        #expect(all.split(separator: "\n").count == 5)
        #expect(try alice.git(["branch", "--list", "--format=%(refname)"]) == "refs/heads/docver/alice\n")
        // The index matches what was saved: git sees a clean checkout.
        #expect(try alice.git(["status", "--porcelain", "--untracked-files=all"]).isEmpty)
        #expect(try alice.git(["diff", "HEAD", "--stat"]).isEmpty)
        // Every save's id is a commit git can name, and log ids match git's order.
        #expect(try alice.log().map(\.id) == alice.git(["rev-list", "HEAD"]).split(separator: "\n").map(String.init))
    }

    /// Seed 113 of the long profile: a device saved `c.md`, and the file was edited again
    /// within the same second, keeping its size and inode. A later write of the index by
    /// docver (a save of another document, or a status that refreshed another file's stat
    /// data) carried `c.md`'s entry over in a later second, and `git commit -am` found nothing
    /// to commit: git compares modification times to the second and trusts an entry older
    /// than the index file. docver now smudges such entries when it writes the index, as git
    /// does (`Index`).
    @Test(arguments: ["save", "status"])
    func anEditWithinTheSecondOfASaveIsSeenByGitAfterALaterIndexWrite(_ laterWrite: String) throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("other\n", to: "b.txt")
        func times(_ name: String) -> (mtime: Int, ctime: Int, inode: UInt64) {
            var info = stat()
            _ = lstat(alice.root.appendingPathComponent(name).path, &info)
            return (Int(info.st_mtim.tv_sec), Int(info.st_ctim.tv_sec), UInt64(info.st_ino))
        }
        // Save a document and edit it in place, same size, within one second of the clock
        // file times come from; a try that crossed a second is made again under a new name.
        var name = ""
        var second = 0
        for attempt in 1...50 {
            name = "c\(attempt).md"
            _ = try alice.saveText("saved\n", to: name)
            let saved = times(name)
            let handle = try FileHandle(forWritingTo: alice.root.appendingPathComponent(name))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data("later\n".utf8))
            try handle.close()
            let edited = times(name)
            #expect(edited.inode == saved.inode)
            if edited.mtime == saved.mtime, edited.ctime == saved.mtime {
                second = saved.mtime
                break
            }
        }
        #expect(second != 0, "an edit within the second of its save")
        // The index is written again in a later second (a wait for the clock to tick).
        var now = timespec()
        repeat {
            usleep(20_000)
            clock_gettime(CLOCK_REALTIME_COARSE, &now)
        } while Int(now.tv_sec) <= second
        if laterWrite == "save" {
            _ = try alice.saveText("edited\n", to: "b.txt")
        } else {
            // Rewriting b.txt with the same bytes makes the status refresh its stat data.
            try alice.write("other\n", to: "b.txt")
            #expect(try alice.status().changed.map(\.document.path) == [name])
        }
        #expect(try alice.git(["status", "--porcelain"]).contains(" M \(name)"), "git sees the edit")
        _ = try alice.git(["-c", "core.hooksPath=/dev/null", "commit", "-qam", "plain"])
        #expect(try alice.git(["show", "HEAD:\(name)"]) == "later\n", "git commit -am saved it")
    }

    @Test func aPlainGitCommitInTheCheckoutIsASaveOfTheDevice() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice", name: "Alice's Laptop")
        try alice.saveText("one\n", to: "note.txt")
        try alice.write("two\n", to: "note.txt")
        try alice.write("new\n", to: "git-made.txt")
        try alice.git(["add", "-A"])
        try alice.git(["commit", "-q", "-m", "Edited with git"])
        let commit = try alice.git(["rev-parse", "HEAD"]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try alice.git(["rev-parse", "docver/alice"]).trimmingCharacters(in: .newlines) == commit)
        // The hook added the device trailers.
        let trailers = try runProcess(
            "/usr/bin/git", ["interpret-trailers", "--parse"], in: alice.root,
            input: Data(alice.git(["log", "-1", "--format=%B"]).utf8))
        #expect(trailers.stdout == "Docver-Device: alice\nDocver-Device-Name: Alice's Laptop\nDocver-Plain-Commit: 1\n")

        let entry = try #require(try alice.log().first)
        #expect(entry.id == commit)
        #expect(entry.kind == .save)
        #expect(entry.device.id == "alice")
        #expect(entry.device.name == "Alice's Laptop")
        #expect(entry.subject == "Edited with git")
        #expect(Set(entry.changes.map(\.document.path)) == ["note.txt", "git-made.txt"])
        let current = try #require(try alice.currentVersion(of: DocumentPath("note.txt")))
        #expect(current.id == commit)
        #expect(current.device.id == "alice")
        #expect(try alice.contents(of: current) == .flat(Data("two\n".utf8)))
        #expect(try alice.currentVersion(of: DocumentPath("git-made.txt"))?.device.id == "alice")
        #expect(try alice.status().changed.isEmpty)
        // docver keeps saving on top of the git commit.
        let next = try alice.saveText("three\n", to: "note.txt")
        #expect(try alice.git(["rev-parse", "\(next)^"]).trimmingCharacters(in: .newlines) == commit)
        try expectFsckClean(alice.root)
    }

    @Test func aCommitWithoutTrailersIsAttributedFromItsAuthor() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("one\n", to: "note.txt")
        try alice.write("by hand\n", to: "note.txt")
        try alice.git(["add", "note.txt"])
        // No hook: a commit made with another hooks directory carries no trailers.
        try alice.git(["-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "No trailers"])
        #expect(try alice.git(["log", "-1", "--format=%(trailers)"]).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        let current = try #require(try alice.currentVersion(of: DocumentPath("note.txt")))
        #expect(current.device.id == "tester@example.com")
        #expect(current.device.name == "Tester")
        #expect(try alice.log().first?.device.name == "Tester")

        // An author written as ID@docver is that device.
        try alice.write("by bob\n", to: "note.txt")
        try alice.git(["add", "note.txt"])
        try runProcess(
            "/usr/bin/git", ["-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "As bob"], in: alice.root,
            environment: [
                "GIT_AUTHOR_NAME": "Bob's Phone", "GIT_AUTHOR_EMAIL": "bob@docver",
                "GIT_COMMITTER_NAME": "Bob's Phone", "GIT_COMMITTER_EMAIL": "bob@docver",
            ])
        let bob = try #require(try alice.currentVersion(of: DocumentPath("note.txt")))
        #expect(bob.device.id == "bob")
        #expect(bob.device.name == "Bob's Phone")
    }

    @Test func docverAdoptsAnExistingGitRepositoryAndKeepsItsHistory() throws {
        let scratch = try Scratch()
        let repo = scratch.path("repo")
        try runGit(["init", "-q", "-b", "main", repo.path], in: scratch.url)
        try Data("from git\n".utf8).write(to: repo.appendingPathComponent("readme.txt"))
        try runGit(["add", "readme.txt"], in: repo)
        try runGit(["commit", "-q", "-m", "Initial"], in: repo)
        let initial = try runGit(["rev-parse", "HEAD"], in: repo).trimmingCharacters(in: .newlines)

        let alice = try Container.create(at: repo, device: Device(id: "alice"))
        #expect(try alice.git(["symbolic-ref", "HEAD"]) == "refs/heads/docver/alice\n")
        #expect(try alice.git(["rev-parse", "main"]).trimmingCharacters(in: .newlines) == initial)
        #expect(try alice.currentVersion(of: DocumentPath("readme.txt"))?.id == initial)
        #expect(try alice.status().changed.isEmpty)
        let saved = try alice.saveText("from docver\n", to: "readme.txt")
        #expect(try alice.git(["rev-parse", "\(saved)^"]).trimmingCharacters(in: .newlines) == initial)
        #expect(try alice.git(["log", "--all", "--format=%s"]) == "Save readme.txt\nInitial\n")
        try expectFsckClean(repo)
    }

    @Test func anExistingHookIsLeftAlone() throws {
        let scratch = try Scratch()
        let repo = scratch.path("repo")
        try runGit(["init", "-q", repo.path], in: scratch.url)
        let hook = repo.appendingPathComponent(".git/hooks/prepare-commit-msg")
        try Data("#!/bin/sh\nexit 0\n".utf8).write(to: hook)
        _ = try Container.create(at: repo, device: Device(id: "alice"))
        #expect(try String(contentsOf: hook, encoding: .utf8) == "#!/bin/sh\nexit 0\n")
    }
}
