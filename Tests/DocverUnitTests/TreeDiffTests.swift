import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// `Repository.changedPaths(from:to:)`: the files that differ between two trees, which the
/// integrator uses to find the documents changed on more than one side.
@Suite struct TreeDiffTests {
    @Test func changedFilesAreListedByPathWhateverTheChange() throws {
        let scratch = try TempRepository()
        let old = try scratch.tree(["same.txt": "s", "mod.txt": "1", "del.txt": "d", "dir/deep/x.txt": "x", "dir/y.txt": "y"])
        let new = try scratch.tree(old, changing: ["mod.txt": "2", "del.txt": nil, "dir/deep/x.txt": "x2", "add/z.txt": "z"])
        #expect(Set(try scratch.repository.changedPaths(from: old, to: new)) == ["mod.txt", "del.txt", "dir/deep/x.txt", "add/z.txt"])
        #expect(Set(try scratch.repository.changedPaths(from: nil, to: old)) == ["same.txt", "mod.txt", "del.txt", "dir/deep/x.txt", "dir/y.txt"])
        #expect(Set(try scratch.repository.changedPaths(from: old, to: nil)).count == 5)
        #expect(try scratch.repository.changedPaths(from: old, to: old).isEmpty)
    }

    @Test func aModeChangeIsAChange() throws {
        let scratch = try TempRepository()
        let blob = try scratch.blob("echo")
        let old = try scratch.tree(entries: ["run.sh": EntryState(blob, .blob)])
        let new = try scratch.tree(entries: ["run.sh": EntryState(blob, .executable)])
        #expect(try scratch.repository.changedPaths(from: old, to: new) == ["run.sh"])
    }

    /// Random pairs of trees against `git diff-tree -r`: names that sort differently as a
    /// file and as a folder ("a" against "a-b", "a.b", "a0"), a name that is a file on one side
    /// and a folder on the other, two spellings of "é", bytes above 0x7F, mode changes. The
    /// walk compares libgit2's entries without naming them; git is the oracle.
    @Test(arguments: 0..<12)
    func randomTreesDifferAsGitSays(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) + 410)
        let scratch = try TempRepository()
        let names = ["a", "a-b", "a.b", "a0", "b", "\u{e9}", "e\u{301}", "A", "z~"]
        let modes: [FileMode] = [.blob, .blob, .executable, .link]
        func randomEntries() throws -> [String: EntryState] {
            var entries: [String: EntryState] = [:]
            for _ in 0..<Int.random(in: 0...30, using: &random) {
                let depth = Int.random(in: 1...3, using: &random)
                let path = (0..<depth).map { _ in names.randomElement(using: &random)! }.joined(separator: "/")
                // (A path whose folder is a file on this side, or a file under one of its files, is skipped.)
                guard !entries.keys.contains(where: { $0.bytesHavePrefix(path + "/") || path.bytesHavePrefix($0 + "/") }) else {
                    continue
                }
                entries[path] = EntryState(
                    try scratch.blob("\(Int.random(in: 0..<3, using: &random))"), modes.randomElement(using: &random)!)
            }
            return entries
        }
        for _ in 0..<10 {
            let oldEntries = try randomEntries()
            // The new side: the old one changed a little, or another tree altogether.
            var newEntries = Bool.random(using: &random) ? oldEntries : try randomEntries()
            for (path, entry) in try randomEntries() where Int.random(in: 0..<3, using: &random) == 0 {
                guard !newEntries.keys.contains(where: { $0.bytesHavePrefix(path + "/") || path.bytesHavePrefix($0 + "/") })
                else { continue }
                newEntries[path] = entry
            }
            for path in newEntries.keys where Int.random(in: 0..<5, using: &random) == 0 { newEntries[path] = nil }
            let old = try scratch.tree(entries: oldEntries), new = try scratch.tree(entries: newEntries)
            // (The walk pairs entries in one pass only for trees in git's order: libgit2's are.)
            #expect(try scratch.repository.entriesAreInGitOrder(old) && scratch.repository.entriesAreInGitOrder(new))
            let paths = try scratch.repository.changedPaths(from: old, to: new)
            let output = try scratch.git(["diff-tree", "-r", "--no-renames", "--name-only", "-z", old.hex, new.hex])
            let expected = Set(output.split(separator: 0).map { ByteString(String(decoding: $0, as: UTF8.self)) })
            #expect(Set(paths.map { ByteString($0) }) == expected, "old \(oldEntries.keys.sorted()), new \(newEntries.keys.sorted())")
            #expect(zip(paths, paths.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        }
    }

    @Test
    func identicalSubtreesAreSkippedWithoutBeingRead() throws {
        let scratch = try TempRepository()
        let old = try scratch.tree(["a.txt": "a", "keep/deep/d.txt": "d"])
        let new = try scratch.tree(old, changing: ["a.txt": "a2"])
        try scratch.deleteObject(#require(try scratch.entry("keep/deep", inTree: old)).id)
        #expect(try scratch.reopened().changedPaths(from: old, to: new) == ["a.txt"])
    }
}

/// The walk of `changedPaths` goes as deep as the trees do (up to
/// ``Repository/maximumTreeDepth`` folders), whatever the stack of the thread it runs on:
/// secondary threads get 512 KB on macOS, and sanitizers make every frame larger. Recursing
/// once per folder overflowed the stack of the AddressSanitizer build's `docver ls` on a
/// 1500-deep tree (NoTrapCLITests.aTreeNestedTooDeeplyIsAnErrorNotACrash).
@Suite struct DeepTreeDiffTests {
    @Test func aTreeAsDeepAsDocverWalksIsDiffedOnASmallStack() throws {
        let scratch = try TempRepository()
        let depth = Repository.maximumTreeDepth - 1
        let path = Array(repeating: "d", count: depth).joined(separator: "/") + "/deep.txt"
        let old = try scratch.tree(["a.txt": "one\n"])
        let new = try scratch.tree(old, changing: [path: "deep\n"])
        let folder = scratch.url.path
        let (paths, failure) = try Self.onSmallStack { try Repository(opening: folder, search: false).changedPaths(from: old, to: new) }
        #expect(failure == nil)
        #expect(paths == [path])
    }

    @Test func aDeeperTreeIsAnErrorNotACrash() throws {
        let scratch = try TempRepository()
        let path = Array(repeating: "d", count: Repository.maximumTreeDepth + 50).joined(separator: "/") + "/deep.txt"
        let new = try scratch.tree(nil, changing: [path: "deep\n"])
        let folder = scratch.url.path
        let (_, failure) = try Self.onSmallStack { try Repository(opening: folder, search: false).changedPaths(from: nil, to: new) }
        #expect("\(failure.map { "\($0)" } ?? "")".contains("nested deeper than"))
    }

    /// Runs `body` on a thread with a 512 KB stack and waits for it.
    static func onSmallStack(_ body: @escaping @Sendable () throws -> [String]) throws -> ([String]?, (any Error)?) {
        let outcome = SmallStackOutcome()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do { outcome.value = try body() } catch { outcome.error = error }
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        return (outcome.value, outcome.error)
    }
}

/// Written by the small-stack thread before it signals, read after the wait.
private final class SmallStackOutcome: @unchecked Sendable {
    var value: [String]?
    var error: (any Error)?
}
