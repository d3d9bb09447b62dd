import DocverKit
import Foundation
import Testing

/// Issue 25, items 1 and 2: names are bytes, as git sees them. `café.txt` precomposed (NFC,
/// as Linux writes it) and decomposed (NFD, as macOS writes it) are two documents, and so are
/// `Foo.txt` and `foo.txt`, although Swift finds the first pair's strings equal.
@Suite struct ByteNameTests {
    /// Pairs of names that are two documents to git.
    static let pairs: [(String, String)] = [
        ("caf\u{E9}.txt", "cafe\u{301}.txt"),
        ("Foo.txt", "foo.txt"),
    ]
    static let pairIndices = [0, 1]

    /// The documents' contents keyed by their bytes (a `[String: …]` would merge the pair).
    private func contentsByBytes(_ container: Container) throws -> [[UInt8]: String] {
        var result: [[UInt8]: String] = [:]
        for info in try container.documents() {
            if case let .flat(data) = try container.contents(of: info.current) {
                result[Array(info.document.path.utf8)] = String(decoding: data, as: UTF8.self)
            }
        }
        return result
    }

    /// The files in the working tree, as the file system spells their names.
    private func fileNamesOnDisk(_ container: Container) throws -> Set<[UInt8]> {
        Set(try FileManager.default.contentsOfDirectory(atPath: container.root.path).filter { $0 != ".git" }.map { Array($0.utf8) })
    }

    @Test(arguments: pairIndices)
    func bothSpellingsExistingSurviveASyncOfUnrelatedChanges(pair: Int) throws {
        let (first, second) = Self.pairs[pair]
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.write("first\n", to: first)
        try alice.write("second\n", to: second)
        try alice.write("other\n", to: "other.txt")
        try alice.saveAll()
        try alice.sync(); try bob.sync()

        try alice.saveText("other by alice\n", to: "other.txt")
        try bob.saveText("new by bob\n", to: "bob.txt")
        try bob.sync()
        try alice.sync()  // integrates two devices' saves
        try bob.sync()

        for device in [alice, bob] {
            let contents = try contentsByBytes(device)
            #expect(contents[Array(first.utf8)] == "first\n")
            #expect(contents[Array(second.utf8)] == "second\n")
            #expect(contents.count == 4)
            #expect(try fileNamesOnDisk(device).isSuperset(of: [Array(first.utf8), Array(second.utf8)]))
            #expect(try device.conflicts().isEmpty)
            #expect(try device.status().changed.isEmpty)
        }
        try expectConverged([alice, bob])
    }

    @Test(arguments: pairIndices)
    func concurrentCreationsOfTheTwoSpellingsBothSurvive(pair: Int) throws {
        let (first, second) = Self.pairs[pair]
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", name: "Alice", remote: remote)
        let bob = try scratch.device("bob", name: "Bob", remote: remote)
        try alice.saveText("base\n", to: "base.txt")
        try alice.sync(); try bob.sync()

        try alice.saveText("alice\n", to: first)
        try bob.saveText("bob\n", to: second)
        try bob.sync()
        let aliceReport = try alice.sync()
        let bobReport = try bob.sync()

        for device in [alice, bob] {
            let contents = try contentsByBytes(device)
            #expect(contents[Array(first.utf8)] == "alice\n", "\(device.device.id)")
            #expect(contents[Array(second.utf8)] == "bob\n", "\(device.device.id)")
            #expect(try device.conflicts().isEmpty)
        }
        // Each is told only of the other's creation, under its own spelling.
        let aliceLines = aliceReport.documentChanges.map(\.summary)
        #expect(aliceLines.count == 1, "\(aliceLines)")
        #expect(aliceReport.documentChanges.first.map { Array($0.document.path.utf8) } == Array(second.utf8))
        #expect(aliceReport.documentChanges.first?.kind == .updated)
        #expect(aliceReport.documentChanges.first?.current?.device.id == "bob")
        #expect(!aliceLines.contains { $0.contains("deleted") }, "\(aliceLines)")
        let bobLines = bobReport.documentChanges.map(\.summary)
        #expect(bobLines.count == 1, "\(bobLines)")
        #expect(bobReport.documentChanges.first.map { Array($0.document.path.utf8) } == Array(first.utf8))
        #expect(!bobLines.contains { $0.contains("deleted") }, "\(bobLines)")
        try expectConverged([alice, bob])
    }

