import DocverKit
import Foundation
import Testing

/// Issue 11, item 6: two explicit decisions that disagree are a new conflict, reported on both
/// devices; decisions that agree are nothing to report.
@Suite struct ConcurrentDecisionTests {
    /// Twelve lines, `line 1` to `line 12`, with the lines numbered in `edits` replaced.
    private func text(_ edits: [Int: String]) -> String {
        (1...12).map { edits[$0] ?? "line \($0)" }.joined(separator: "\n") + "\n"
    }

    /// Alice and Bob in conflict on notes.txt: Bob's later edit is current, Alice's a conflict version.
    private func conflicted(_ scratch: Scratch, aliceDeletes: Bool = false) throws -> (Container, Container, DocumentVersion, DocumentVersion) {
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", name: "Alice", remote: remote)
        let bob = try scratch.device("bob", name: "Bob", remote: remote)
        try alice.write("base\n", to: "notes.txt")
        try alice.saveAll()
        try alice.sync(); try bob.sync()
        if aliceDeletes { try alice.deleteAndSave("notes.txt") } else { try alice.saveText("alice\n", to: "notes.txt") }
        scratch.clock.tick()
        try bob.saveText("bob\n", to: "notes.txt")
        try alice.sync(); try bob.sync(); try alice.sync()
        let conflict = try #require(try alice.conflicts(DocumentPath("notes.txt")).first)
        #expect(conflict.current.device.id == "bob")
        return (alice, bob, conflict.current, try #require(conflict.conflicts.first))
    }

    /// (docs/MODEL.md: R8, R11.)
    @Test func keepingTheCurrentVersionAndPickingTheOtherAreANewConflict() async throws {
        let scratch = try Scratch()
        let (alice, bob, current, other) = try conflicted(scratch)
        let notes = try DocumentPath("notes.txt")
        // Alice keeps the current version (no tree change); Bob, later, picks Alice's version.
        let kept = try alice.markResolved(notes)
        scratch.clock.tick()
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

    /// (docs/MODEL.md: R11.)
    @Test func keepingAModificationAgainstPickingTheDeletionKeepsTheDocument() async throws {
        let scratch = try Scratch()
        let (alice, bob, _, deletion) = try conflicted(scratch, aliceDeletes: true)
        #expect(deletion.isDeletion)
        let notes = try DocumentPath("notes.txt")
        _ = try await alice.resolve(notes, using: LatestDateStrategy())  // keeps Bob's modification
        scratch.clock.tick()
        _ = try await bob.resolve(notes, using: UserChoiceStrategy.version(deletion.id))  // deletes it
        try alice.sync(); try bob.sync(); try alice.sync()
        try expectConverged([alice, bob])
        #expect(try alice.read("notes.txt") == "bob\n", "a modification beats a deletion, also between decisions")
        let conflict = try #require(try bob.conflicts(notes).first)
        #expect(conflict.conflicts.count == 1 && conflict.conflicts[0].isDeletion)
        #expect(conflict.conflicts[0].device.id == "bob")
    }

    /// Fuzz seed 41 (and 62): one device keeps the current version, another chooses the
    /// conflict version, a third merges the two decisions. Each decision set aside the edit
    /// the other kept; were the versions set aside counted as the decisions' ancestors, the
    /// merge would start from both edits merged and drop both, reporting a clean merge. The
    /// two decisions are a new conflict between the versions they kept: the merge holds both.
    @Test func mergingTwoDecisionsThatDisagreeKeepsBothEdits() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", name: "Alice", remote: remote)
        let bob = try scratch.device("bob", name: "Bob", remote: remote)
        let carol = try scratch.device("carol", name: "Carol", remote: remote)
        try alice.saveText(text([:]), to: "notes.txt")
        for device in [alice, bob, carol] { try device.sync() }
        try alice.saveText(text([2: "alice 2"]), to: "notes.txt")
        scratch.clock.tick()
        try bob.saveText(text([10: "bob 10"]), to: "notes.txt")
        try alice.sync(); try bob.sync(); try alice.sync(); try carol.sync()
        let notes = try DocumentPath("notes.txt")
        let conflict = try #require(try alice.conflicts(notes).first)
        #expect(conflict.current.device.id == "bob")
        // Alice keeps Bob's edit; Carol, later, chooses Alice's.
        try alice.markResolved(notes)
        scratch.clock.tick()
        _ = try await carol.resolve(notes, using: UserChoiceStrategy.version(try #require(conflict.conflicts.first).id))
        for device in [alice, carol, bob, alice, carol] { try device.sync() }
        try expectConverged([alice, bob, carol])
        #expect(try bob.conflicts(notes).first?.conflicts.count == 1, "two decisions that disagree are a new conflict")

        let outcome = try await bob.resolve(notes, using: MergeStrategy())
        let merged = try bob.read("notes.txt")
        #expect(merged == text([2: "alice 2", 10: "bob 10"]), "the merge of the two decisions dropped an edit:\n\(merged)")
        #expect(outcome.resolved.count == 1)
    }

    /// Fuzz seed 143: Alice chooses Dave's deletion over her own edit, Dave keeps her edit,
    /// then Alice re-creates the document with an edit of the text from before. Her choice
    /// was made from the deletion alone, not from the edit it set aside, so the merge of her
    /// re-creation with Dave's decision starts from the text both started from and keeps the
    /// edit Dave kept, where it used to start from that edit and drop it in a "clean" merge.
    @Test func aRecreationAfterChoosingTheDeletionMeetsTheEditTheOtherDecisionKept() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", name: "Alice", remote: remote)
        let dave = try scratch.device("dave", name: "Dave", remote: remote)
        try alice.saveText(text([:]), to: "notes.txt")
        try alice.sync(); try dave.sync()
        try dave.deleteAndSave("notes.txt")
        scratch.clock.tick()
        try alice.saveText(text([2: "alice 2"]), to: "notes.txt")
        try alice.sync(); try dave.sync(); try alice.sync()
        let notes = try DocumentPath("notes.txt")
        let conflict = try #require(try alice.conflicts(notes).first)
        let deletion = try #require(conflict.conflicts.first)
        #expect(deletion.isDeletion && !conflict.current.isDeletion, "a modification beats a deletion")
        _ = try await alice.resolve(notes, using: UserChoiceStrategy.version(deletion.id))
        scratch.clock.tick()
        _ = try await dave.resolve(notes, using: LatestDateStrategy())  // keeps Alice's edit
        scratch.clock.tick()
        try alice.saveText(text([12: "alice 12"]), to: "notes.txt")  // re-created on top of the deletion
        for device in [alice, dave, alice] { try device.sync() }
        try expectConverged([alice, dave])
        let recreated = try #require(try dave.conflicts(notes).first, "the re-creation meets the decision that kept the edit")

        _ = try await dave.resolve(notes, using: MergeStrategy())
        let merged = try dave.read("notes.txt")
        #expect(merged == text([2: "alice 2", 12: "alice 12"]), "the merge dropped an edit:\n\(merged)")
        _ = recreated
    }

    /// (docs/MODEL.md: R11.)
    @Test func decisionsThatAgreeAreNothingToReport() async throws {
        let scratch = try Scratch()
        let (alice, bob, _, other) = try conflicted(scratch)
        let notes = try DocumentPath("notes.txt")
        _ = try await alice.resolve(notes, using: UserChoiceStrategy.version(other.id))
        scratch.clock.tick()
        _ = try await bob.resolve(notes, using: UserChoiceStrategy.version(other.id))
        try alice.sync(); try bob.sync(); try alice.sync()
        try expectConverged([alice, bob])
        #expect(try alice.conflicts().isEmpty)
        #expect(try alice.read("notes.txt") == "alice\n")
    }

    /// (docs/MODEL.md: R10.)
    @Test func anEditMadeOnTopOfADecisionSupersedesIt() async throws {
        let scratch = try Scratch()
        let (alice, bob, _, _) = try conflicted(scratch)
        let notes = try DocumentPath("notes.txt")
        try alice.markResolved(notes)  // keeps Bob's version
        try alice.sync(); try bob.sync()
        scratch.clock.tick()
        try bob.saveText("bob, later\n", to: "notes.txt")  // an ordinary edit after seeing the decision
        try bob.sync(); try alice.sync()
        try expectConverged([alice, bob])
        #expect(try alice.conflicts().isEmpty)
        #expect(try alice.read("notes.txt") == "bob, later\n")
    }

    /// Fuzz seed 277 (120 steps): a git user's `git merge -s ours` kept Bob's edit and set
    /// aside Alice's later edit of it; Carol, whose line holds that merge, then kept Bob's edit
    /// explicitly (mark-resolved, against her own conflict version). Alice, who saw neither,
    /// deleted the document. Her deletion descends from Bob's edit (through her own), so it was
    /// taken for an ordinary edit of the state Carol kept and superseded her decision: the
    /// document was deleted on every device, and nobody was told. But Carol's line had seen
    /// Alice's edit and left it for Bob's: an edit of that edit is no edit of what Carol kept.
    /// The deletion meets the decision, and a modification beats a deletion.
    /// (docs/MODEL.md: R10.)
    @Test func deletingAnEditThatTheDecidingLineSetAsideDoesNotOverrideTheDecision() async throws {
        let scratch = try Scratch()
        let (devices, remote) = try scratch.datedDevices("alice", "bob", "carol")
        let (alice, bob, carol) = (devices[0], devices[1], devices[2])
        let notes = try DocumentPath("notes.txt")
        try alice.saveText("base\n", to: "notes.txt")
        for device in [alice, bob, carol] { try device.sync() }
        try carol.dated(10).saveText("carol\n", to: "notes.txt")
        let bobEdit = try bob.dated(20).saveText("bob\n", to: "notes.txt")
        try bob.sync(); try alice.sync()
        try alice.dated(30).saveText("alice, on top of bob\n", to: "notes.txt")
        try alice.sync()
        // A git user merges Alice's branch into Bob's keeping Bob's edit.
        try PlainGitUser(cloning: remote, in: scratch)
            .mergeKeepingOurs("refs/remotes/origin/docver/bob", "refs/remotes/origin/docver/alice", pushTo: "bob", date: 1_750_000_040)
        // Carol meets Bob's edit (it beats hers) and keeps it.
        try carol.sync()
        let conflict = try #require(try carol.conflicts(notes).first)
        try #require(conflict.current.id == bobEdit)
        try carol.dated(50).markResolved(notes)
        try carol.sync()
        // Alice, who saw neither the merge nor the decision, deletes the document.
        let deletion = try alice.dated(60).deleteAndSave("notes.txt")
        for device in [alice, carol, bob, alice] { try device.sync() }
        try expectConverged([alice, bob, carol])
        for device in [alice, carol] {
            #expect((try? device.read("notes.txt")) == "bob\n", "\(device.device.id): the decision to keep Bob's edit was dropped in silence")
            let listed = try device.conflicts(notes).first?.conflicts.map(\.id) ?? []
            #expect(listed == [deletion], "\(device.device.id): Alice's deletion is a conflict version: \(listed)")
        }
    }
}
