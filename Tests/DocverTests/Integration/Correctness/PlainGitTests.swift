import DocverKit
import Foundation
import Testing

/// Issue 11 item 8: what commits made with plain git mean to docver (docs/FORMAT.md, "Merges
/// made with plain git" and "Records from plain git").
@Suite struct PlainGitTests {
    /// Alice and Bob edit `notes.txt` concurrently and push their branches without
    /// integrating; a git user clones the remote, merges Bob's branch into Alice's with
    /// `merging` (e.g. `-X ours`), and pushes the merge on a branch of their own.
    private func plainMerge(
        _ scratch: Scratch, base baseText: String = "one\ntwo\nthree\n",
        alice aliceText: String = "one\ntwo (alice)\nthree\n",
        bob bobText: String = "one\ntwo (bob)\nthree\n", file bobFile: String = "notes.txt",
        merging options: [String]
    ) throws -> (alice: Container, bob: Container, bobVersion: String) {
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText(baseText, to: "notes.txt")
        try alice.sync(); try bob.sync()
        try alice.saveText(aliceText, to: "notes.txt")
        scratch.clock.tick()
        let bobVersion = try bob.saveText(bobText, to: bobFile)
        _ = try alice.git(["push", "-q", "origin", "docver/alice"])
        _ = try bob.git(["push", "-q", "origin", "docver/bob"])
        let work = scratch.path("plain")
        _ = try runGit(["clone", "-q", remote.path, work.path], in: scratch.url)
        _ = try runGit(["checkout", "-q", "-b", "merged", "origin/docver/alice"], in: work)
        _ = try runGit(["merge", "-q", "--no-edit"] + options + ["origin/docver/bob"], in: work)
        _ = try runGit(["push", "-q", "origin", "merged:docver/gituser"], in: work)
        return (alice, bob, bobVersion)
    }

