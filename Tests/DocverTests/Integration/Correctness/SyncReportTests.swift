import DocverKit
import Foundation
import Testing

/// Issue 11, item 7: every sync tells this device, per document, what changed for it —
/// also the device that learns of its loss by a fast-forward to another's integration.
@Suite struct SyncReportTests {
    @Test func theLosingDeviceIsToldItsEditIsNowAConflictVersion() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", name: "Alice's Laptop", remote: remote)
        let bob = try scratch.device("bob", name: "Bob's Phone", remote: remote)
        try alice.write("base\n", to: "notes.txt")
        try alice.write("other\n", to: "other.txt")
        try alice.saveAll()
        try alice.sync(); try bob.sync()

        let aliceEdit = try alice.saveText("alice\n", to: "notes.txt")
        try alice.sync()
        scratch.clock.tick()
        let bobEdit = try bob.saveText("bob\n", to: "notes.txt")
        try bob.saveText("other by bob\n", to: "other.txt")
        let bobReport = try bob.sync()  // Bob integrates: his newer edit wins
        let notes = try DocumentPath("notes.txt")
        let kept = try #require(bobReport.documentChanges.first { $0.document == notes })
        #expect(kept.kind == .conflictVersionKept)
        #expect(kept.version?.id == aliceEdit)
        #expect(kept.current?.id == bobEdit)

        let aliceReport = try alice.sync()  // Alice fast-forwards to Bob's integration
        let lost = try #require(aliceReport.documentChanges.first { $0.document == notes })
        #expect(lost.kind == .yoursIsConflictVersion)
        #expect(lost.version?.id == aliceEdit)
        #expect(lost.current?.id == bobEdit)
        #expect(lost.summary.hasPrefix("notes.txt: your edit is now a conflict version; current is Bob's Phone's"))
        let updated = try #require(aliceReport.documentChanges.first { $0.document.path == "other.txt" })
        #expect(updated.kind == .updated)
        #expect(updated.current?.device.id == "bob")

        // Nothing new: nothing reported.
        #expect(try alice.sync().documentChanges.isEmpty)
        // The CLI says it in words, and where to look next.
        _ = try alice.saveText("alice again\n", to: "other.txt")
        try alice.sync()
        let cli = try docver("sync", in: bob.root)
        #expect(cli.status == 0)
        #expect(cli.stdout.contains("other.txt: updated to Alice's Laptop's (version "), "\(cli.stdout)")
    }

    @Test func aResolutionMadeElsewhereIsReported() async throws {
        let scratch = try Scratch()
        let (alice, bob, notes) = try twoDevicesInConflict(scratch)
        let loser = try #require(try alice.conflicts(notes).first?.conflicts.first)
        _ = try await bob.resolve(notes, using: LatestDateStrategy())
        try bob.sync()
        let report = try alice.sync()
        let change = try #require(report.documentChanges.first { $0.document == notes })
        #expect(change.kind == .resolvedElsewhere)
        #expect(change.version?.id == loser.id)
    }

    /// The demo's shape: Bob's sync records the conflict (Alice's version loses) and Bob
    /// resolves it before Alice syncs. Alice's sync brings the record and its resolution at
    /// once: that is a resolution made elsewhere, not a plain git merge (the report said "set
    /// aside by a plain git merge" about docver's own resolution).
    @Test(arguments: ["merge", "latest-date"])
    func aConflictRecordedAndResolvedElsewhereIsNoPlainMerge(strategy: String) async throws {
        let scratch = try Scratch()
        let (alice, bob, notes) = try twoDevicesInConflict(
            scratch, base: "a\nb\nc\n", alice: "a (alice)\nb\nc\n",
            bob: "a\nb\nc (bob)\n", bothSeeIt: false)
        let loser = try #require(try bob.conflicts(notes).first?.conflicts.first)
        if strategy == "merge" {
            _ = try await bob.resolve(notes, using: MergeStrategy())
        } else {
            _ = try await bob.resolve(notes, using: LatestDateStrategy())
        }
        try bob.sync()
        let report = try alice.sync()
        #expect(!report.documentChanges.contains { $0.kind == .setAsideByPlainMerge }, "\(report.documentChanges.map(\.summary))")
        let change = try #require(report.documentChanges.first { $0.document == notes })
        #expect(change.kind == .resolvedElsewhere, "\(change.summary)")
        #expect(change.version?.id == loser.id)
    }
}
