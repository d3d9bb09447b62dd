import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// The version walk (docs/FORMAT.md, "Versions"): the commit that introduced the state a
/// document has at a commit, found through first parents, and its batch form.
@Suite struct VersionGraphTests {
    /// c1 adds a and b; c2 adds dir/c; c3 edits a; c4 edits dir/c; c5 deletes a; c6 edits b.
    struct Linear {
        var commits: [ObjectID] = []
        init(_ scratch: TempRepository) throws {
            let c1 = try scratch.commit(["a.txt": "a1", "b.txt": "b1"], at: 1)
            let c2 = try scratch.commit(on: c1, changing: ["dir/c.txt": "c1"], at: 2)
            let c3 = try scratch.commit(on: c2, changing: ["a.txt": "a2"], at: 3)
            let c4 = try scratch.commit(on: c3, changing: ["dir/c.txt": "c2"], at: 4)
            let c5 = try scratch.commit(on: c4, changing: ["a.txt": nil], at: 5)
            let c6 = try scratch.commit(on: c5, changing: ["b.txt": "b2"], at: 6)
            commits = [c1, c2, c3, c4, c5, c6]
        }
        subscript(_ number: Int) -> ObjectID { commits[number - 1] }
    }

    @Test func onALinearHistoryTheWalkStopsWhereTheStateChanged() throws {
        let scratch = try TempRepository()
        let c = try Linear(scratch)
        let graph = VersionGraph(repository: scratch.repository)
        #expect(try graph.introducingCommit(of: "a.txt", from: c[2]) == c[1])
        #expect(try graph.introducingCommit(of: "a.txt", from: c[4]) == c[3])
        #expect(try graph.introducingCommit(of: "a.txt", from: c[3]) == c[3])
        #expect(try graph.introducingCommit(of: "b.txt", from: c[5]) == c[1])
        #expect(try graph.introducingCommit(of: "b.txt", from: c[6]) == c[6])
        #expect(try graph.introducingCommit(of: "dir/c.txt", from: c[6]) == c[4])
        // A plain folder is not a document: at its name the document "dir" is absent, and
        // edits of the folder's documents are no versions of it.
        #expect(try graph.introducingCommit(of: "dir", from: c[6]) == c[1], "the absence of dir since the first commit")
        #expect(try graph.version(of: DocumentPath(trusted: "dir"), at: c[4]).isDeletion)
    }

    @Test func absenceAfterADeletionIsIntroducedByTheDeletion() throws {
        let scratch = try TempRepository()
        let c = try Linear(scratch)
        let graph = VersionGraph(repository: scratch.repository)
        #expect(try graph.introducingCommit(of: "a.txt", from: c[6]) == c[5])
        let version = try #require(try graph.currentVersion(of: DocumentPath("a.txt"), at: c[6]))
        #expect(version.isDeletion && version.commitID == c[5])
    }

    /// (docs/MODEL.md: R5.)
    @Test func aDocumentNeverSavedHasNoCurrentVersion() throws {
        let scratch = try TempRepository()
        let c = try Linear(scratch)
        let graph = VersionGraph(repository: scratch.repository)
        #expect(try graph.introducingCommit(of: "never.txt", from: c[6]) == c[1], "absent since the root")
        #expect(try graph.introducingCommit(of: "dir/c.txt", from: c[1]) == c[1])
        #expect(try graph.currentVersion(of: DocumentPath("never.txt"), at: c[6]) == nil)
        #expect(try graph.currentVersion(of: DocumentPath("dir/c.txt"), at: c[1]) == nil)
    }

    /// (docs/MODEL.md: R5.)
    @Test func historyListsEarlierVersionsNewestFirstAndStopsAtTheCreation() throws {
        let scratch = try TempRepository()
        let c = try Linear(scratch)
        let graph = VersionGraph(repository: scratch.repository)
        let document = try DocumentPath("a.txt")
        let current = try #require(try graph.currentVersion(of: document, at: c[6]))
        #expect(try graph.history(of: document, after: current, limit: nil).map(\.commitID) == [c[3], c[1]])
        #expect(try graph.history(of: document, after: current, limit: 1).map(\.commitID) == [c[3]])
    }