    /// A rename onto the other spelling is a rename like any other: an edit made meanwhile at
    /// the old name follows it, and the document at the old spelling is gone.
    @Test(arguments: pairIndices)
    func aRenameOntoTheOtherSpellingCarriesAConcurrentEdit(pair: Int) throws {
        let (first, second) = Self.pairs[pair]
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("line one\nline two\nline three\n", to: first)
        try alice.sync(); try bob.sync()

        try FileManager.default.moveItem(atPath: alice.root.path + "/" + first, toPath: alice.root.path + "/" + second)
        try alice.saveAll()
        #expect(try fileNamesOnDisk(alice) == [Array(second.utf8)])
        try alice.sync()
        try bob.saveText("line one\nline two by bob\nline three\n", to: first)
        try bob.sync()
        try alice.sync()

        for device in [alice, bob] {
            let contents = try contentsByBytes(device)
            #expect(contents == [Array(second.utf8): "line one\nline two by bob\nline three\n"], "\(device.device.id)")
            #expect(try fileNamesOnDisk(device) == [Array(second.utf8)], "\(device.device.id)")
            #expect(try device.conflicts().isEmpty)
        }
        try expectConverged([alice, bob])
    }

    @Test(arguments: pairIndices)
    func aConflictOnOneSpellingLeavesTheOtherAlone(pair: Int) async throws {
        let (first, second) = Self.pairs[pair]
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.write("first\n", to: first)
        try alice.write("second\n", to: second)
        try alice.saveAll()
        try alice.sync(); try bob.sync()

        let aliceEdit = try alice.saveText("first by alice\n", to: first)
        try alice.sync()
        scratch.clock.tick()
        try bob.saveText("first by bob\n", to: first)
        try bob.sync()
        try alice.sync()

        for device in [alice, bob] {
            let conflicts = try device.conflicts()
            #expect(conflicts.count == 1, "\(device.device.id)")
            #expect(conflicts.first.map { Array($0.document.path.utf8) } == Array(first.utf8))
            #expect(conflicts.first?.conflicts.map(\.id) == [aliceEdit])
            let contents = try contentsByBytes(device)
            #expect(contents[Array(first.utf8)] == "first by bob\n")
            #expect(contents[Array(second.utf8)] == "second\n")
            #expect(try device.conflicts(DocumentPath(second)).isEmpty)
        }
        try expectConverged([alice, bob])

        let document = try DocumentPath(first)
        _ = try await alice.resolve(document, using: LatestDateStrategy())
        #expect(try alice.conflicts().isEmpty)
        #expect(try contentsByBytes(alice)[Array(second.utf8)] == "second\n")
        try alice.sync(); try bob.sync()
        #expect(try bob.conflicts().isEmpty)
        try expectConverged([alice, bob])
    }

    /// A new device clones a container holding both spellings and sees both documents.
    @Test(arguments: pairIndices)
    func cloneOfAContainerHoldingBothSpellingsWorks(pair: Int) throws {
        let (first, second) = Self.pairs[pair]
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try alice.write("first\n", to: first)
        try alice.write("second\n", to: second)
        try alice.saveAll()
        try alice.sync()
        let bob = try scratch.device("bob", remote: remote)
        try bob.saveText("bob\n", to: "bob.txt")
        try bob.sync(); try alice.sync()

        let target = scratch.path("carol")
        let clone = try docver("clone", remote.path, target.path, "--device", "carol")
        #expect(clone.status == 0, "\(clone.stderr)")
        let carol = try Container(at: target)
        let contents = try contentsByBytes(carol)
        #expect(contents[Array(first.utf8)] == "first\n")
        #expect(contents[Array(second.utf8)] == "second\n")
        #expect(try fileNamesOnDisk(carol).isSuperset(of: [Array(first.utf8), Array(second.utf8)]))
        let listing = try docver("ls", in: target)
        #expect(listing.status == 0, "\(listing.stderr)")
        // Each line ends with the path, in its own bytes.
        let lines = listing.stdoutData.split(separator: UInt8(ascii: "\n")).map { Array($0) }
        for name in [first, second] {
            let suffix = Array(("  " + name).utf8)
            #expect(lines.filter { $0.count >= suffix.count && Array($0.suffix(suffix.count)) == suffix }.count == 1, "\(listing.stdout)")
        }
        try expectConverged([alice, carol])
    }
}
