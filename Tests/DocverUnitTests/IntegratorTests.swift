import Foundation
import Testing

@testable import DocverKit

/// Integration commits (docs/FORMAT.md, "Integration"): which heads take part, and that the
/// commit is a pure function of the heads, so every device writes the same one.
@Suite struct IntegratorTests {
    /// Three devices forked from one base: disjoint edits, one contested document, one nested
    /// change. Dates are fixed, so two repositories built this way hold the same objects.
    struct Forked {
        var base: ObjectID
        var alice: ObjectID
        var bob: ObjectID
        var carol: ObjectID
        var heads: [ObjectID] { [alice, bob, carol] }

        init(_ scratch: TempRepository) throws {
            base = try scratch.commit(["shared.txt": "base", "a.txt": "a", "dir/x.txt": "x", "keep/k.txt": "k"], at: 0)
            alice = try scratch.commit(on: base, changing: ["shared.txt": "alice", "a.txt": "a2"], device: "alice", at: 300)
            bob = try scratch.commit(on: base, changing: ["shared.txt": "bob", "dir/x.txt": "x2"], device: "bob", at: 200, committedAt: 700)
            carol = try scratch.commit(on: base, changing: ["shared.txt": "carol", "new.txt": "n"], device: "carol", at: 100)
        }
    }

    static func permutations<T>(_ items: [T]) -> [[T]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }

    // MARK: Which heads take part

    /// (docs/MODEL.md: R30.)
    @Test func aHeadThatContainsTheOthersIsAFastForward() throws {
        let scratch = try TempRepository()
        let first = try scratch.commit(["a.txt": "1"], at: 0)
        let second = try scratch.commit(on: first, changing: ["a.txt": "2"], at: 10)
        let third = try scratch.commit(on: second, changing: ["b.txt": "3"], device: "bob", at: 20)
        let integrator = Integrator(repository: scratch.repository)
        #expect(try integrator.integrate([first, second], into: third).head == third)
        #expect(try integrator.integrate([third, first, third], into: second).head == third)
        #expect(try integrator.integrate([third], into: nil).head == third)
        let result = try integrator.integrate([first], into: third)
        #expect(result.head == third && result.conflicts.isEmpty)
    }

    @Test func nothingToIntegrateKeepsTheHead() throws {
        let scratch = try TempRepository()
        let first = try scratch.commit(["a.txt": "1"], at: 0)
        let integrator = Integrator(repository: scratch.repository)
        #expect(try integrator.integrate([], into: first).head == first)
        #expect(try integrator.integrate([], into: nil).head == nil)
        #expect(try integrator.integrate([first, first], into: first).head == first)
    }

    @Test func headsContainedInAnotherAreDroppedFromTheParents() throws {
        let scratch = try TempRepository()
        let forked = try Forked(scratch)
        let aliceAgain = try scratch.commit(on: forked.alice, changing: ["a.txt": "a3"], device: "alice", at: 400)
        let result = try Integrator(repository: scratch.repository).integrate([forked.alice, forked.bob], into: aliceAgain)
        let commit = try scratch.repository.commit(#require(result.head))
        #expect(commit.parentIDs == [aliceAgain, forked.bob].sorted())
    }

    // MARK: The integration commit

    @Test func integrationCommitHasTheDocumentedShape() throws {
        let scratch = try TempRepository()
        let forked = try Forked(scratch)
        let result = try Integrator(repository: scratch.repository).integrate([forked.bob, forked.carol], into: forked.alice)
        let commit = try scratch.repository.commit(#require(result.head))
        #expect(commit.parentIDs == forked.heads.sorted(), "parents sorted by id")
        for identity in [commit.author, commit.committer] {
            #expect(identity.name == "docver" && identity.email == "docver@docver" && identity.offsetMinutes == 0)
            // Unchanged across docver versions (docs/FORMAT.md, "Dates"), so that devices
            // running different builds write the same integration.
            #expect(identity.time == testDate(700), "the newest committer date among the parents (bob's)")
        }
        // alice has the latest author date: bob and carol lose, against the merge base.
        #expect(
            try scratch.files(at: commit.id) == [
                "shared.txt": "alice", "a.txt": "a2", "dir/x.txt": "x2",
                "keep/k.txt": "k", "new.txt": "n",
            ])
        let losers = [forked.bob.hex, forked.carol.hex].sorted()
        #expect(result.conflicts == losers.map { ConflictRecord(path: "shared.txt", version: $0, base: forked.base.hex) })
        let lines = losers.map { "conflict: shared.txt (version \($0.prefix(12)) kept as a conflict version)" }
        #expect(
            commit.message == """
                Integrate saves from 3 heads

                \(lines.joined(separator: "\n"))

                Docver-Integration: 1
                \(losers.map { "Docver-Conflict: \($0) \(forked.base.hex) shared.txt" }.joined(separator: "\n"))

                """)
        #expect(commit.conflictRecords == result.conflicts)
        #expect(commit.device == CommitIdentity.integrationDevice)
    }

