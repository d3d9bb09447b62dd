import DocverKit
import Foundation
import Testing

/// Issue 11, item 6: two explicit decisions that disagree are a new conflict, reported on both
/// devices; decisions that agree are nothing to report.
@Suite struct ConcurrentDecisionTests {
    /// Alice and Bob in conflict on notes.txt: Bob's later edit is current, Alice's a conflict version.
    private func conflicted(_ scratch: Scratch, aliceDeletes: Bool = false) throws -> (Container, Container, DocumentVersion, DocumentVersion) {
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", name: "Alice", remote: remote)
        let bob = try scratch.device("bob", name: "Bob", remote: remote)
        try alice.write("base\n", to: "notes.txt")
        try alice.saveAll()
        try alice.sync(); try bob.sync()
        if aliceDeletes { try alice.deleteAndSave("notes.txt") } else { try alice.saveText("alice\n", to: "notes.txt") }
        waitForNextSecond()
        try bob.saveText("bob\n", to: "notes.txt")
        try alice.sync(); try bob.sync(); try alice.sync()
        let conflict = try #require(try alice.conflicts(DocumentPath("notes.txt")).first)
        #expect(conflict.current.device.id == "bob")
        return (alice, bob, conflict.current, try #require(conflict.conflicts.first))
    }

    @Test func keepingTheCurrentVersionAndPickingTheOtherAreANewConflict() async throws {
        let scratch = try Scratch()
        let (alice, bob, current, other) = try conflicted(scratch)
        let notes = try DocumentPath("notes.txt")
        // Alice keeps the current version (no tree change); Bob, later, picks Alice's version.
        let kept = try alice.markResolved(notes)
        waitForNextSecond()
        _ = try await bob.resolve(notes, using: UserChoiceStrategy.version(other.id))
        try alice.sync()
        let bobReport = try bob.sync()
        let aliceReport = try alice.sync()
        try expectConverged([alice, bob])

        let conflict = try #require(try alice.conflicts(notes).first, "two decisions that disagree must not override in silence")
        #expect(try alice.read("notes.txt") == "alice\n", "the later decision is current")
        #expect(conflict.conflicts.map(\.id) == [kept.id], "Alice's decision is kept as a conflict version")
        #expect(try alice.contents(of: conflict.conflicts[0]) == .flat(Data("bob\n".utf8)))
        #expect(bobReport.documentChanges.contains { $0.document == notes && $0.kind == .conflictVersionKept })
        #expect(aliceReport.documentChanges.contains { $0.document == notes && $0.kind == .yoursIsConflictVersion })
        // The decision is a version like any other: it can be chosen back by its id.
        try alice.replace(notes, with: kept.id)
        #expect(try alice.read("notes.txt") == "bob\n")
        _ = current
        try expectFsckClean(alice.root)
    }

    @Test func keepingAModificationAgainstPickingTheDeletionKeepsTheDocument() async throws {
        let scratch = try Scratch()
        let (alice, bob, _, deletion) = try conflicted(scratch, aliceDeletes: true)
        #expect(deletion.isDeletion)
        let notes = try DocumentPath("notes.txt")
        _ = try await alice.resolve(notes, using: LatestDateStrategy()) // keeps Bob's modification
        waitForNextSecond()
        _ = try await bob.resolve(notes, using: UserChoiceStrategy.version(deletion.id)) // deletes it
        try alice.sync(); try bob.sync(); try alice.sync()
        try expectConverged([alice, bob])
        #expect(try alice.read("notes.txt") == "bob\n", "a modification beats a deletion, also between decisions")
        let conflict = try #require(try bob.conflicts(notes).first)
        #expect(conflict.conflicts.count == 1 && conflict.conflicts[0].isDeletion)
        #expect(conflict.conflicts[0].device.id == "bob")
    }

    @Test func decisionsThatAgreeAreNothingToReport() async throws {
        let scratch = try Scratch()
        let (alice, bob, _, other) = try conflicted(scratch)
        let notes = try DocumentPath("notes.txt")
        _ = try await alice.resolve(notes, using: UserChoiceStrategy.version(other.id))
        waitForNextSecond()
        _ = try await bob.resolve(notes, using: UserChoiceStrategy.version(other.id))
        try alice.sync(); try bob.sync(); try alice.sync()
        try expectConverged([alice, bob])
        #expect(try alice.conflicts().isEmpty)
        #expect(try alice.read("notes.txt") == "alice\n")
    }

    @Test func anEditMadeOnTopOfADecisionSupersedesIt() async throws {
        let scratch = try Scratch()
        let (alice, bob, _, _) = try conflicted(scratch)
        let notes = try DocumentPath("notes.txt")
        try alice.markResolved(notes) // keeps Bob's version
        try alice.sync(); try bob.sync()
        waitForNextSecond()
        try bob.saveText("bob, later\n", to: "notes.txt") // an ordinary edit after seeing the decision
        try bob.sync(); try alice.sync()
        try expectConverged([alice, bob])
        #expect(try alice.conflicts().isEmpty)
        #expect(try alice.read("notes.txt") == "bob, later\n")
    }
}
