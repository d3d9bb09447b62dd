import DocverKit
import Foundation
import Testing

/// `ls` answers from a listing cached per head, tracking branches and signing rule
/// (`.git/docver/document-listing`). It is derived data: deleting it, damaging it or moving
/// the references past it changes nothing the user sees.
@Suite struct ListingCacheCLITests {
    static func listingFile(of container: Container) -> URL {
        container.root.appendingPathComponent(".git/docver/document-listing")
    }

    /// Every form of the listing the tests compare: text, JSON, a filter and a sort.
    static let forms: [[String]] = [
        ["ls"], ["ls", "--json"], ["ls", "--in-conflict"], ["ls", "--sort", "size", "--reverse"],
        ["ls", "--type", "md", "--json"],
    ]

    static func outputs(of container: Container, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        try forms.map { arguments in
            let result = try docver(arguments, in: container.root)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
            return result.stdout
        }
    }

    /// A device with documents in conflict, remote changes it has not integrated, and
    /// documents that only it has (not uploaded): every flag of the listing is set somewhere.
    static func busyDevice(_ scratch: Scratch) throws -> (alice: Container, bob: Container) {
        let (alice, bob, _) = try twoDevicesInConflict(scratch)
        try alice.saveText("a plan\n", to: "plans/plan.md")
        try alice.saveText("twelve bytes", to: "sizes/twelve.txt")
        try alice.sync()
        try bob.sync()
        try bob.saveText("bob's plan\n", to: "plans/plan.md")
        _ = try runGit(["push", "-q", "origin", "docver/bob"], in: bob.root)
        _ = try runGit(["fetch", "-q", "origin"], in: alice.root)
        try alice.saveText("only here\n", to: "local.txt")
        return (alice, bob)
    }

    @Test func deletingTheCachedListingGivesTheSameOutput() throws {
        let scratch = try Scratch()
        let (alice, _) = try Self.busyDevice(scratch)
        let computed = try Self.outputs(of: alice)
        #expect(FileManager.default.fileExists(atPath: Self.listingFile(of: alice).path), "ls stored its listing")
        #expect(computed[0].contains("plan.md") && computed[0].contains("!"), "the listing has its flags: \(computed[0])")
        #expect(try Self.outputs(of: alice) == computed, "answered from the cache")
        try FileManager.default.removeItem(at: Self.listingFile(of: alice))
        #expect(try Self.outputs(of: alice) == computed, "after deleting the cache")
    }

    @Test func aDamagedOrForeignListingIsRecomputedNotTrusted() throws {
        let scratch = try Scratch()
        let (alice, _) = try Self.busyDevice(scratch)
        let computed = try Self.outputs(of: alice)
        let file = Self.listingFile(of: alice)
        let stored = try Data(contentsOf: file)
        // Cut short (one document missing), then garbage, then a header for another head.
        var lines = String(decoding: stored, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        lines.remove(at: 1)
        let damaged = [
            Data(lines.joined(separator: "\n").utf8), Data("docver-document-listing\t1\tgarbage".utf8),
            Data(
                String(decoding: stored, as: UTF8.self)
                    .replacingOccurrences(
                        of: try alice.git(["rev-parse", "docver/alice"]).trimmingCharacters(in: .whitespacesAndNewlines),
                        with: String(repeating: "0", count: 40)
                    ).utf8),
        ]
        for data in damaged {
            try data.write(to: file)
            #expect(try Self.outputs(of: alice) == computed)
        }
    }

    /// The cached listing of the old head is not the answer once the head or a tracking
    /// branch moves (a save, a fetch): the next `ls` computes the new state's listing, taking
    /// from the old one only facts about unchanged objects (a document saved again with
    /// another size shows its new size).
    @Test func aListingOfEarlierReferencesIsNotUsed() throws {
        let scratch = try Scratch()
        let (alice, bob) = try Self.busyDevice(scratch)
        _ = try Self.outputs(of: alice)
        try alice.saveText("a new document\n", to: "new.txt")
        scratch.clock.tick()
        try alice.saveText("only here, and longer than before\n", to: "local.txt")
        try bob.saveText("bob again\n", to: "sizes/twelve.txt")
        _ = try runGit(["push", "-q", "origin", "docver/bob"], in: bob.root)
        for step in ["save", "fetch"] {
            if step == "fetch" { _ = try runGit(["fetch", "-q", "origin"], in: alice.root) }
            let cachedAnswer = try Self.outputs(of: alice)
            try FileManager.default.removeItem(at: Self.listingFile(of: alice))
            #expect(try Self.outputs(of: alice) == cachedAnswer, "after the \(step)")
        }
        #expect(try docver("ls", in: alice.root).stdout.contains("new.txt"))
    }
}