    /// `git merge -X ours` keeps Alice's edit whole and drops Bob's. Every device fast-forwards
    /// to the merge; Bob's edit is listed by `versions --all` as a resolved conflict version on
    /// every device, and both syncs say it was set aside.
    /// (docs/MODEL.md: R13, R14.)
    @Test func aPlainMergeThatDropsASideListsAndReportsIt() throws {
        let scratch = try Scratch()
        let (alice, bob, bobVersion) = try plainMerge(scratch, merging: ["-X", "ours"])
        let notes = try DocumentPath("notes.txt")
        for device in [alice, bob] {
            let report = try device.sync()
            #expect(try device.read("notes.txt") == "one\ntwo (alice)\nthree\n")
            #expect(
                try device.resolvedConflictVersions(of: notes).map(\.id) == [bobVersion],
                "Bob's dropped edit is listed by versions --all on \(device.device.id)")
            #expect(try device.unresolvedConflictVersions(of: notes).isEmpty, "a merge by a git user is a resolution")
            let setAside = report.documentChanges.filter { $0.kind == .setAsideByPlainMerge }
            #expect(setAside.map(\.version?.id) == [bobVersion], "the sync of \(device.device.id) says Bob's edit was set aside")
            #expect(setAside.first?.summary.contains("plain git merge") == true)
        }
        try expectConverged([alice, bob])
        // The dropped edit can be brought back like any resolved conflict version.
        _ = try alice.replace(notes, with: bobVersion)
        #expect(try alice.read("notes.txt") == "one\ntwo (bob)\nthree\n")
    }

    /// A plain merge of edits of different documents sets nothing aside, and a merge whose
    /// result is new content made of both sides sets nothing aside either.
    @Test(arguments: [false, true])
    func aPlainMergeThatKeepsBothSidesSetsNothingAside(sameDocument: Bool) throws {
        let scratch = try Scratch()
        let (alice, bob, _) =
            sameDocument
            ? try plainMerge(scratch, alice: "one (alice)\ntwo\nthree\n", bob: "one\ntwo\nthree (bob)\n", merging: [])
            : try plainMerge(scratch, bob: "other\n", file: "other.txt", merging: [])
        for device in [alice, bob] {
            let report = try device.sync()
            #expect(!report.documentChanges.contains { $0.kind == .setAsideByPlainMerge })
            #expect(try device.resolvedConflictVersions(of: DocumentPath("notes.txt")).isEmpty)
        }
        if sameDocument { #expect(try alice.read("notes.txt") == "one (alice)\ntwo\nthree (bob)\n") }
        try expectConverged([alice, bob])
    }

    /// `git merge -X ours` of edits that overlap only in part: the merge's result is new
    /// content holding all of Alice's changes and one of Bob's two. Bob's edit is set aside
    /// (listed by `versions --all`, reported by the sync); Alice's is not.
    /// (docs/MODEL.md: R15.)
    @Test func aPlainMergeThatKeepsPartOfASideSetsThatSideAside() throws {
        let scratch = try Scratch()
        let (alice, bob, bobVersion) = try plainMerge(
            scratch, base: "one\ntwo\nthree\nfour\nfive\n",
            alice: "one (alice)\ntwo\nthree (alice)\nfour\nfive\n",
            bob: "one (bob)\ntwo\nthree\nfour\nfive (bob)\n", merging: ["-X", "ours"])
        let notes = try DocumentPath("notes.txt")
        for device in [alice, bob] {
            let report = try device.sync()
            #expect(try device.read("notes.txt") == "one (alice)\ntwo\nthree (alice)\nfour\nfive (bob)\n")
            #expect(
                try device.resolvedConflictVersions(of: notes).map(\.id) == [bobVersion],
                "Bob's partly dropped edit is listed on \(device.device.id)")
            #expect(report.documentChanges.filter { $0.kind == .setAsideByPlainMerge }.map(\.version?.id) == [bobVersion])
        }
        try expectConverged([alice, bob])
    }

    /// A git user commits a document that still has conflict markers: it becomes current, and
    /// the sync that brings it says so.
    /// (In a flat document, and in a text file of a file package.)
    @Test(arguments: ["notes.txt", "trip.notes/text.txt"])
    func aPlainCommitWithConflictMarkersIsReported(file: String) throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try alice.write("one\n", to: file)
        _ = try alice.saveAll()
        try alice.sync()
        let work = scratch.path("plain")
        _ = try runGit(["clone", "-q", remote.path, work.path], in: scratch.url)
        _ = try runGit(["checkout", "-q", "-b", "mine", "origin/docver/alice"], in: work)
        try Data("<<<<<<< ours\none\n=======\nuno\n>>>>>>> theirs\n".utf8).write(to: work.appendingPathComponent(file))
        _ = try runGit(["commit", "-q", "-am", "half-finished merge"], in: work)
        _ = try runGit(["push", "-q", "origin", "mine:docver/gituser"], in: work)
        let report = try alice.sync()
        let document = file.split(separator: "/").first.map(String.init) ?? file
        let change = try #require(report.documentChanges.first { $0.document.path == document })
        #expect(change.kind == .updated)
        #expect(change.containsConflictMarkers)
        #expect(change.summary.contains("conflict markers"))
    }

    /// Conflict and resolution records typed into a plain commit (no device trailers), or
    /// naming versions that do not exist, are ignored with a warning: the conflict stays open
    /// on every device and every command keeps working.
    @Test(arguments: ["plain", "missing version"])
    func forgedRecordsAreIgnoredWithAWarning(kind: String) throws {
        let scratch = try Scratch()
        let (alice, bob, notes) = try twoDevicesInConflict(scratch)
        let open = try alice.unresolvedConflictVersions(of: notes).map(\.id)
        try #require(open.count == 1)

        let work = scratch.path("plain")
        _ = try runGit(["clone", "-q", scratch.path("remote.git").path, work.path], in: scratch.url)
        _ = try runGit(["checkout", "-q", "-b", "mine", "origin/docver/alice"], in: work)
        try Data("forged\n".utf8).write(to: work.appendingPathComponent("other.txt"))
        _ = try runGit(["add", "other.txt"], in: work)
        let missing = String(repeating: "ab", count: 20)
        let message =
            kind == "plain"
            ? "tidy up\n\nDocver-Resolved: \(open[0]) notes.txt\nDocver-Removed: \(open[0]) notes.txt\nDocver-Conflict: \(open[0]) - other.txt\n"
            : "tidy up\n\nDocver-Device: bob\nDocver-Removed: \(missing) notes.txt\nDocver-Resolved: \(missing) notes.txt\n"
                + "Docver-Integration: 1\nDocver-Conflict: \(missing) - notes.txt\n"
        _ = try runGit(["commit", "-q", "-m", message], in: work)
        _ = try runGit(["push", "-q", "origin", "mine:docver/gituser"], in: work)

        for device in [alice, bob] {
            let report = try device.sync()
            #expect(report.warnings.contains { $0.contains("ignored") }, "the sync of \(device.device.id) warns: \(report.warnings)")
            #expect(try device.unresolvedConflictVersions(of: notes).map(\.id) == open)
            #expect(try device.unresolvedConflictVersions(of: DocumentPath("other.txt")).isEmpty)
            _ = try device.status()
            _ = try device.history(of: notes)
            _ = try device.conflicts()
        }
        try expectConverged([alice, bob])
        try expectFsckClean(alice.root)
    }

    /// A plain `git commit` in a device's checkout goes through the commit hook, which names
    /// the device: it is a save of that device, but decision records typed into its message
    /// were made by no resolution. They are ignored with a warning, and the conflict stays
    /// open everywhere.
    /// (docs/MODEL.md: R26.)
    @Test func decisionRecordsTypedIntoAPlainCommitThroughTheHookAreIgnored() throws {
        let scratch = try Scratch()
        let (alice, bob, notes) = try twoDevicesInConflict(scratch)
        let open = try alice.unresolvedConflictVersions(of: notes).map(\.id)
        try #require(open.count == 1)
        try plainCommitOfAnotherDocument(on: alice, typing: "Docver-Resolved: \(open[0]) notes.txt\nDocver-Removed: \(open[0]) notes.txt\n")
        let trailers = try alice.git(["log", "-1", "--format=%(trailers:only,unfold)"])
        #expect(trailers.contains("Docver-Device: alice"), "the hook marked the commit as a save of alice: \(trailers)")
        for device in [alice, bob] {
            let report = try device.sync()
            #expect(
                try device.unresolvedConflictVersions(of: notes).map(\.id) == open,
                "a typed record closed the conflict on \(device.device.id)")
            if device.device.id == "bob" {
                #expect(report.warnings.contains { $0.contains("ignored") }, "the sync of bob warns: \(report.warnings)")
            }
        }
        #expect(try bob.read("other.txt") == "tidied\n", "the commit is still a save of alice")
        try expectConverged([alice, bob])
    }
}

