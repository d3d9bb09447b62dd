import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// `Repository.writeTree(entriesOfStoredTrees:)`: the integration's tree writer, which writes
/// a tree's bytes itself instead of going through libgit2's tree builder. The builder and git
/// are the oracles: the same entries give the same tree id, git's own `mktree` agrees, and
/// `git fsck --strict` finds nothing to say.
@Suite struct StoredTreeWriteTests {
    /// Random folders of names that sort differently as a file and as a folder ("a" against
    /// "a-b", "a.b", "a0"), two spellings of "é", bytes above 0x7F, every mode, in a random
    /// order.
    @Test(arguments: 0..<8)
    func randomFoldersAreTheTreesTheTreeBuilderWrites(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) + 900)
        let scratch = try TempRepository()
        let names = ["a", "a-b", "a.b", "a0", "a~", "b", "\u{e9}", "e\u{301}", "A", "z~", "docs", "docs.txt", "docs-1"]
        let folder = try scratch.tree(["inner.txt": "inside\n"])
        for round in 0..<12 {
            var entries: [(name: String, id: ObjectID, mode: FileMode)] = []
            for name in names.shuffled(using: &random) where Bool.random(using: &random) {
                switch Int.random(in: 0..<5, using: &random) {
                case 0: entries.append((name, folder, .tree))
                case 1: entries.append((name, try scratch.blob("\(name) \(round)"), .executable))
                case 2: entries.append((name, try scratch.blob(name), .link))
                default: entries.append((name, try scratch.blob("\(round)"), .blob))
                }
            }
            let written = try scratch.repository.writeTree(entriesOfStoredTrees: entries)
            #expect(written == (try scratch.repository.writeTree(entries: entries)), "\(entries.map(\.name))")
            #expect(try scratch.repository.entriesAreInGitOrder(written))
            let listing = entries.map { entry in
                let kind = entry.mode.isTree ? "tree" : "blob"
                return String(entry.mode.raw.rawValue, radix: 8).leftPadded(to: 6) + " \(kind) \(entry.id.hex)\t\(entry.name)"
            }
            let fromGit = try scratch.git(["mktree", "-z"], input: Data(listing.map { $0 + "\0" }.joined().utf8))
            #expect(String(decoding: fromGit, as: UTF8.self).trimmingCharacters(in: .newlines) == written.hex)
        }
        let fsck = try scratch.git(["fsck", "--strict", "--no-dangling"])
        #expect(String(decoding: fsck, as: UTF8.self).isEmpty)
    }

    @Test func anEmptyFolderIsGitsEmptyTree() throws {
        let scratch = try TempRepository()
        #expect(try scratch.repository.writeTree(entriesOfStoredTrees: []) == ObjectID.emptyTree)
    }

    /// What the tree builder refuses from the entries alone is refused, and nothing is written.
    @Test(arguments: ["", ".", "..", "a/b", "nul\0here"])
    func aNameGitCannotStoreIsRefused(name: String) throws {
        let scratch = try TempRepository()
        let blob = try scratch.blob("x")
        let before = try scratch.git(["count-objects", "-v"])
        #expect(throws: GitError.self) {
            try scratch.repository.writeTree(entriesOfStoredTrees: [("ok.txt", blob, .blob), (name, blob, .blob)])
        }
        #expect(try scratch.git(["count-objects", "-v"]) == before)
    }

    @Test func aNameTwiceIsRefusedAsAFileAndAFolderToo() throws {
        let scratch = try TempRepository()
        let blob = try scratch.blob("x")
        let folder = try scratch.tree(["inner.txt": "inside\n"])
        #expect(throws: GitError.self) {
            try scratch.repository.writeTree(entriesOfStoredTrees: [("a", blob, .blob), ("a", blob, .executable)])
        }
        // "a" and "a/" are not neighbours in git's order: "a-b" sorts between them.
        #expect(throws: GitError.self) {
            try scratch.repository.writeTree(entriesOfStoredTrees: [("a", blob, .blob), ("a-b", blob, .blob), ("a", folder, .tree)])
        }
    }

    @Test func aModeGitDoesNotWriteIsRefused() throws {
        let scratch = try TempRepository()
        let blob = try scratch.blob("x")
        #expect(throws: GitError.self) {
            try scratch.repository.writeTree(entriesOfStoredTrees: [("odd", blob, FileMode(rawMode: 0o100664))])
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
