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
