import DocverKit
import Foundation
import Testing

/// `status` after the container was copied with `cp -a` (every file's inode and ctime new):
/// like `git status`, the first call hashes the files and refreshes the index's stat data
/// when no docver process is writing, so later calls trust the stat data again.
@Suite struct CoreStatusRefreshTests {
    static func copied(_ scratch: Scratch) throws -> (Container, URL) {
        let original = try scratch.device("alice")
        for index in 0..<20 { try original.write("document \(index)\n", to: "folder/doc\(index).txt") }
        _ = try original.save()
        let copy = scratch.path("copy")
        let result = try runProcess("/bin/cp", ["-a", original.root.path, copy.path])
        #expect(result.status == 0)
        return (try Container(at: copy), copy.appendingPathComponent(".git/index"))
    }

    @Test func theFirstStatusAfterACopyRefreshesTheIndexAndTheNextOnesTrustIt() throws {
        let scratch = try Scratch()
        let (copy, index) = try Self.copied(scratch)
        let stale = try Data(contentsOf: index)
        #expect(try copy.status().changed.isEmpty)
        let refreshed = try Data(contentsOf: index)
        #expect(refreshed != stale, "the stat data of the copied files was written to the index")
        #expect(try copy.status().changed.isEmpty)
        #expect(try Data(contentsOf: index) == refreshed, "a fresh index is not rewritten")
        // Still exact: an edit after the refresh is seen.
        try copy.write("edited\n", to: "folder/doc3.txt")
        #expect(try copy.status().changed.map(\.document.path) == ["folder/doc3.txt"])
        try expectFsckClean(copy.root)
        #expect(try copy.git(["status", "--porcelain"]) == " M folder/doc3.txt\n")
    }

    @Test func statusLeavesTheIndexAloneWhileAnotherProcessWrites() throws {
        let scratch = try Scratch()
        let (copy, index) = try Self.copied(scratch)
        let stale = try Data(contentsOf: index)
        // Another docver process holds the writer lock (flock on a separate open file).
        let lockPath = copy.root.appendingPathComponent(".git/docver/lock").path
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        #expect(descriptor >= 0 && flock(descriptor, LOCK_EX) == 0)
        defer { close(descriptor) }
        #expect(try copy.status().changed.isEmpty)
        #expect(try Data(contentsOf: index) == stale, "the index is not written without the lock")
    }
}