extension PlainGitTests {
    /// R26 for the commands that name a version (`show`, `restore`, `replace`): a plain commit
    /// that changed another document but carries a decision record typed by hand about
    /// `notes.txt` is no version of `notes.txt` (docs/MODEL.md, finding F8).
    @Test func aDecisionRecordTypedIntoAPlainCommitMakesNoVersionOfItsDocument() throws {
        let scratch = try Scratch()
        let (alice, _, notes) = try twoDevicesInConflict(scratch)
        let open = try alice.unresolvedConflictVersions(of: notes).map(\.id)
        try #require(open.count == 1)
        let plain = try plainCommitOfAnotherDocument(on: alice, typing: "Docver-Resolved: \(open[0]) notes.txt\n")
        #expect(throws: DocverError.versionOfAnotherDocument(version: plain, document: "notes.txt")) {
            try alice.version(plain, of: notes)
        }
        // A resolution docver made is a version of the document it decided about.
        let resolution = try alice.markResolved(notes)
        #expect(try alice.version(resolution.id, of: notes).id == resolution.id)
    }

    /// A plain `git commit` in Alice's checkout (through the commit hook) that saves
    /// `other.txt` and carries `records` typed into its message; returns its id.
    @discardableResult
    private func plainCommitOfAnotherDocument(on alice: Container, typing records: String) throws -> String {
        try alice.write("tidied\n", to: "other.txt")
        _ = try alice.git(["add", "other.txt"])
        _ = try alice.git(["commit", "-q", "-m", "tidy up\n\n" + records])
        return try alice.git(["rev-parse", "HEAD"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
