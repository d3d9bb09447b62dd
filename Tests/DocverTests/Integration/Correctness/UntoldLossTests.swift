import DocverKit
import Foundation
import Testing

/// Issue 25, items 4, 6 and 7: what a sync must tell that it did not (a plain merge committed
/// with conflict markers, a rename met by another rename, a key-value write that lost).
@Suite struct UntoldLossTests {
    /// Item 4: a plain `git merge` that conflicts, committed with its markers as content (as
    /// `git commit -a` does after a merge left unfinished). The sync that brings it says the
    /// current version contains conflict markers, besides setting versions aside.
    @Test func aPlainMergeCommittedWithConflictMarkersIsReported() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("one\ntwo\nthree\n", to: "notes.txt")
        try alice.sync(); try bob.sync()
        try alice.saveText("one\ntwo (alice)\nthree\n", to: "notes.txt")
        try bob.saveText("one\ntwo (bob)\nthree\n", to: "notes.txt")
        _ = try alice.git(["push", "-q", "origin", "docver/alice"])
        _ = try bob.git(["push", "-q", "origin", "docver/bob"])
        let work = scratch.path("plain")
        _ = try runGit(["clone", "-q", remote.path, work.path], in: scratch.url)
        _ = try runGit(["checkout", "-q", "-b", "merged", "origin/docver/alice"], in: work)
        let merge = try runProcess("/usr/bin/git", ["merge", "-q", "--no-edit", "origin/docver/bob"], in: work)
        #expect(merge.status != 0, "the merge conflicts")
        _ = try runGit(["commit", "-q", "-am", "Merge bob"], in: work)
        #expect(try runGit(["show", "HEAD:notes.txt"], in: work).contains("<<<<<<<"))
        _ = try runGit(["push", "-q", "origin", "merged:docver/gituser"], in: work)
        for device in [alice, bob] {
            let report = try device.sync()
            #expect(try device.read("notes.txt").contains(">>>>>>>"))
            let changes = report.documentChanges.filter { $0.document.path == "notes.txt" }
            #expect(!changes.isEmpty)
            #expect(
                changes.contains { $0.containsConflictMarkers && $0.summary.contains("contains conflict markers") },
                "\(device.device.id): \(changes.map(\.summary))")
        }
    }

    /// Item 6: Alice renames `s.txt` to `s-alice.txt` and Bob, concurrently, to `s-bob.txt`.
    /// Both names stay, and each device is told that its rename met another, in the report,
    /// its JSON and the CLI's words.
    @Test func twoRenamesOfOneDocumentAreReportedOnBothDevices() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("shared text\n", to: "s.txt")
        try alice.sync(); try bob.sync()
        try FileManager.default.moveItem(at: alice.root.appendingPathComponent("s.txt"), to: alice.root.appendingPathComponent("s-alice.txt"))
        try alice.saveAll()
        try alice.sync()
        try FileManager.default.moveItem(at: bob.root.appendingPathComponent("s.txt"), to: bob.root.appendingPathComponent("s-bob.txt"))
        try bob.saveAll()
        let bobReport = try bob.sync()
        #expect(try bob.read("s-alice.txt") == "shared text\n" && bob.read("s-bob.txt") == "shared text\n")
        let bobSays = bobReport.documentChanges.map(\.summary)
        #expect(bobSays.contains("s.txt was renamed to s-bob.txt here and to s-alice.txt on alice's device; both names kept"), "\(bobSays)")
        let change = try #require(bobReport.documentChanges.first { $0.kind == .renamedDifferently })
        #expect(change.document.path == "s-alice.txt" && change.renamedFrom?.path == "s.txt" && change.renamedHere?.path == "s-bob.txt")
        #expect(!bobReport.documentChanges.contains { $0.kind == .updated }, "the rename is not an update: \(bobSays)")

        let cli = try docver(["sync", "--json"], in: alice.root)
        #expect(cli.status == 0, "\(cli.stderr)")
        #expect(try JSONSchemaCLITests.validator("sync").problems(in: JSONValue.parse(cli.stdoutData)).isEmpty)
        let json = try #require(try JSONSerialization.jsonObject(with: cli.stdoutData) as? [String: Any])
        let changes = try #require(json["changes"] as? [[String: Any]])
        let renamed = try #require(changes.first { $0["kind"] as? String == "renamedDifferently" }, "\(changes)")
        #expect(renamed["summary"] as? String == "s.txt was renamed to s-alice.txt here and to s-bob.txt on bob's device; both names kept")
        #expect(renamed["document"] as? String == "s-bob.txt")
        #expect(renamed["renamedFrom"] as? String == "s.txt")
        #expect(renamed["renamedHere"] as? String == "s-alice.txt")
        try expectConverged([alice, bob])
    }

    /// Item 6, fuzz seed 5 (40 steps, step 31): a device that renamed nothing is not told its
    /// rename met another. Alice renames `a.txt` to `s.txt`, saves, renames it on to `t.txt`,
    /// saves, and syncs; Bob, who still has `a.txt` as it was, syncs. The second rename removed
    /// `s.txt`, which Bob never had, and Bob holds its contents at another name: he was told
    /// "s.txt was renamed to a.txt here and to t.txt on alice's device". Both renames are
    /// Alice's, and Bob's `a.txt` is the name they both started from.
    @Test func aRenameOfARenameIsNotARenameMetHere() throws {
        let (scratch, devices) = try devices(["alice", "bob"], sharing: [("a.txt", "shared text\n")])
        let (alice, bob) = (devices[0], devices[1])
        defer { withExtendedLifetime(scratch) {} }
        for (from, to) in [("a.txt", "s.txt"), ("s.txt", "t.txt")] { try renameAndSave(alice, from, to: to) }
        try alice.sync()
        try bob.saveText("other\n", to: "b.txt")
        let report = try bob.sync()
        let says = report.documentChanges.map(\.summary)
        #expect(!report.documentChanges.contains { $0.kind == .renamedDifferently }, "\(says)")
        #expect(try bob.read("t.txt") == "shared text\n")
        try alice.sync()
        try expectConverged([alice, bob])
    }

    /// Item 6, long fuzz profile (seeds 196, 212, 275, 278): a rename that reached this device
    /// from another one is not this device's rename. Bob renames `s.txt` to `b.txt`, Alice
    /// syncs it; Carol had renamed it to `c.txt`. When Carol's rename reaches Alice, she is
    /// not told that she renamed `s.txt` to `b.txt` "here".
    @Test func aRenameThatArrivedFromAnotherDeviceIsNotARenameMadeHere() throws {
        let (scratch, devices) = try devices(["alice", "bob", "carol"], sharing: [("s.txt", "shared text\n")])
        let (alice, bob, carol) = (devices[0], devices[1], devices[2])
        defer { withExtendedLifetime(scratch) {} }
        for (device, name) in [(carol, "c.txt"), (bob, "b.txt")] { try renameAndSave(device, "s.txt", to: name) }
        try bob.sync()
        try alice.sync()
        let carolsReport = try carol.sync()
        #expect(
            carolsReport.documentChanges.contains { $0.kind == .renamedDifferently && $0.renamedHere?.path == "c.txt" },
            "\(carolsReport.documentChanges.map(\.summary))")
        let report = try alice.sync()
        let says = report.documentChanges.map(\.summary)
        #expect(!report.documentChanges.contains { $0.kind == .renamedDifferently }, "\(says)")
        #expect(try alice.read("b.txt") == "shared text\n" && alice.read("c.txt") == "shared text\n")
        try bob.sync()
        try expectConverged([alice, bob, carol])
    }

    /// Item 6, long fuzz profile (seed 295): a rename onto a name the two lines' base held (Bob
    /// deleted `n.txt`, then renamed `s.txt` to `n.txt`) met Carol's rename of `s.txt` to `c.txt`.
    /// git's merge reads no rename in Bob's line (`n.txt` was modified), but Bob renamed, in
    /// one save: he is told.
    @Test func aRenameOntoANameTheBaseHeldIsARenameMet() throws {
        let (scratch, devices) = try devices(["alice", "bob", "carol"], sharing: [("s.txt", "shared text\n"), ("n.txt", "notes\n")])
        let (bob, carol) = (devices[1], devices[2])
        defer { withExtendedLifetime(scratch) {} }
        try FileManager.default.removeItem(at: bob.root.appendingPathComponent("n.txt"))
        try bob.saveAll()
        try renameAndSave(bob, "s.txt", to: "n.txt")
        try renameAndSave(carol, "s.txt", to: "c.txt")
        try bob.sync(); try carol.sync()
        let report = try bob.sync()
        expectRenameMet(in: report, theirs: "c.txt", from: "s.txt", here: "n.txt")
        #expect(try bob.read("n.txt") == "shared text\n" && bob.read("c.txt") == "shared text\n")
        try carol.sync()
        try expectConverged([bob, carol])
    }

    /// Item 6, long fuzz profile (seed 287): Carol renames `a.txt` to `f`; Dave's own later
    /// `f` wins that name, and Carol brings her rename back with `replace`. Dave then renames
    /// `a.txt` to `A.txt`. The save that made Carol's `f` what it is was the replace, before
    /// which `f` existed (Dave's), so docver did not count `f` as her rename, and her report
    /// said only "A.txt: updated to dave's". A decision of the device that kept one of its
    /// own versions stands for that version.
    @Test func aRenameBroughtBackByAReplaceIsARenameMet() throws {
        let (scratch, devices) = try devices(["alice", "carol", "dave"], sharing: [("a.txt", "shared text\n")])
        let (carol, dave) = (devices[1], devices[2])
        defer { withExtendedLifetime(scratch) {} }
        let f = try DocumentPath("f")
        try renameAndSave(carol, "a.txt", to: "f")
        let rename = try #require(try carol.currentVersion(of: f)?.id)
        scratch.clock.tick()
        try dave.saveText("dave's own f\n", to: "f")
        try dave.sync()
        try carol.sync()
        try #require(try carol.read("f") == "dave's own f\n", "Dave's later f is current")
        _ = try carol.replace(f, with: rename)
        try carol.sync()
        try renameAndSave(dave, "a.txt", to: "A.txt")
        try dave.sync()
        let report = try carol.sync()
        expectRenameMet(in: report, theirs: "A.txt", from: "a.txt", here: "f")
        #expect(try carol.read("f") == "shared text\n" && carol.read("A.txt") == "shared text\n")
        try dave.sync()
        try expectConverged([carol, dave])
    }

    /// Item 6, long fuzz profile (seed 287, MODEL.md F11): Carol renames `a.txt` to `f`, and
    /// Dave takes her rename. A git user merges Dave's branch into Alice's, who never synced,
    /// and keeps `a.txt` by hand (setting Carol's removal aside) beside `f`; Dave takes that
    /// merge and renames `a.txt` to `A.txt`. No merge base of Carol's head and Dave's rename
    /// holds `a.txt`, so docver did not look for a rename here, and Carol was told only
    /// "A.txt: updated to dave's". Her rename started from a state Dave's rename descends
    /// from: the two renames met.
    @Test func aRenameMetAcrossAPlainMergeThatKeptTheOldNameIsTold() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let (alice, carol, dave) = (
            try scratch.device("alice", remote: remote), try scratch.device("carol", remote: remote),
            try scratch.device("dave", remote: remote)
        )
        try alice.saveText("shared text\n", to: "a.txt")
        for device in [alice, carol, dave] { try device.sync() }
        try renameAndSave(carol, "a.txt", to: "f")
        try carol.sync()
        try dave.sync()
        try #require(!FileManager.default.fileExists(atPath: dave.root.appendingPathComponent("a.txt").path), "Dave took Carol's rename")
        let gitUser = try PlainGitUser(cloning: remote, in: scratch)
        try runGit(["checkout", "-q", "--detach", "refs/remotes/origin/docver/alice"], in: gitUser.clone)
        _ = try runProcess("/usr/bin/git", ["merge", "-q", "--no-ff", "--no-commit", "refs/remotes/origin/docver/dave"], in: gitUser.clone)
        try runGit(["checkout", "HEAD", "--", "a.txt"], in: gitUser.clone)
        try runGit(["commit", "-q", "--no-edit"], in: gitUser.clone)
        try runGit(["push", "-q", "origin", "HEAD:refs/heads/docver/alice"], in: gitUser.clone)
        try dave.sync()
        try #require(try dave.read("a.txt") == "shared text\n" && dave.read("f") == "shared text\n", "Dave took the merge")
        try renameAndSave(dave, "a.txt", to: "A.txt")
        try dave.sync()
        let report = try carol.sync()
        expectRenameMet(in: report, theirs: "A.txt", from: "a.txt", here: "f")
        #expect(try carol.read("f") == "shared text\n" && carol.read("A.txt") == "shared text\n")
        for device in [alice, dave, carol] { try device.sync() }
        try expectConverged([alice, carol, dave])
    }

    /// Item 6, long fuzz profile (seed 167): Dave's rename of `s.txt` to `d.txt` arrives in
    /// conflict with Bob's own `d.txt`, and met Carol's rename of `s.txt` to `c.txt`. Carol's
    /// report keeps the conflict entry and tells the rename/rename beside it; before, the
    /// conflict entry alone was there.
    @Test func aRenameMetThatArrivesInConflictIsToldBesideTheConflict() throws {
        let (scratch, devices) = try devices(["alice", "bob", "carol", "dave"], sharing: [("s.txt", "shared text\n")])
        let (bob, carol, dave) = (devices[1], devices[2], devices[3])
        defer { withExtendedLifetime(scratch) {} }
        try renameAndSave(carol, "s.txt", to: "c.txt")
        try bob.saveText("bob's own d\n", to: "d.txt")
        scratch.clock.tick()
        try renameAndSave(dave, "s.txt", to: "d.txt")
        try bob.sync(); try dave.sync()
        let report = try carol.sync()
        let says = report.documentChanges.map(\.summary)
        #expect(report.documentChanges.contains { $0.document.path == "d.txt" && $0.kind == .conflictVersionKept }, "\(says)")
        #expect(
            report.documentChanges.contains {
                $0.kind == .renamedDifferently && $0.document.path == "d.txt" && $0.renamedFrom?.path == "s.txt" && $0.renamedHere?.path == "c.txt"
            }, "\(says)")
        #expect(report.documentChanges.filter { $0.kind == .renamedDifferently }.count == 1, "\(says)")
        try bob.sync(); try dave.sync(); try carol.sync()
        try expectConverged([bob, carol, dave])
    }

    /// Item 6 after criss-cross integrations (fuzz seed 95, 60 steps, step 44): `s.txt` is
    /// saved on one device's line; each device integrates the other's line before either sees
    /// the other's integration, so their lines have two best common ancestors, and only one of
    /// them holds `s.txt`. Then each renames `s.txt`, to a name of its own. Each is told that
    /// its rename met the other's, whichever ancestor libgit2 names first.
    @Test(arguments: ["alice", "bob"])
    func renamesMetAfterCrissCrossIntegrationsAreReported(savedBy creator: String) throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("base\n", to: "base.txt")
        try alice.sync(); try bob.sync()
        for device in [alice, bob] {
            try device.saveText(
                device.device.id == creator ? "shared text\n" : "\(device.device.id)\n",
                to: device.device.id == creator ? "s.txt" : "\(device.device.id).txt")
            _ = try runGit(["push", "-q", "origin", "docver/\(device.device.id)"], in: device.root)
        }
        for (device, other) in [(alice, bob), (bob, alice)] {
            let branch = "docver/\(other.device.id)"
            try runGit(["fetch", "-q", "origin", "+refs/heads/\(branch):refs/remotes/origin/\(branch)"], in: device.root)
            // (Alice saves once more first: two integrations of the same two saves would be
            // the same commit.)
            if device.device.id == "alice" { try alice.saveText("more\n", to: "more.txt") }
            _ = try device.integrate()
        }
        for device in [alice, bob] {
            try FileManager.default.moveItem(
                at: device.root.appendingPathComponent("s.txt"),
                to: device.root.appendingPathComponent("s-\(device.device.id).txt"))
            try device.saveAll()
        }
        try alice.sync()
        try runGit(["fetch", "-q", "origin", "+refs/heads/docver/alice:refs/test/alice"], in: bob.root)
        let bases = try runGit(["merge-base", "--all", "docver/bob", "refs/test/alice"], in: bob.root)
        #expect(bases.split(separator: "\n").count == 2, "criss-cross: two best common ancestors")
        let bobReport = try bob.sync()
        let aliceReport = try alice.sync()
        try expectConverged([alice, bob])
        #expect(
            bobReport.documentChanges.map(\.summary).contains(
                "s.txt was renamed to s-bob.txt here and to s-alice.txt on alice's device; both names kept"),
            "\(bobReport.documentChanges.map(\.summary))")
        #expect(
            aliceReport.documentChanges.map(\.summary).contains(
                "s.txt was renamed to s-alice.txt here and to s-bob.txt on bob's device; both names kept"),
            "\(aliceReport.documentChanges.map(\.summary))")
    }

    /// Item 7: Alice's `kv set bg` loses to Bob's concurrent, later write. Her sync says so,
    /// in words and in its JSON `changes`.
    @Test func aKeyValueWriteThatLostIsReported() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        #expect(try docver(["kv", "set", "bg", "red"], in: alice.root).status == 0)
        scratch.clock.tick()
        #expect(try docver(["kv", "set", "bg", "blue"], in: bob.root).status == 0)
        #expect(try docver(["sync"], in: bob.root).status == 0)
        let expected = "key bg: your value was replaced by bob's; see 'docver kv history bg'"
        let cli = try docver(["sync", "--json"], in: alice.root)
        #expect(cli.status == 0, "\(cli.stderr)")
        #expect(try KeyValueStore(container: alice).string(forKey: "bg") == "blue")
        #expect(try JSONSchemaCLITests.validator("sync").problems(in: JSONValue.parse(cli.stdoutData)).isEmpty)
        let json = try #require(try JSONSerialization.jsonObject(with: cli.stdoutData) as? [String: Any])
        let changes = try #require(json["changes"] as? [[String: Any]])
        let replaced = try #require(changes.first { $0["key"] as? String == "bg" }, "\(changes)")
        #expect(replaced["kind"] as? String == "keyValueReplaced")
        #expect(replaced["summary"] as? String == expected)
        #expect(replaced["document"] == nil)

        // In words, on the device that integrates the loss itself.
        #expect(try docver(["kv", "set", "bg", "green"], in: alice.root).status == 0)
        scratch.clock.tick()
        #expect(try docver(["kv", "set", "bg", "black"], in: bob.root).status == 0)
        #expect(try docver(["sync"], in: bob.root).status == 0)
        let text = try docver(["sync"], in: alice.root)
        #expect(text.stdout.contains(expected), "\(text.stdout)")
        // Bob, whose value won, is told nothing about bg.
        let bobText = try docver(["sync"], in: bob.root)
        #expect(!bobText.stdout.contains("key bg"), "\(bobText.stdout)")
    }

    /// Devices `names` of one remote, the first having saved `files` and all of them synced.
    /// (The scratch folder lives as long as the returned value.)
    private func devices(_ names: [String], sharing files: [(name: String, text: String)]) throws -> (Scratch, [Container]) {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let devices = try names.map { try scratch.device($0, remote: remote) }
        for file in files { try devices[0].saveText(file.text, to: file.name) }
        for device in devices { try device.sync() }
        return (scratch, devices)
    }

    /// Renames a file of `device`'s working tree and saves every change.
    /// The report tells the rename/rename: `from` was renamed to `here` on this device and to
    /// `theirs` on another.
    private func expectRenameMet(
        in report: SyncReport, theirs: String, from: String, here: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            report.documentChanges.contains {
                $0.kind == .renamedDifferently && $0.document.path == theirs && $0.renamedFrom?.path == from && $0.renamedHere?.path == here
            }, "\(report.documentChanges.map(\.summary))", sourceLocation: sourceLocation)
    }

    private func renameAndSave(_ device: Container, _ from: String, to: String) throws {
        try FileManager.default.moveItem(at: device.root.appendingPathComponent(from), to: device.root.appendingPathComponent(to))
        try device.saveAll()
    }
}
