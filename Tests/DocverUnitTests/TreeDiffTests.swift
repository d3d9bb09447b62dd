@testable import DocverKit
import Foundation
import Testing

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
