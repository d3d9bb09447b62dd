import Foundation
import Testing

@testable import DocverKit

/// Product bugs found by the sync fuzz test once it made plain git commits and merges and
/// checked the sync report (SyncFuzzTests, checks 3 to 7), each reduced to a short
/// deterministic session. They fail until the product is fixed; then they stay as regression
/// tests.
@Suite struct PlainGitFuzzFindingsTests {
    /// Fuzz seeds 6 and 19 at 80 steps: integration traps ("Index out of range" in
    /// TreeMerger.mergeDocument), so the device can never sync again. Alice edits `x.txt` on top
    /// of its current version while it is in conflict; a git user merges her branch as her
    /// checkout has it (with that edit) with Carol's and pushes the merge to `docver/alice`;
    /// Bob pushes a save that holds neither. Alice then keeps the current version
    /// (mark-resolved: a decision that changes no tree). Her sync meets, for `x.txt`, her
    /// decision and, on the merge's side, the edit the decision kept: the edit drops out
    /// because the decision descends from it, and the decision drops out as "superseded by an
    /// ordinary edit of the state it kept" (that same edit), so no version is left to rank.
    /// The sync runs in a child process (`docver sync`) so that the trap fails this test only.
    /// (docs/MODEL.md: R9.)
    @Test func aDecisionMeetsTheVersionItKeptOnAnotherHead() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        let carol = try scratch.device("carol", remote: remote)
        try alice.saveText("base\n", to: "x.txt")
        for device in [alice, bob, carol] { try device.sync() }
        try alice.saveText("alice\n", to: "x.txt")
        scratch.clock.tick()
        try bob.saveText("bob\n", to: "x.txt")
        try alice.sync(); try bob.sync(); try alice.sync()
        let x = try DocumentPath("x.txt")
        try #require(try !alice.conflicts(x).isEmpty, "x.txt is in conflict")
        try carol.sync()
        try carol.saveText("carol\n", to: "y.txt")
        try carol.sync()
        // Alice edits on top of the current version, and does not sync.
        try alice.saveText("alice again\n", to: "x.txt")
        // Bob pushes a save that holds neither Alice's edit nor Carol's save.
        try bob.saveText("bob\n", to: "z.txt")
        try bob.sync(["origin"])
        // A git user merges Alice's branch as her checkout has it with Carol's, and pushes.
        let clone = scratch.path("git-user")
        try runGit(["clone", "-q", "--no-checkout", remote.path, clone.path], in: scratch.url)
        try runGit(["fetch", "-q", alice.root.path, "+refs/heads/docver/alice:refs/alice"], in: clone)
        try runGit(["checkout", "-q", "--detach", "refs/alice"], in: clone)
        try runGit(["merge", "-q", "--no-edit", "--no-ff", "refs/remotes/origin/docver/carol"], in: clone)
        try runGit(["push", "-q", "origin", "HEAD:refs/heads/docver/alice"], in: clone)
        // Alice keeps the current version, then syncs.
        _ = try alice.markResolved(x)
        let sync = try docver("sync", in: alice.root)
        let trap = sync.stderr.split(separator: "\n").first { $0.contains("Fatal error") }.map(String.init)
        #expect(sync.status == 0, "docver sync failed (\(sync.status)): \(trap ?? String(sync.stderr.suffix(400)))")
        guard sync.status == 0 else { return }
        #expect(try alice.read("x.txt") == "alice again\n", "the edit Alice kept is current")
        try bob.sync(); try carol.sync(); try alice.sync()
        try expectConverged([alice, bob, carol])
    }

    /// Fuzz, many seeds (check 7): a device's file `notes` loses to a folder `notes/` of
    /// another device (the folder stays; the file becomes a conflict version of `notes`,
    /// docs/FORMAT.md "File against folder"), and the sync report's `documentChanges` says
    /// nothing about `notes` on either device: the report skips records of a document whose
    /// current version is nil (Container+SyncReport.swift). `newConflicts` names it only on
    /// the device whose integration wrote the record, so Alice, who gets the record from Bob,
    /// is not told that her file is no longer current.
    /// (docs/MODEL.md: R21.)
    @Test func aFileThatLosesToAFolderIsReported() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("base\n", to: "a.txt")
        try alice.sync(); try bob.sync()
        try alice.saveText("a file\n", to: "notes")
        try bob.saveText("in the folder\n", to: "notes/e.txt")
        try alice.sync()
        let bobs = try bob.sync()
        let alices = try alice.sync()
        let notes = try DocumentPath("notes")
        try #require(try alice.conflicts(notes).first?.conflicts.count == 1, "the file is a conflict version of notes")
        #expect(
            alices.documentChanges.contains { $0.document == notes && $0.kind == .yoursIsConflictVersion },
            "Alice's report: \(alices.documentChanges.map(\.summary))")
        #expect(
            bobs.documentChanges.contains { $0.document == notes && $0.kind == .conflictVersionKept },
            "Bob's report: \(bobs.documentChanges.map(\.summary))")
    }

    /// Issue 11, fuzz seeds 29 and 42 at 120 steps (found once commit dates were replayable;
    /// there the two merges were a criss-cross). A version a plain merge set aside can be
    /// current all the same: here a git user merges Bob's edit into Alice's branch keeping
    /// Alice's (`-s ours`: Bob's is set aside), then merges that into Bob's branch keeping
    /// Bob's (Alice's is set aside too), and Bob's is current. Carol, who saw neither, saves
    /// later and wins. Bob's edit, already set aside, stays resolved (listed by `versions --all`,
    /// not by `conflicts`), and the report of each device that had it current said "updated",
    /// as if Carol's save had been made on top of it. It now says the version was set aside.
    ///
    /// `byPlainMerge` (seed 95 at 60 steps): instead, a git user merges Bob's branch into
    /// Carol's keeping Carol's `x.txt`, the base Alice saved first. Alice's report said nothing
    /// at all, the current version being her own; it now says Bob's was set aside.
    @Test(arguments: [false, true])
    func aCurrentVersionThatAPlainMergeSetAsideLosesAgainAndIsNotCalledUpdated(byPlainMerge: Bool) throws {
        let scratch = try Scratch()
        let (devices, remote) = try scratch.datedDevices("alice", "bob", "carol")
        let (alice, bob, carol) = (devices[0], devices[1], devices[2])
        let x = try DocumentPath("x.txt")
        let baseVersion = try alice.saveText("base\n", to: "x.txt")
        for device in [alice, bob, carol] { try device.sync() }
        try alice.dated(10).saveText("alice\n", to: "x.txt")
        try alice.sync()
        let bobVersion = try bob.dated(20).saveText("bob\n", to: "x.txt")
        // A git user merges the two edits keeping Alice's, pushes to docver/alice, then merges
        // that keeping Bob's and pushes to docver/bob: each edit is set aside by one merge.
        let gitUser = try PlainGitUser(cloning: remote, in: scratch)
        try gitUser.fetch(bob, into: "refs/bob")
        try gitUser.mergeKeepingOurs("refs/remotes/origin/docver/alice", "refs/bob", pushTo: "alice")
        try gitUser.mergeKeepingOurs("refs/bob", "refs/remotes/origin/docver/alice", pushTo: "bob")
        try bob.sync(); try alice.sync(); try bob.sync()
        try expectConverged([alice, bob])
        // Bob's edit is current, though the first merge set it aside.
        let kept = try #require(try alice.currentVersion(of: x))
        try #require(kept.id == bobVersion)
        try #require(
            try alice.resolvedConflictVersions(of: x).contains { $0.id == kept.id },
            "the version current is also set aside by a plain merge")
        // Carol, who never saw either edit, saves later and her version wins; or a git user
        // merges Bob's branch into Carol's keeping her x.txt, the base.
        let winner: String
        if byPlainMerge {
            winner = baseVersion
            try gitUser.fetch()
            try gitUser.mergeKeepingOurs("refs/remotes/origin/docver/carol", "refs/remotes/origin/docver/bob", pushTo: "carol")
        } else {
            winner = try carol.dated(50).saveText("carol\n", to: "x.txt")
            try carol.sync()
        }
        for device in [alice, bob] {
            let report = try device.sync()
            #expect(try device.currentVersion(of: x)?.id == winner)
            let change = try #require(report.documentChanges.first { $0.document == x }, "\(device.device.id) is told about x.txt")
            #expect(change.kind != .updated, "\(device.device.id): \(change.summary)")
            #expect(change.kind == .setAsideByPlainMerge, "\(device.device.id): \(change.summary)")
            #expect(change.version?.id == kept.id)
            #expect(change.current?.id == winner)
        }
        try carol.sync()
        try expectConverged([alice, bob, carol])
        #expect(try alice.resolvedConflictVersions(of: x).contains { $0.id == kept.id }, "Bob's edit stays set aside")
    }

    /// Fuzz seed 247 at 120 steps (check 7). Bob's later edit is current, Alice's a conflict
    /// version; Bob chooses Alice's version (a decision that replaces his own edit). A git user
    /// merges Bob's branch into Alice's, which holds Bob's edit current, keeping Alice's side
    /// (`-s ours`): the merge sets Bob's decision aside and keeps Bob's edit. Carol, who saw
    /// none of it, saves a later edit of the base. Her integration took Bob's decision for the
    /// merge's side (it was made after the side's version, but the side no longer holds what
    /// it kept), recorded that decision, already set aside, as the conflict version, and Bob's
    /// edit, current until then, was neither current nor listed: Alice's sync called Carol's
    /// version "updated". The side's version is Bob's edit, the state it holds: it is kept as a
    /// conflict version, and the syncs say so.
    /// (docs/MODEL.md: R9.)
    @Test func aDecisionAPlainMergeSetAsideDoesNotStandForTheMergesSide() async throws {
        let scratch = try Scratch()
        let (devices, remote) = try scratch.datedDevices("alice", "bob", "carol")
        let (alice, bob, carol) = (devices[0], devices[1], devices[2])
        let x = try DocumentPath("x.txt")
        try alice.saveText("base\n", to: "x.txt")
        for device in [alice, bob, carol] { try device.sync() }
        let aliceVersion = try alice.dated(10).saveText("alice\n", to: "x.txt")
        try alice.sync()
        let bobVersion = try bob.dated(20).saveText("bob\n", to: "x.txt")
        try bob.sync(); try alice.sync()
        try #require(try alice.conflicts(x).first?.current.id == bobVersion, "Bob's later edit is current")
        // Bob chooses Alice's version.
        _ = try await bob.dated(30).resolve(x, using: UserChoiceStrategy.version(aliceVersion))
        let decision = try #require(try bob.headID())
        try bob.sync()
        // A git user merges Bob's branch into Alice's keeping Alice's side, where Bob's edit is current.
        try PlainGitUser(cloning: remote, in: scratch)
            .mergeKeepingOurs("refs/remotes/origin/docver/alice", "refs/remotes/origin/docver/bob", pushTo: "git-user", date: 1_750_000_040)
        try alice.sync()
        try #require(try alice.currentVersion(of: x)?.id == bobVersion, "the merge kept Bob's edit")
        try #require(try alice.resolvedConflictVersions(of: x).contains { $0.id == decision }, "and set Bob's decision aside")
        // Carol, who saw none of it, saves a later edit of the base.
        let carolVersion = try carol.dated(50).saveText("carol\n", to: "x.txt")
        let carols = try carol.sync()
        let alices = try alice.sync()
        try bob.sync(); try carol.sync(); try alice.sync()
        try expectConverged([alice, bob, carol])

        #expect(try alice.currentVersion(of: x)?.id == carolVersion)
        let conflict = try #require(try alice.conflicts(x).first, "Bob's edit, current until Carol's, is not lost in silence")
        #expect(conflict.conflicts.map(\.id) == [bobVersion], "Bob's edit is kept as a conflict version")
        #expect(try alice.resolvedConflictVersions(of: x).contains { $0.id == decision }, "Bob's decision stays set aside")
        #expect(carols.newConflicts[x] == [bobVersion], "Carol's integration: \(carols.newConflicts)")
        let change = try #require(alices.documentChanges.first { $0.document == x }, "Alice is told about x.txt")
        #expect(change.kind == .conflictVersionKept, "Alice: \(change.summary)")
        #expect(change.version?.id == bobVersion)
        #expect(change.current?.id == carolVersion)
    }

    /// Fuzz seeds 163 and 189 at 120 steps (check 7). A git user merges Alice's edit into
    /// Bob's branch keeping Bob's (`-s ours`: Alice's is set aside), then merges that into
    /// Alice's branch keeping Alice's, and Alice's edit is current on her device. Bob, who
    /// never saw the second merge, edits his own version again; his integration with Alice's
    /// branch takes his edit (its commit descends from Alice's, which his line holds as the
    /// version the first merge set aside). Alice's edit, current on her device until then,
    /// stays set aside (`versions --all` lists it), yet her sync said "updated": the report
    /// asked whether the new version's commit descends from hers, and it does, though Bob's
    /// edit was made on top of his own version only (docs/FORMAT.md, "The unresolved set":
    /// the document's version graph). It now says her edit was set aside. (In seed 189 the
    /// version that replaced it was a third device's re-creation of the document, after a
    /// deletion, on a line that held it the same way.)
    @Test func aSetAsideVersionReplacedByAnEditWhoseCommitHoldsItIsNotCalledUpdated() throws {
        let scratch = try Scratch()
        let (devices, remote) = try scratch.datedDevices("alice", "bob")
        let (alice, bob) = (devices[0], devices[1])
        let x = try DocumentPath("x.txt")
        try alice.saveText("base\n", to: "x.txt")
        for device in [alice, bob] { try device.sync() }
        let aliceVersion = try alice.dated(10).saveText("alice\n", to: "x.txt")
        try alice.sync()
        let bobVersion = try bob.dated(20).saveText("bob\n", to: "x.txt")
        // A git user merges Alice's edit into Bob's branch keeping Bob's and pushes it to
        // docver/bob; Bob takes that merge.
        let gitUser = try PlainGitUser(cloning: remote, in: scratch)
        try gitUser.fetch(bob, into: "refs/bob")
        try gitUser.mergeKeepingOurs("refs/bob", "refs/remotes/origin/docver/alice", pushTo: "bob")
        try bob.sync()
        try #require(try bob.currentVersion(of: x)?.id == bobVersion)
        try #require(try bob.resolvedConflictVersions(of: x).contains { $0.id == aliceVersion }, "the merge set Alice's edit aside")
        // Then merges that into Alice's branch keeping Alice's, and pushes it to docver/alice.
        try gitUser.fetch()
        try gitUser.mergeKeepingOurs("refs/remotes/origin/docver/alice", "refs/remotes/origin/docver/bob", pushTo: "alice")
        try alice.sync()
        try #require(try alice.currentVersion(of: x)?.id == aliceVersion, "the second merge kept Alice's edit")
        try #require(try alice.resolvedConflictVersions(of: x).contains { $0.id == aliceVersion }, "the first merge set it aside")
        // Bob, who has not seen the second merge, edits his own version again.
        let bobEdit = try bob.dated(50).saveText("bob again\n", to: "x.txt")
        try bob.sync()
        let alices = try alice.sync()
        try bob.sync()
        try expectConverged([alice, bob])

        #expect(try alice.currentVersion(of: x)?.id == bobEdit)
        #expect(try alice.resolvedConflictVersions(of: x).contains { $0.id == aliceVersion }, "Alice's edit stays listed, set aside")
        let change = try #require(alices.documentChanges.first { $0.document == x }, "Alice is told about x.txt")
        #expect(change.kind == .setAsideByPlainMerge, "Alice: \(change.summary)")
        #expect(change.version?.id == aliceVersion)
        #expect(change.current?.id == bobEdit)
    }

    /// Fuzz seed 91 (120 steps): a version lost behind a plain merge that kept its text but
    /// not the mode it carries. Carol makes `c.md` executable; Erin, who has not seen that,
    /// adds a line and wins the conflict by date, so Dave's line has Erin's version current
    /// and Carol's listed. Alice adds another line on top of Carol's executable version. A git
    /// user merges Alice's branch into Dave's: git's base is Carol's save (executable), so to
    /// git Dave's side made the file plain again, and the clean result is plain with both
    /// lines. Against the two versions' own ancestor, Alice's version made the file executable
    /// (Carol's change, which it carries) and the result lacks that. docver compared text
    /// only, said the merge held Alice's version and set nothing aside: her version was
    /// neither current nor listed. A mode a side changed since that ancestor is now one of its
    /// changes (docs/FORMAT.md, "Merges made with plain git").
    /// (docs/MODEL.md: R15.)
    @Test func aPlainMergeThatDropsTheModeAVersionCarriesSetsItAside() throws {
        let scratch = try Scratch()
        let (devices, remote) = try scratch.datedDevices("alice", "carol", "erin", "dave")
        let (alice, carol, erin, dave) = (devices[0], devices[1], devices[2], devices[3])
        let c = try DocumentPath("c.md")
        let lines = (1...8).map { "line \($0)" }
        try carol.saveText(lines.joined(separator: "\n") + "\n", to: "c.md")
        try carol.sync()
        for device in [alice, erin, dave] { try device.sync() }
        try #require(chmod(carol.root.appendingPathComponent("c.md").path, 0o755) == 0)
        let carols = try #require(try carol.dated(10).saveAll())
        try carol.sync()
        try alice.sync()
        try erin.dated(20).saveText((lines + ["erin"]).joined(separator: "\n") + "\n", to: "c.md")
        try erin.sync()
        try dave.sync()
        try #require(try dave.read("c.md").hasSuffix("erin\n"), "Erin's version is current on Dave's line")
        try #require(try dave.unresolvedConflictVersions(of: c).map(\.id) == [carols], "Carol's is listed")
        let alices = try alice.dated(30).saveText((["alice"] + lines).joined(separator: "\n") + "\n", to: "c.md")
        let gitUser = try PlainGitUser(cloning: remote, in: scratch)
        try gitUser.fetch(alice, into: "refs/alice")
        try gitUser.merge("refs/remotes/origin/docver/dave", "refs/alice", pushTo: "dave")
        for device in [alice, dave, erin, carol, alice] { try device.sync() }
        try expectConverged([alice, carol, erin, dave])
        for device in [alice, dave] {
            let listed = try device.unresolvedConflictVersions(of: c).map(\.id) + device.resolvedConflictVersions(of: c).map(\.id)
            #expect(listed.contains(alices), "\(device.device.id): Alice's executable version is neither current nor listed: \(listed)")
            #expect(try device.read("c.md") == (["alice"] + lines + ["erin"]).joined(separator: "\n") + "\n", "the merge is current")
        }
    }

    /// Long fuzz seed 134 at 120 steps (check 7). Erin edits Alice's version; Carol, who saw
    /// neither, edits the base later and pushes, and Erin's integration keeps Carol's edit and
    /// records Erin's as a conflict version. A git user merges Erin's branch into Alice's keeping
    /// Alice's version (`-s ours`): the merge brings back a version that Erin's line had moved
    /// on from. Bob, who has not seen the merge, edits Carol's version. The two lines' base is
    /// Erin's integration, and each changed the document since; but the merge's side holds a
    /// version the base already descends from, so every other side descends from it by
    /// commit, and integration took Bob's edit as made on top of it: Alice's version, current
    /// on her device, was overridden in silence and her sync said "updated". Bob's edit was
    /// made on top of Carol's only. Now the two meet, the later wins, and the other is kept as
    /// a conflict version. (In the seed, a docver integration brought the version back.)
    /// (docs/MODEL.md: R35.)
    @Test func aVersionBroughtBackAfterTheBaseMeetsAnEditMadeWithoutSeeingIt() throws {
        let scratch = try Scratch()
        let (devices, remote) = try scratch.datedDevices("alice", "bob", "carol", "erin")
        let (alice, bob, carol, erin) = (devices[0], devices[1], devices[2], devices[3])
        let x = try DocumentPath("x.txt")
        try alice.saveText("base\n", to: "x.txt")
        for device in devices { try device.sync() }
        let aliceVersion = try alice.dated(10).saveText("alice\n", to: "x.txt")
        try alice.sync(); try erin.sync()
        let erinVersion = try erin.dated(15).saveText("erin\n", to: "x.txt")
        let carolVersion = try carol.dated(20).saveText("carol\n", to: "x.txt")
        // Carol pushes with plain git: her line never saw Alice's version.
        try runGit(["push", "-q", remote.path, "refs/heads/docver/carol:refs/heads/docver/carol"], in: carol.root)
        try erin.sync(); try bob.sync()
        try #require(try erin.currentVersion(of: x)?.id == carolVersion, "Carol's later edit is current")
        try #require(try erin.conflicts(x).first?.conflicts.map(\.id) == [erinVersion], "Erin's is a conflict version")
        // A git user merges Erin's branch into Alice's keeping Alice's version.
        try PlainGitUser(cloning: remote, in: scratch)
            .mergeKeepingOurs("refs/remotes/origin/docver/alice", "refs/remotes/origin/docver/erin", pushTo: "alice", date: 1_750_000_030)
        try alice.sync()
        try #require(try alice.currentVersion(of: x)?.id == aliceVersion, "the merge kept Alice's version")
        // Bob, who has not seen the merge, edits Carol's version.
        try #require(try bob.currentVersion(of: x)?.id == carolVersion)
        let bobVersion = try bob.dated(40).saveText("bob\n", to: "x.txt")
        let bobs = try bob.sync()
        let alices = try alice.sync()
        for device in devices { try device.sync() }
        try alice.sync()
        try expectConverged(devices)

        #expect(try alice.currentVersion(of: x)?.id == bobVersion, "the later edit wins")
        let conflict = try #require(try alice.conflicts(x).first, "Alice's version, which the merge kept, is not overridden in silence")
        #expect(conflict.conflicts.map(\.id).contains(aliceVersion), "\(conflict.conflicts.map(\.id))")
        #expect(bobs.newConflicts[x] == [aliceVersion], "Bob's integration: \(bobs.newConflicts)")
        let change = try #require(alices.documentChanges.first { $0.document == x }, "Alice is told about x.txt")
        #expect(change.kind == .yoursIsConflictVersion, "Alice: \(change.summary)")
        #expect(change.version?.id == aliceVersion)
    }
}
