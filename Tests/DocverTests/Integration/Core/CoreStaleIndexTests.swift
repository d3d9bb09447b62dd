import DocverKit
import Foundation
import Testing

/// Issue 25, item 8: `status` is `save`'s dry run, also when `.git/index` is older than the
/// branch (restored from a backup, `git reset --soft`, a crash of another git tool).
@Suite struct CoreStaleIndexTests {
    /// Whatever the staleness, `status` lists a change exactly when `save` would save one.
    @Test(arguments: ["reset --soft and back", "index from an older state"])
    func statusAgreesWithSaveOnAStaleIndex(staleness: String) throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("one\n", to: "a.txt")
        try alice.saveText("b\n", to: "b.txt")
        let index = alice.root.appendingPathComponent(".git/index")
        let older = try Data(contentsOf: index)
        try alice.saveText("two\n", to: "a.txt")
        switch staleness {
        case "reset --soft and back":
            // The branch goes back one save with the index kept, then forward again by
            // another tool, which leaves the index as it was.
            let head = try #require(try alice.headID())
            _ = try alice.git(["reset", "-q", "--soft", "HEAD~1"])
            _ = try alice.git(["read-tree", "HEAD"])
            _ = try alice.git(["update-ref", "refs/heads/docver/alice", head])
        default:
            try older.write(to: index)
        }
        let listed = try alice.status().changed
        #expect(listed.isEmpty, "the working tree holds the last save: \(listed)")
        #expect(try alice.save() == nil)
        #expect(try alice.status().changed.isEmpty)
        let cli = try docver(["status"], in: alice.root)
        #expect(!cli.stdout.contains("modified"), "\(cli.stdout)")
        // A real edit is listed, and saved.
        try alice.write("three\n", to: "a.txt")
        #expect(try alice.status().changed.map(\.document.path) == ["a.txt"])
        #expect(try alice.save() != nil)
        #expect(try alice.status().changed.isEmpty)
    }
}