    @Test func versionDescribesTheEntry() throws {
        let scratch = try TempRepository()
        let first = try scratch.commit(["trip.pkg/a": "12345", "trip.pkg/sub/b": "678", "x.txt": "hello"], device: "bob", at: 7)
        let gone = try scratch.commit(on: first, changing: ["trip.pkg/a": nil, "trip.pkg/sub/b": nil], at: 8)
        let graph = VersionGraph(repository: scratch.repository)
        let package = try graph.version(of: DocumentPath("trip.pkg"), at: first)
        #expect(package.kind == .package && package.size == 8 && !package.isDeletion)
        #expect(package.device.id == "bob" && package.modified == testDate(7) && package.id == first.hex)
        let flat = try graph.version(of: DocumentPath("x.txt"), at: first)
        #expect(flat.kind == .flat && flat.size == 5)
        let deletion = try graph.version(of: DocumentPath("trip.pkg"), at: gone)
        #expect(deletion.isDeletion && deletion.kind == .package && deletion.entryID == nil, "a deletion keeps the kind it deleted")
    }

    // MARK: Merges

    /// (docs/MODEL.md: R4.)
    @Test func atAMergeTheWalkFollowsTheParentWithTheSameState() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "1", "b.txt": "1"], at: 0)
        let left = try scratch.commit(on: base, changing: ["a.txt": "left"], device: "alice", at: 10)
        let right = try scratch.commit(on: base, changing: ["b.txt": "right"], device: "bob", at: 20)
        let tree = try scratch.tree(["a.txt": "left", "b.txt": "right"])
        let merge = try scratch.merge([right, left], tree: tree, at: 30)
        let graph = VersionGraph(repository: scratch.repository)
        #expect(try graph.introducingCommit(of: "a.txt", from: merge) == left, "through the second parent")
        #expect(try graph.introducingCommit(of: "b.txt", from: merge) == right)
        // A merge that takes neither parent's state introduces it.
        let merge2 = try scratch.merge([right, left], tree: scratch.tree(["a.txt": "merged", "b.txt": "right"]), at: 31)
        #expect(try graph.introducingCommit(of: "a.txt", from: merge2) == merge2)
    }

    @Test func whenBothParentsHaveTheStateTheFirstParentIsFollowed() throws {
        let scratch = try TempRepository()
        let base = try scratch.commit(["a.txt": "1"], at: 0)
        let alice = try scratch.commit(on: base, changing: ["a.txt": "same"], device: "alice", at: 10)
        let bob = try scratch.commit(on: base, changing: ["a.txt": "same"], device: "bob", at: 20)
        let tree = try scratch.treeID(of: alice)
        let graph = VersionGraph(repository: scratch.repository)
        #expect(try graph.introducingCommit(of: "a.txt", from: scratch.merge([alice, bob], tree: tree, at: 30)) == alice)
        #expect(try graph.introducingCommit(of: "a.txt", from: scratch.merge([bob, alice], tree: tree, at: 30)) == bob)
    }

    /// (docs/MODEL.md: R4.)
    @Test func aDeletionJoinedWithALineThatNeverHadTheDocumentIsKept() throws {
        // FORMAT.md's refinement: the first parent never had the document; the second deleted it.
        let scratch = try TempRepository()
        let root = try scratch.commit(["x.txt": "x"], at: 0)
        let never = try scratch.commit(on: root, changing: ["y.txt": "y"], device: "bob", at: 5)
        let added = try scratch.commit(on: root, changing: ["doc.txt": "d"], device: "alice", at: 10)
        let deleted = try scratch.commit(on: added, changing: ["doc.txt": nil], device: "alice", at: 20)
        let merge = try scratch.merge([never, deleted], tree: scratch.tree(["x.txt": "x", "y.txt": "y"]), at: 30)
        let graph = VersionGraph(repository: scratch.repository)
        #expect(try graph.introducingCommit(of: "doc.txt", from: merge) == deleted)
        let current = try #require(try graph.currentVersion(of: DocumentPath("doc.txt"), at: merge))
        #expect(current.isDeletion && current.commitID == deleted)
        // Without a deletion on any line, absence comes from the root, as before.
        #expect(try graph.introducingCommit(of: "nothing.txt", from: merge) == root)
    }

    /// (docs/MODEL.md: R4.)
    @Test func ofTwoDeletionsTheOneNoOtherDescendsFromIsChosen() throws {
        let scratch = try TempRepository()
        let root = try scratch.commit(["x.txt": "x"], at: 0)
        let added = try scratch.commit(on: root, changing: ["doc.txt": "1"], at: 1)
        let firstDeletion = try scratch.commit(on: added, changing: ["doc.txt": nil], at: 2)
        let readded = try scratch.commit(on: firstDeletion, changing: ["doc.txt": "2"], at: 3)
        let secondDeletion = try scratch.commit(on: readded, changing: ["doc.txt": nil], at: 4)
        let afterFirst = try scratch.commit(on: firstDeletion, changing: ["y.txt": "y"], device: "bob", at: 5)
        // Both parents lack doc.txt. The first-parent line reaches the first deletion, the
        // second line the second one, which descends from the first: it is the version.
        let merge = try scratch.merge([afterFirst, secondDeletion], tree: scratch.tree(["x.txt": "x", "y.txt": "y"]), at: 6)
        #expect(try VersionGraph(repository: scratch.repository).introducingCommit(of: "doc.txt", from: merge) == secondDeletion)
    }

    @Test func aLineIsSearchedOnlyBackToItsMostRecentDeletion() throws {
        let scratch = try TempRepository()
        let root = try scratch.commit(["x.txt": "x"], at: 0)
        let added = try scratch.commit(on: root, changing: ["doc.txt": "1"], at: 1)
        let firstDeletion = try scratch.commit(on: added, changing: ["doc.txt": nil], at: 2)
        let readded = try scratch.commit(on: firstDeletion, changing: ["doc.txt": "2"], at: 3)
        let secondDeletion = try scratch.commit(on: readded, changing: ["doc.txt": nil], at: 4)
        let never = try scratch.commit(on: root, changing: ["y.txt": "y"], device: "bob", at: 5)
        let merge = try scratch.merge([never, secondDeletion], tree: scratch.tree(["x.txt": "x", "y.txt": "y"]), at: 6)
        #expect(try VersionGraph(repository: scratch.repository).introducingCommit(of: "doc.txt", from: merge) == secondDeletion)
    }

    // MARK: Batch lookup

    /// A random history with merges over a few paths, some nested, some in packages.
    static func randomHistory(_ scratch: TempRepository, seed: UInt64) throws -> [ObjectID] {
        var random = SeededRandom(seed: seed)
        let paths = ["a.txt", "b.txt", "dir/c.txt", "dir/sub/d.txt", "p.pkg/e", "p.pkg/f", "z.txt"]
        var commits = [try scratch.commit(["a.txt": "0", "dir/c.txt": "0"], at: 0)]
        for step in 1...40 {
            let parent = commits.suffix(8).randomElement(using: &random)!
            var changes: [String: String?] = [:]
            for path in paths where Int.random(in: 0..<4, using: &random) == 0 {
                changes[path] = Bool.random(using: &random) ? nil : "\(Int.random(in: 0..<3, using: &random))"
            }
            // Removing an absent path is a no-op for the test's purpose: keep only real removals.
            let existing = try scratch.files(at: parent)
            changes = changes.filter { $0.value != nil || existing[$0.key] != nil }
            if Int.random(in: 0..<4, using: &random) == 0, let other = commits.randomElement(using: &random), other != parent {
                // A merge: the first parent's files with some of the other's.
                var files = existing
                for (path, contents) in try scratch.files(at: other) where Bool.random(using: &random) { files[path] = contents }
                for (path, contents) in changes { files[path] = contents }
                let tree = files.isEmpty ? ObjectID.emptyTree : try scratch.tree(files)
                commits.append(try scratch.merge([parent, other], tree: tree, at: step))
            } else {
                commits.append(try scratch.commit(on: parent, changing: changes, device: "d\(step % 3)", at: step))
            }
        }
        return commits
    }

    @Test(arguments: Seeds.make(6, salt: 40))
    func batchLookupAgreesWithOneByOneLookup(seed: UInt64) throws {
        let scratch = try TempRepository()
        let commits = try Self.randomHistory(scratch, seed: seed)
        let graph = VersionGraph(repository: scratch.repository)
        let paths: Set<String> = ["a.txt", "b.txt", "dir/c.txt", "dir/sub/d.txt", "dir/sub", "p.pkg", "p.pkg/e", "z.txt", "never.txt"]
        for head in commits.suffix(10) {
            let batch = try graph.introducingCommits(of: Set(paths.map { DocumentPath(trusted: $0) }), from: head)
            #expect(Set(batch.keys.map(\.path)) == paths)
            for path in paths {
                #expect(
                    batch[DocumentPath(trusted: path)] == (try graph.introducingCommit(of: path, from: head)), "seed \(seed), \(path) from \(head)")
            }
        }
    }

    @Test(arguments: Seeds.make(4, salt: 41))
    func introducingCommitHoldsTheSameStateAndItsFirstMatchingParentDoesNot(seed: UInt64) throws {
        // The walk's own definition, checked on random histories: the state at the answer is
        // the state at the start; and the answer has no parent with that state, unless the
        // absence refinement applied (then the answer is a deletion or a root).
        let scratch = try TempRepository()
        let commits = try Self.randomHistory(scratch, seed: seed)
        let graph = VersionGraph(repository: scratch.repository)
        for head in commits.suffix(10) {
            for path in ["a.txt", "dir/c.txt", "p.pkg", "z.txt"] {
                let answer = try graph.introducingCommit(of: path, from: head)
                let state = try scratch.entry(path, at: head)
                #expect(try scratch.entry(path, at: answer) == state, "seed \(seed), \(path)")
                #expect(try scratch.repository.isAncestorOrSame(answer, of: head))
                let parents = try scratch.repository.commit(answer).parentIDs
                let sameParents = try parents.filter { try scratch.entry(path, at: $0) == state }
                #expect(sameParents.isEmpty, "seed \(seed): \(path) from \(head) stopped at \(answer), whose parent has the same state")
            }
        }
    }

    @Test func batchLookupRemembersInTheMemoAndAMemoAnswerIsTrusted() throws {
        let scratch = try TempRepository()
        let c = try Linear(scratch)
        let memoFile = scratch.url.appendingPathComponent(".git/docver/versions.json").path
        let memo = VersionMemo(file: memoFile)
        let graph = VersionGraph(repository: scratch.repository, memo: memo)
        #expect(
            try graph.introducingCommits(of: [DocumentPath(trusted: "a.txt"), DocumentPath(trusted: "b.txt")], from: c[6])
                == [DocumentPath(trusted: "a.txt"): c[5], DocumentPath(trusted: "b.txt"): c[6]])
        #expect(memo.version(of: "a.txt", at: c[6]) == c[5])
        // A remembered pair ends the walk there: plant one to see it used.
        memo.remember(c[2], of: "dir/c.txt", at: c[5])
        #expect(try graph.introducingCommit(of: "dir/c.txt", from: c[6]) == c[2])
        #expect(try graph.introducingCommits(of: [DocumentPath(trusted: "dir/c.txt")], from: c[6]) == [DocumentPath(trusted: "dir/c.txt"): c[2]])
    }

    /// A file's mode changing on the way to a path (`notes` made executable) changes nothing
    /// below it: `notes/e.txt` is absent on both sides, so its absence was introduced by the
    /// deletion, over the trees as in the index. Before, the tree walk compared the modes of
    /// the file on the way and called the mode change a deletion of `notes/e.txt` (a long fuzz
    /// seed found the trees' deletion search and the index's disagreeing).
    /// (docs/MODEL.md: R4.)
    @Test func aModeChangeOfAFileOnTheWayIsNoChangeOfThePathBelowIt() throws {
        let scratch = try TempRepository()
        let text = try scratch.blob("notes\n")
        let a = try scratch.commit(["notes/e.txt": "e1", "x.txt": "x"], at: 1)
        let deleted = try scratch.commit(
            tree: scratch.tree(entries: ["notes": EntryState(text, .blob), "x.txt": EntryState(scratch.blob("x"), .blob)]),
            parents: [a], at: 2)
        let chmod = try scratch.commit(
            tree: scratch.tree(entries: ["notes": EntryState(text, .executable), "x.txt": EntryState(scratch.blob("x"), .blob)]),
            parents: [deleted], at: 3)
        let repository = scratch.repository
        let (before, after) = (try scratch.treeID(of: deleted), try scratch.treeID(of: chmod))
        #expect(try repository.sameEntry(["notes", "e.txt"], before, after))
        #expect(try repository.sameDocumentState(["notes", "e.txt"], before, after))
        #expect(try !repository.sameEntry(["notes"], before, after), "the file itself changed mode")
        let plain = VersionGraph(repository: repository)
        #expect(try plain.introducingCommit(of: "notes/e.txt", from: chmod) == deleted)
        #expect(try plain.introducingCommit(of: "notes", from: chmod) == chmod)
        var index = VersionIndex()
        _ = try VersionIndexStore(file: "/nonexistent/version-index", repository: repository).extend(&index, to: [chmod])
        let indexed = VersionGraph(repository: repository, index: index)
        #expect(try indexed.introducingCommit(of: "notes/e.txt", from: chmod) == deleted)
    }

}
