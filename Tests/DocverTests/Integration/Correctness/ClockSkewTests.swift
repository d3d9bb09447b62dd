import Foundation
import Testing

@testable import DocverKit

/// Issue 25, item 5: dates never run backwards along history, and a device whose clock is
/// ahead is named (docs/FORMAT.md, "Dates"; docs/RESOLVING.md, "A wrong clock").
@Suite struct ClockSkewTests {
    private static let year = 365 * 86_400

    /// The committer and author dates (seconds since 1970) of a commit, as plain git reads them.
    private func dates(_ commit: String, in device: Container) throws -> (author: Int, committer: Int) {
        let fields = try device.git(["show", "-s", "--format=%at %ct", commit]).split(separator: " ")
        return (Int(fields[0].trimmingCharacters(in: .whitespacesAndNewlines))!, Int(fields[1].trimmingCharacters(in: .whitespacesAndNewlines))!)
    }

    /// Bob's clock is a year ahead. Alice's save made after integrating Bob's save is ordered
    /// after it (committer date), keeps her wall clock (author date), and `log` lists every
    /// commit before its parents, also once Bob saved again concurrently.
    @Test func aSaveAfterIntegratingAFutureDatedSaveIsDatedAfterIt() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote).dated(0)
        let bob = try scratch.device("bob", remote: remote).dated(Self.year)
        try alice.saveText("one\n", to: "a.txt")
        try alice.sync()
        let bobSave = try bob.saveText("bob\n", to: "b.txt")
        try bob.sync()
        try alice.sync()
        let aliceSave = try alice.saveText("two\n", to: "a.txt")
        let saved = try dates(aliceSave, in: alice), parent = try dates(bobSave, in: alice)
        #expect(saved.committer > parent.committer, "a save is ordered after the save it descends from")
        #expect(saved.author == 1_750_000_000, "the author date keeps Alice's wall clock")
        for commit in try alice.git(["rev-list", "HEAD"]).split(separator: "\n") {
            let child = try dates(String(commit), in: alice)
            // An integration keeps its newest parent's date (docs/FORMAT.md, "Dates"); any
            // other commit is dated after each of its parents.
            let isIntegration = try alice.git(["show", "-s", "--format=%ce", String(commit)]) == "docver@docver\n"
            for parentID in try alice.git(["rev-list", "--no-walk", "--parents", String(commit)]).split(separator: " ").dropFirst() {
                let parentDates = try dates(parentID.trimmingCharacters(in: .whitespacesAndNewlines), in: alice)
                if isIntegration {
                    #expect(child.committer >= parentDates.committer, "\(commit) is dated before its parent")
                } else {
                    #expect(child.committer > parentDates.committer, "\(commit) is dated after its parent")
                }
            }
        }

        // Bob saves again on his own line; Alice integrates it: her log lists each commit
        // before the commits it descends from.
        try bob.saveText("bob again\n", to: "b.txt")
        try bob.sync()
        try alice.sync()
        let log = try alice.log().map(\.id)
        for (position, id) in log.enumerated() {
            let parents = try alice.git(["rev-list", "--no-walk", "--parents", id]).split(separator: " ").dropFirst()
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            for parentID in parents {
                let parentPosition = try #require(log.firstIndex(of: parentID))
                #expect(parentPosition > position, "log lists \(id.prefix(12)) after its parent \(parentID.prefix(12))")
            }
        }
        try expectFsckClean(alice.root)
    }

    /// A sync that receives a save dated more than five minutes ahead names the device, once
    /// per device while its clock stays ahead; once its saves are dated right again, a later
    /// jump ahead is named again.
    @Test func aDeviceWhoseClockIsAheadIsNamedOnce() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote).dated(0)
        let bobDevice = try scratch.device("bob", remote: remote)
        try alice.saveText("one\n", to: "a.txt")
        try alice.sync()
        try bobDevice.dated(Self.year).saveText("bob\n", to: "b.txt")
        try bobDevice.sync()
        let warning = "bob's clock is 365 days ahead of this one; its saves win latest-date contests until it is fixed"
        let first = try alice.sync()
        #expect(first.warnings.filter { $0 == warning }.count == 1, "\(first.warnings)")

        try bobDevice.dated(Self.year + 60).saveText("bob 2\n", to: "b.txt")
        try bobDevice.sync()
        let second = try alice.sync()
        #expect(!second.warnings.contains { $0.contains("clock") }, "told once: \(second.warnings)")

        // Bob's clock is fixed: nothing to say. Then it jumps ahead again: named again.
        try bobDevice.dated(30).saveText("bob 3\n", to: "b.txt")
        try bobDevice.sync()
        let fixed = try alice.sync()
        #expect(!fixed.warnings.contains { $0.contains("clock") }, "\(fixed.warnings)")
        try bobDevice.dated(2 * 86_400).saveText("bob 4\n", to: "b.txt")
        try bobDevice.sync()
        let again = try alice.sync()
        #expect(
            again.warnings.contains("bob's clock is 2 days ahead of this one; its saves win latest-date contests until it is fixed"),
            "\(again.warnings)")

        // The CLI (on this machine's clock) says it on stderr, and its JSON has it.
        var ahead = bobDevice
        ahead.commitClock = CommitClock { Date().addingTimeInterval(TimeInterval(2 * Self.year)) }
        try ahead.saveText("bob 5\n", to: "b.txt")
        try ahead.sync()
        let carol = try scratch.device("carol", remote: remote)
        let json = try docver(["sync", "--json"], in: carol.root)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout.contains("bob's clock is 730 days ahead of this one"), "\(json.stdout)")
        let dave = try scratch.device("dave", remote: remote)
        let text = try docver(["sync"], in: dave.root)
        #expect(text.status == 0)
        #expect(text.stderr.contains("bob's clock is 730 days ahead of this one"), "\(text.stderr)")
    }
}