    @Test func recordsAreSortedByPathThenVersion() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["b b.txt": "0", "a.txt": "0", "c.txt": "0"], at: 0)
        let alice = try scratch.commit(on: base, changing: ["b b.txt": "1", "a.txt": "1", "c.txt": "1"], device: "alice", at: 100)
        let bob = try scratch.commit(on: base, changing: ["b b.txt": "2", "a.txt": "2", "c.txt": "2"], device: "bob", at: 200)
        let carol = try scratch.commit(on: base, changing: ["b b.txt": "3", "a.txt": "3"], device: "carol", at: 50)
        let result = try Integrator(repository: scratch.repository).integrate([alice, bob], into: carol)
        let expected = [("a.txt", alice), ("a.txt", carol), ("b b.txt", alice), ("b b.txt", carol), ("c.txt", alice)]
            .map { ConflictRecord(path: $0.0, version: $0.1.hex, base: base.hex) }
            .sorted { ($0.path, $0.version) < ($1.path, $1.version) }
        #expect(result.conflicts == expected)
        let commit = try scratch.repository.commit(#require(result.head))
        #expect(commit.trailers.filter { $0.key == Trailer.conflict }.map(\.value) == expected.map(\.trailer.value))
        #expect(commit.message.contains("Docver-Conflict: \(alice.hex) \(base.hex) b%20b.txt"), "paths are percent-encoded")
    }

    /// (docs/MODEL.md: R30.)
    @Test func integrationIsTheSameWhateverTheOrderOfTheHeads() throws {
        let scratch = try TempRepository()
        let forked = try Forked(scratch)
        let integrator = Integrator(repository: scratch.repository)
        var results: Set<ObjectID> = []
        for order in Self.permutations(forked.heads) {
            results.insert(try #require(try integrator.integrate(Array(order.dropFirst()), into: order[0]).head))
            results.insert(try #require(try integrator.integrate(order, into: nil).head))
        }
        #expect(results.count == 1)
        #expect(results.isDisjoint(with: forked.heads), "a new integration commit, not one of the heads")
    }

    /// (docs/MODEL.md: R30.)
    @Test func twoRepositoriesWithTheSameHeadsWriteTheSameCommit() throws {
        let one = try TempRepository("one"), two = try TempRepository("two")
        let forkedOne = try Forked(one), forkedTwo = try Forked(two)
        #expect(forkedOne.heads == forkedTwo.heads, "the hand-built histories are identical")
        let a = try Integrator(repository: one.repository).integrate([forkedOne.bob, forkedOne.carol], into: forkedOne.alice)
        let b = try Integrator(repository: two.repository).integrate([forkedTwo.alice, forkedTwo.bob], into: forkedTwo.carol)
        #expect(a.head == b.head)
        #expect(a.conflicts == b.conflicts)
    }

    /// (docs/MODEL.md: R7.)
    @Test func integratingTheIntegrationWithItsParentsIsAFastForward() throws {
        let scratch = try TempRepository()
        let forked = try Forked(scratch)
        let integrator = Integrator(repository: scratch.repository)
        let merged = try #require(try integrator.integrate(forked.heads, into: nil).head)
        #expect(try integrator.integrate(forked.heads, into: merged).head == merged)
    }

    /// (docs/MODEL.md: R3.)
    @Test func recordedBaseIsTheOctopusMergeBase() throws {
        let scratch = try TempRepository()
        let root = try scratch.commit(["doc.txt": "0", "x.txt": "0"], at: 0)
        let middle = try scratch.commit(on: root, changing: ["x.txt": "1"], device: "alice", at: 10)
        let alice = try scratch.commit(on: middle, changing: ["doc.txt": "alice"], device: "alice", at: 100)
        let bob = try scratch.commit(on: middle, changing: ["doc.txt": "bob"], device: "bob", at: 200)
        let carol = try scratch.commit(on: root, changing: ["y.txt": "c"], device: "carol", at: 50)
        let result = try Integrator(repository: scratch.repository).integrate([alice, bob, carol], into: nil)
        // alice and bob meet at `middle`, but all three only at `root`.
        #expect(result.conflicts == [ConflictRecord(path: "doc.txt", version: alice.hex, base: root.hex)])
    }

    @Test func batchVersionLookupGivesTheSameResultAsWalkingEachDocument() throws {
        // The integrator looks contested documents' versions up in one pass per head; the
        // merger alone walks each. Both must agree.
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "0", "d/b.txt": "0", "p.pkg/c": "0", "e.txt": "0"], at: 0)
        let alice1 = try scratch.commit(on: base, changing: ["a.txt": "alice", "p.pkg/c": "alice"], device: "alice", at: 300)
        let alice2 = try scratch.commit(on: alice1, changing: ["d/b.txt": "alice", "e.txt": nil], device: "alice", at: 100)
        let bob1 = try scratch.commit(on: base, changing: ["d/b.txt": "bob", "e.txt": "bob"], device: "bob", at: 200)
        let bob2 = try scratch.commit(on: bob1, changing: ["a.txt": "bob", "p.pkg/new": "bob"], device: "bob", at: 250)
        let heads = [alice2, bob2].sorted()
        let result = try Integrator(repository: scratch.repository).integrate(heads, into: nil)
        let direct = try TreeMergerTests.merge(scratch, base: base, heads: heads)
        let commit = try scratch.repository.commit(#require(result.head))
        #expect(commit.treeID == direct.tree)
        #expect(result.conflicts == direct.records)
        #expect(result.conflicts.count == 4)
    }

    // MARK: Renames and reuse

    /// (docs/MODEL.md: R23.)
    @Test func anEditFollowsARenameMadeOnAnotherSide() throws {
        let scratch = try TempRepository()
        let text = (1...40).map { "line \($0) of a document long enough for rename detection" }.joined(separator: "\n") + "\n"
        let base = try scratch.commit(["old.txt": text], at: 0)
        let alice = try scratch.commit(on: base, changing: ["old.txt": text + "alice's last line\n"], device: "alice", at: 100)
        let bob = try scratch.commit(on: base, changing: ["old.txt": nil, "new.txt": text], device: "bob", at: 200)
        let result = try Integrator(repository: scratch.repository).integrate([alice, bob], into: nil)
        #expect(try scratch.files(at: #require(result.head)) == ["new.txt": text + "alice's last line\n"])
        #expect(result.conflicts.isEmpty)
    }

    /// (docs/MODEL.md: R23.)
    @Test func anEditDoesNotFollowARenameOntoANameAnotherSideTook() throws {
        let scratch = try TempRepository()
        let text = (1...40).map { "line \($0) of a document long enough for rename detection" }.joined(separator: "\n") + "\n"
        let base = try scratch.commit(["old.txt": text], at: 0)
        let alice = try scratch.commit(on: base, changing: ["old.txt": text + "alice's last line\n"], device: "alice", at: 100)
        let bob = try scratch.commit(on: base, changing: ["old.txt": nil, "new.txt": text], device: "bob", at: 200)
        let carol = try scratch.commit(on: base, changing: ["new.txt": "carol's own new.txt\n"], device: "carol", at: 300)
        let result = try Integrator(repository: scratch.repository).integrate([alice, bob, carol], into: nil)
        // The edit stays where it was, against bob's deletion; the two new.txt meet as usual.
        #expect(try scratch.files(at: #require(result.head)) == ["old.txt": text + "alice's last line\n", "new.txt": "carol's own new.txt\n"])
        #expect(
            result.conflicts == [
                ConflictRecord(path: "new.txt", version: bob.hex, base: nil),
                ConflictRecord(path: "old.txt", version: bob.hex, base: base.hex),
            ])
    }

    @Test
    func aFolderUnchangedOnEverySideIsNeverRead() throws {
        let scratch = try TempRepository()
        let forked = try Forked(scratch)
        let inner = try scratch.commit(on: forked.base, changing: ["keep/deep/d.txt": "d"], at: 1)
        let alice = try scratch.commit(on: inner, changing: ["shared.txt": "alice"], device: "alice", at: 300)
        let bob = try scratch.commit(on: inner, changing: ["shared.txt": "bob"], device: "bob", at: 200)
        let keep = try #require(try scratch.entry("keep", at: inner))
        try scratch.deleteObject(#require(try scratch.entry("keep/deep", at: inner)).id)
        let result = try Integrator(repository: scratch.reopened()).integrate([alice, bob], into: nil)
        let tree = try scratch.treeID(of: #require(result.head))
        #expect(try scratch.entry("keep", inTree: tree) == keep)
        #expect(result.conflicts.map(\.version) == [bob.hex])
    }
}
