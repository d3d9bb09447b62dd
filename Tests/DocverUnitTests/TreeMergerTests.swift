import Foundation
import Testing

@testable import DocverKit

/// The N-way document-level tree merge (docs/FORMAT.md, "Integration" and "The
/// current-version rule"), run directly on hand-built commits.
@Suite struct TreeMergerTests {
    struct Merge {
        var tree: ObjectID?
        var records: [ConflictRecord]
    }

    /// Merges the trees of `heads` against `base`'s tree, as an integration of those heads would.
    static func merge(_ scratch: TempRepository, base: ObjectID?, heads: [ObjectID]) throws -> Merge {
        var merger = TreeMerger(graph: VersionGraph(repository: scratch.repository), heads: heads, base: base)
        let tree = try merger.mergeFolder(base: base.map(scratch.treeID), sides: heads.map(scratch.treeID), prefix: "")
        return Merge(tree: tree, records: merger.records.sorted { ($0.path, $0.version) < ($1.path, $1.version) })
    }

    static func files(_ scratch: TempRepository, _ merge: Merge) throws -> [String: String] {
        try merge.tree.map { try scratch.files(ofTree: $0) } ?? [:]
    }

    // MARK: No contest

    /// (docs/MODEL.md: R3.)
    @Test func identicalSidesGiveTheSameTree() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "1", "dir/b.txt": "2"], at: 0)
        let alice = try scratch.commit(on: base, changing: ["a.txt": "same"], device: "alice", at: 10)
        let bob = try scratch.commit(on: base, changing: ["a.txt": "same"], device: "bob", at: 20)
        #expect(alice != bob)
        let merged = try Self.merge(scratch, base: base, heads: [alice, bob])
        #expect(merged.tree == (try scratch.treeID(of: alice)))
        #expect(merged.records.isEmpty, "two devices saving identical contents is one state, not a conflict")
    }

    /// (docs/MODEL.md: R6.)
    @Test func aChangeOnOneSideOnlyIsTaken() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "1", "dir/b.txt": "2"], at: 0)
        let unchanged = try scratch.commit(on: base, changing: [:], device: "alice", at: 10)
        let changed = try scratch.commit(on: base, changing: ["dir/b.txt": "3", "new.txt": "n"], device: "bob", at: 5)
        let merged = try Self.merge(scratch, base: base, heads: [unchanged, changed])
        #expect(merged.tree == (try scratch.treeID(of: changed)))
        #expect(merged.records.isEmpty)
    }

    /// (docs/MODEL.md: R6.)
    @Test func disjointChangesOnSeveralSidesAllLand() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "a", "b.txt": "b", "dir/x.txt": "x", "dir/y.txt": "y", "gone/z.txt": "z"], at: 0)
        let alice = try scratch.commit(on: base, changing: ["a.txt": "a2", "dir/x.txt": "x2", "alice.txt": "new"], device: "alice", at: 10)
        let bob = try scratch.commit(on: base, changing: ["b.txt": nil, "dir/y.txt": "y2", "dir2/deep/w.txt": "w"], device: "bob", at: 20)
        let carol = try scratch.commit(on: base, changing: ["gone/z.txt": nil], device: "carol", at: 30)
        let merged = try Self.merge(scratch, base: base, heads: [alice, bob, carol])
        #expect(
            try Self.files(scratch, merged) == [
                "a.txt": "a2", "alice.txt": "new", "dir/x.txt": "x2", "dir/y.txt": "y2",
                "dir2/deep/w.txt": "w",
            ])
        #expect(merged.records.isEmpty)
    }

    @Test func aFolderEmptiedByDeletionsOnSeveralSidesDisappears() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["dir/x.txt": "x", "dir/y.txt": "y", "keep.txt": "k"], at: 0)
        let alice = try scratch.commit(on: base, changing: ["dir/x.txt": nil], device: "alice", at: 10)
        let bob = try scratch.commit(on: base, changing: ["dir/y.txt": nil], device: "bob", at: 20)
        let merged = try Self.merge(scratch, base: base, heads: [alice, bob])
        #expect(try Self.files(scratch, merged) == ["keep.txt": "k"])
        #expect(try scratch.entry("dir", inTree: #require(merged.tree)) == nil, "git has no empty trees")
    }

    // MARK: The current-version rule

    /// (docs/MODEL.md: R2.)
    @Test func theLatestAuthorDateWinsAndTheLoserIsRecordedAgainstTheMergeBase() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "base"], at: 0)
        // alice is later; bob's greater device id must not matter.
        let alice = try scratch.commit(on: base, changing: ["a.txt": "alice"], device: "alice", at: 200)
        let bob = try scratch.commit(on: base, changing: ["a.txt": "bob"], device: "bob", at: 100)
        for heads in [[alice, bob], [bob, alice]] {
            let merged = try Self.merge(scratch, base: base, heads: heads)
            #expect(try Self.files(scratch, merged) == ["a.txt": "alice"])
            #expect(merged.records == [ConflictRecord(path: "a.txt", version: bob.hex, base: base.hex)])
        }
    }

    /// (docs/MODEL.md: R2.)
    @Test func theCommitterDateDoesNotDecide() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "base"], at: 0)
        let alice = try scratch.commit(on: base, changing: ["a.txt": "alice"], device: "alice", at: 100, committedAt: 900)
        let bob = try scratch.commit(on: base, changing: ["a.txt": "bob"], device: "bob", at: 200)
        let merged = try Self.merge(scratch, base: base, heads: [alice, bob])
        #expect(try Self.files(scratch, merged) == ["a.txt": "bob"])
        #expect(merged.records.map(\.version) == [alice.hex])
    }

    /// (docs/MODEL.md: R2.)
    @Test func onTheSameSecondTheGreaterDeviceIDWins() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "base"], at: 0)
        let alice = try scratch.commit(on: base, changing: ["a.txt": "alice"], device: "alice", at: 100)
        let bob = try scratch.commit(on: base, changing: ["a.txt": "bob"], device: "bob", at: 100)
        let merged = try Self.merge(scratch, base: base, heads: [bob, alice])
        #expect(try Self.files(scratch, merged) == ["a.txt": "bob"])
        #expect(merged.records == [ConflictRecord(path: "a.txt", version: alice.hex, base: base.hex)])
    }

    @Test func deviceIDsCompareByteWise() throws {
        // "Zed" < "alice" in byte order (uppercase sorts first), so alice wins the tie.
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "base"], at: 0)
        let zed = try scratch.commit(on: base, changing: ["a.txt": "Zed"], device: "Zed", at: 100)
        let alice = try scratch.commit(on: base, changing: ["a.txt": "alice"], device: "alice", at: 100)
        let merged = try Self.merge(scratch, base: base, heads: [alice, zed])
        #expect(try Self.files(scratch, merged) == ["a.txt": "alice"])
    }

    /// (docs/MODEL.md: R2.)
    @Test func onTheSameSecondAndDeviceTheGreaterVersionIDWins() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "base"], at: 0)
        let one = try scratch.commit(on: base, changing: ["a.txt": "one"], device: "alice", at: 100)
        let two = try scratch.commit(on: base, changing: ["a.txt": "two"], device: "alice", at: 100)
        let (winner, loser) = one > two ? (one, two) : (two, one)
        let merged = try Self.merge(scratch, base: base, heads: [one, two])
        #expect(try merged.tree.flatMap { try scratch.entry("a.txt", inTree: $0) } == scratch.entry("a.txt", at: winner))
        #expect(merged.records == [ConflictRecord(path: "a.txt", version: loser.hex, base: base.hex)])
    }

    /// (docs/MODEL.md: R2.)
    @Test func versionsAreDatedByTheCommitThatIntroducedThemNotByTheHead() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "base", "b.txt": "b"], at: 0)
        let aliceEdit = try scratch.commit(on: base, changing: ["a.txt": "alice"], device: "alice", at: 100)
        let aliceLater = try scratch.commit(on: aliceEdit, changing: ["b.txt": "b2"], device: "alice", at: 900)
        let bob = try scratch.commit(on: base, changing: ["a.txt": "bob"], device: "bob", at: 500)
        let merged = try Self.merge(scratch, base: base, heads: [aliceLater, bob])
        #expect(try Self.files(scratch, merged) == ["a.txt": "bob", "b.txt": "b2"])
        #expect(merged.records == [ConflictRecord(path: "a.txt", version: aliceEdit.hex, base: base.hex)])
    }

    /// (docs/MODEL.md: R3.)
    @Test func aDocumentAddedOnTwoSidesIsRecordedWithoutABase() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["other.txt": "o"], at: 0)
        let alice = try scratch.commit(on: base, changing: ["new.txt": "alice"], device: "alice", at: 100)
        let bob = try scratch.commit(on: base, changing: ["new.txt": "bob"], device: "bob", at: 200)
        let merged = try Self.merge(scratch, base: base, heads: [alice, bob])
        #expect(merged.records == [ConflictRecord(path: "new.txt", version: alice.hex, base: nil)])
    }

    /// (docs/MODEL.md: R1, R16.)
    @Test func aModificationBeatsALaterDeletion() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "base", "b.txt": "b"], at: 0)
        let alice = try scratch.commit(on: base, changing: ["a.txt": "edited"], device: "alice", at: 10)
        let bob = try scratch.commit(on: base, changing: ["a.txt": nil], device: "bob", at: 999)
        for heads in [[alice, bob], [bob, alice]] {
            let merged = try Self.merge(scratch, base: base, heads: heads)
            #expect(try Self.files(scratch, merged) == ["a.txt": "edited", "b.txt": "b"])
            #expect(merged.records == [ConflictRecord(path: "a.txt", version: bob.hex, base: base.hex)])
        }
    }

    /// (docs/MODEL.md: R1.)
    @Test func amongSeveralModificationsTheDeletionStillLosesAndEveryLoserIsRecorded() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "base"], at: 0)
        let alice = try scratch.commit(on: base, changing: ["a.txt": "alice"], device: "alice", at: 10)
        let bob = try scratch.commit(on: base, changing: ["a.txt": "bob"], device: "bob", at: 20)
        let carol = try scratch.commit(on: base, changing: ["a.txt": nil], device: "carol", at: 30)
        let merged = try Self.merge(scratch, base: base, heads: [alice, bob, carol])
        #expect(try Self.files(scratch, merged) == ["a.txt": "bob"])
        #expect(
            Set(merged.records) == [
                ConflictRecord(path: "a.txt", version: alice.hex, base: base.hex),
                ConflictRecord(path: "a.txt", version: carol.hex, base: base.hex),
            ])
    }

    /// (docs/MODEL.md: R7.)
    @Test func aVersionAnotherSideDescendsFromIsSupersededEvenWhenNewer() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "base", "b.txt": "b", "c.txt": "c"], at: 0)
        // alice's edit (dated late) reached bob, who edited on top of it; alice saved other things.
        let aliceEdit = try scratch.commit(on: base, changing: ["a.txt": "alice"], device: "alice", at: 900)
        let aliceMore = try scratch.commit(on: aliceEdit, changing: ["b.txt": "b2"], device: "alice", at: 901)
        let bobOnTop = try scratch.commit(on: aliceEdit, changing: ["a.txt": "bob on alice"], device: "bob", at: 100)
        let carol = try scratch.commit(on: base, changing: ["c.txt": "c2"], device: "carol", at: 50)
        let mergeBase = try #require(try scratch.repository.mergeBase(of: [aliceMore, bobOnTop, carol]))
        #expect(mergeBase == base)
        let merged = try Self.merge(scratch, base: mergeBase, heads: [aliceMore, bobOnTop, carol])
        #expect(try Self.files(scratch, merged) == ["a.txt": "bob on alice", "b.txt": "b2", "c.txt": "c2"])
        #expect(merged.records.isEmpty)
    }

    // MARK: Documents and folders

    /// (docs/MODEL.md: R20.)
    @Test func aPackageIsOneDocumentButAPlainFolderMergesFileByFile() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["trip.pkg/x": "x", "trip.pkg/y": "y", "plain/x": "x", "plain/y": "y"], at: 0)
        let alice = try scratch.commit(on: base, changing: ["trip.pkg/x": "x-alice", "plain/x": "x-alice"], device: "alice", at: 100)
        let bob = try scratch.commit(on: base, changing: ["trip.pkg/y": "y-bob", "plain/y": "y-bob"], device: "bob", at: 200)
        let merged = try Self.merge(scratch, base: base, heads: [alice, bob])
        #expect(try Self.files(scratch, merged) == ["trip.pkg/x": "x", "trip.pkg/y": "y-bob", "plain/x": "x-alice", "plain/y": "y-bob"])
        #expect(merged.records == [ConflictRecord(path: "trip.pkg", version: alice.hex, base: base.hex)])
    }

    /// (docs/MODEL.md: R20.)
    @Test func aNestedPackageIsDecidedAtItsOwnPath() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["notes/trip.pkg/x": "x", "notes/trip.pkg/y": "y"], at: 0)
        let alice = try scratch.commit(on: base, changing: ["notes/trip.pkg/x": "x2"], device: "alice", at: 300)
        let bob = try scratch.commit(on: base, changing: ["notes/trip.pkg/y": "y2"], device: "bob", at: 200)
        let merged = try Self.merge(scratch, base: base, heads: [alice, bob])
        #expect(try Self.files(scratch, merged) == ["notes/trip.pkg/x": "x2", "notes/trip.pkg/y": "y"])
        #expect(merged.records == [ConflictRecord(path: "notes/trip.pkg", version: bob.hex, base: base.hex)])
    }

    @Test func aFolderUnchangedOnEverySideIsReusedWithoutBeingRead() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "a", "b.txt": "b", "outer/inner/deep.txt": "deep", "outer/o.txt": "o"], at: 0)
        let alice = try scratch.commit(on: base, changing: ["a.txt": "a2"], device: "alice", at: 10)
        let bob = try scratch.commit(on: base, changing: ["b.txt": "b2"], device: "bob", at: 20)
        let outer = try #require(try scratch.entry("outer", at: base))
        let inner = try #require(try scratch.entry("outer/inner", at: base))
        // Merging inside `outer` would have to rewrite it, which needs `inner`: delete it.
        try scratch.deleteObject(inner.id)
        var merger = TreeMerger(graph: VersionGraph(repository: try scratch.reopened()), heads: [alice, bob], base: base)
        let tree = try #require(
            try merger.mergeFolder(
                base: scratch.treeID(of: base),
                sides: [scratch.treeID(of: alice), scratch.treeID(of: bob)], prefix: ""))
        #expect(try scratch.entry("outer", inTree: tree) == outer)
        #expect(try scratch.entry("a.txt", inTree: tree) == scratch.entry("a.txt", at: alice))
        #expect(try scratch.entry("b.txt", inTree: tree) == scratch.entry("b.txt", at: bob))
    }

    /// (docs/MODEL.md: R6.)
    @Test func aFolderChangedOnOneSideOnlyIsTakenWithoutBeingRead() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "a", "outer/inner/deep.txt": "deep", "outer/o.txt": "o"], at: 0)
        let alice = try scratch.commit(on: base, changing: ["a.txt": "a2"], device: "alice", at: 10)
        let bob = try scratch.commit(on: base, changing: ["outer/inner/deep.txt": "deeper"], device: "bob", at: 20)
        let bobOuter = try #require(try scratch.entry("outer", at: bob))
        for id in [try scratch.entry("outer/inner", at: base), try scratch.entry("outer/inner", at: bob)].compactMap({ $0?.id }) {
            try scratch.deleteObject(id)
        }
        var merger = TreeMerger(graph: VersionGraph(repository: try scratch.reopened()), heads: [alice, bob], base: base)
        let tree = try #require(
            try merger.mergeFolder(
                base: scratch.treeID(of: base),
                sides: [scratch.treeID(of: alice), scratch.treeID(of: bob)], prefix: ""))
        #expect(try scratch.entry("outer", inTree: tree) == bobOuter)
    }

    @Test func aRootTheSameOnEverySideOrChangedOnOneSideIsReturnedWithoutBeingRead() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "a"], at: 0)
        let same = try scratch.commit(on: base, changing: [:], device: "alice", at: 10)
        let changed = try scratch.commit(on: base, changing: ["a.txt": "b"], device: "bob", at: 20)
        let (baseTree, changedTree) = (try scratch.treeID(of: base), try scratch.treeID(of: changed))
        try scratch.deleteObject(baseTree)
        try scratch.deleteObject(changedTree)
        var merger = TreeMerger(graph: VersionGraph(repository: try scratch.reopened()), heads: [same, changed], base: base)
        #expect(try merger.mergeFolder(base: baseTree, sides: [baseTree, changedTree], prefix: "") == changedTree)
        #expect(try merger.mergeFolder(base: baseTree, sides: [changedTree, changedTree], prefix: "") == changedTree)
        #expect(try merger.mergeFolder(base: nil, sides: [baseTree, baseTree], prefix: "") == baseTree)
    }

    @Test func deletingObjectsReallyBreaksReadsOfThem() throws {
        // The two tests above rely on this: a merge that did descend would fail.
        let scratch = try TempRepository()
        let base = try scratch.commit(["outer/inner/deep.txt": "deep"], at: 0)
        let inner = try #require(try scratch.entry("outer/inner", at: base))
        try scratch.deleteObject(inner.id)
        let repository = try scratch.reopened()
        #expect(throws: GitError.self) { try repository.tree(inner.id) }
        let outer = try #require(try scratch.entry("outer", at: base))
        #expect(throws: GitError.self) {
            try repository.writeTree(entries: [(name: "inner", id: inner.id, mode: .tree), (name: "x", id: outer.id, mode: .tree)])
        }
    }
}
