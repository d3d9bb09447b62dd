import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// Conflict and version records (docs/FORMAT.md, "Conflict records and resolution trailers"):
/// `VERSION BASE PATH` and `VERSION PATH` values, written and read back.
@Suite struct RecordTests {
    @Test(arguments: Seeds.make(6, salt: 10))
    func conflictRecordsRoundTripThroughTheirTrailer(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<300 {
            let path = "d" + random.awkwardString(length: 0...30)
            let record = ConflictRecord(path: path, version: random.hexID(), base: Bool.random(using: &random) ? nil : random.hexID())
            let trailer = record.trailer
            #expect(trailer.key == Trailer.conflict)
            #expect(ConflictRecord(trailerValue: trailer.value) == record, "seed \(seed): \(trailer.value.debugDescription)")
            #expect(
                trailer.value.split(separator: " ", omittingEmptySubsequences: false).count == 3,
                "the value is exactly three fields: \(trailer.value.debugDescription)")
        }
    }

    @Test(arguments: Seeds.make(6, salt: 11))
    func versionRecordsRoundTripUnderEveryRecordKey(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<300 {
            let record = VersionRecord(path: "d" + random.awkwardString(length: 0...30), version: random.hexID())
            let key = [Trailer.resolved, Trailer.removed, Trailer.replaced, Trailer.restored].randomElement(using: &random)!
            let trailer = record.trailer(key)
            #expect(trailer.key == key)
            #expect(VersionRecord(trailerValue: trailer.value) == record, "seed \(seed): \(trailer.value.debugDescription)")
        }
    }

    @Test func conflictTrailerHasTheDocumentedForm() {
        let version = String(repeating: "c", count: 40), base = String(repeating: "b", count: 40)
        #expect(ConflictRecord(path: "trip notes.txt", version: version, base: base).trailer.value == "\(version) \(base) trip%20notes.txt")
        #expect(ConflictRecord(path: "a", version: version, base: nil).trailer.value == "\(version) - a")
        #expect(VersionRecord(path: "100%", version: version).trailer(Trailer.resolved).value == "\(version) 100%25")
    }

    @Test func dashBaseMeansTheDocumentDidNotExistAtTheBase() throws {
        let record = try #require(ConflictRecord(trailerValue: "\(Self.idA) - notes.txt"))
        #expect(record.base == nil)
        #expect(record.path == "notes.txt")
        #expect(try #require(ConflictRecord(trailerValue: "\(Self.idA) \(Self.idD) notes.txt")).base == Self.idD)
    }

    @Test func pathMayHoldUnencodedSpacesAfterTheLastField() throws {
        // The path is the rest of the line; a writer that forgot to encode still reads back.
        #expect(try #require(ConflictRecord(trailerValue: "\(Self.idA) - my notes.txt")).path == "my notes.txt")
        #expect(try #require(VersionRecord(trailerValue: "\(Self.idA) my notes.txt")).path == "my notes.txt")
    }

    static let idA = String(repeating: "a", count: 40), idD = String(repeating: "d", count: 40)

    /// (docs/MODEL.md: R27.)
    @Test func idsThatAreNotFullLowercaseCommitIDsAreMalformed() {
        for id in [
            "abc", String(repeating: "A", count: 40), String(repeating: "a", count: 39), String(repeating: "g", count: 40),
            String(repeating: "a", count: 41),
        ] {
            #expect(ConflictRecord(trailerValue: "\(id) - notes.txt") == nil, "\(id)")
            #expect(ConflictRecord(trailerValue: "\(Self.idA) \(id) notes.txt") == nil, "base \(id)")
            #expect(VersionRecord(trailerValue: "\(id) notes.txt") == nil, "\(id)")
        }
    }

    @Test func conflictValuesWithTooFewFieldsAreMalformed() {
        for value in ["", "abc", "abc -", "abc - ", "abc def", " "] {
            #expect(ConflictRecord(trailerValue: value) == nil, "\(value.debugDescription)")
        }
    }

    @Test func versionValuesWithTooFewFieldsAreMalformed() {
        for value in ["", "abc", "abc ", " "] {
            #expect(VersionRecord(trailerValue: value) == nil, "\(value.debugDescription)")
        }
    }

    @Test func badPercentEncodingMakesARecordMalformed() {
        for path in ["a%ZZ", "a%4", "%", "b%G1"] {
            #expect(ConflictRecord(trailerValue: "abc - \(path)") == nil, "\(path)")
            #expect(VersionRecord(trailerValue: "abc \(path)") == nil, "\(path)")
        }
    }

    /// `log` counts conflict records without parsing them into strings: the count must say
    /// what parsing says, for well-formed, malformed and oddly spaced values.
    @Test func wellFormednessIsWhatParsingSays() {
        let id = String(repeating: "a1", count: 20), other = String(repeating: "0f", count: 20)
        let values = [
            "\(id) - a.txt", "\(id) \(other) dir/a.txt", "\(id)  -  a.txt", " \(id) - a.txt", "\(id) - a b.txt",
            "\(id) -", "\(id) - ", "\(id)", "", " ", "\(id) \(id)", "\(id) x a.txt", "\(id.uppercased()) - a.txt",
            "\(id) - a%20b.txt", "\(id) - a%2.txt", "\(id) - a%zz.txt", "\(id) - %FF", "\(id) - d\u{e9}j\u{e0}.txt",
            "\(id) - \u{301}start.txt", "\(id) \u{301}- a.txt", "\(id)\t- a.txt", "\(id) -  two spaces.txt",
        ]
        for value in values {
            #expect(ConflictRecord.isWellFormed(trailerValue: value) == (ConflictRecord(trailerValue: value) != nil), "\(value)")
        }
    }

    @Test func conflictRecordNamesItsVersionWithoutTheBase() {
        let record = ConflictRecord(path: "x", version: "v1", base: "b1")
        #expect(record.versionRecord == VersionRecord(path: "x", version: "v1"))
        // Two records of the same version with different bases are different records...
        #expect(record != ConflictRecord(path: "x", version: "v1", base: nil))
        // ...but name the same version.
        #expect(ConflictRecord(path: "x", version: "v1", base: nil).versionRecord == record.versionRecord)
    }

    @Test func commitsExposeTheirWellFormedRecordsOnly() throws {
        let scratch = try TempRepository()
        let version = String(repeating: "a", count: 40)
        let commit = try scratch.commit(
            tree: scratch.tree(["x": "1"]), at: 0,
            records: [
                (Trailer.conflict, "\(version) - my%20doc.txt"),
                (Trailer.conflict, "\(version) broken"),
                (Trailer.resolved, "\(version) my%20doc.txt"),
                (Trailer.resolved, "\(version) bad%Z0"),
                (Trailer.removed, "\(version) other.txt"),
            ])
        let object = try scratch.repository.commit(commit)
        #expect(object.conflictRecords == [ConflictRecord(path: "my doc.txt", version: version, base: nil)])
        #expect(object.records(Trailer.resolved) == [VersionRecord(path: "my doc.txt", version: version)])
        #expect(object.records(Trailer.removed) == [VersionRecord(path: "other.txt", version: version)])
        #expect(object.records(Trailer.replaced).isEmpty)
    }

    @Test func commitDeviceComesFromTrailersThenFromTheAuthor() throws {
        let scratch = try TempRepository()
        let tree = try scratch.tree(["x": "1"])
        let saved = try scratch.repository.commit(scratch.commit(tree: tree, device: "alice", at: 0))
        #expect(saved.device == Device(unchecked: "alice", name: "alice's device"))

        let integration = CommitIdentity.integration(at: testDate(0))
        var message = CommitMessage(subject: "Integrate")
        message.trailers = [(Trailer.integration, "1")]
        let merged = try scratch.repository.commit(
            scratch.repository.createCommit(
                tree: tree, parents: [], author: integration, committer: integration, message: message.render()))
        #expect(merged.device.id == "docver")

        let plain = Repository.Identity(name: "Bob B", email: "bob-phone@docver", time: testDate(0), offsetMinutes: 0)
        let byAuthor = try scratch.repository.commit(
            scratch.repository.createCommit(
                tree: tree, parents: [], author: plain, committer: plain, message: "Plain\n"))
        #expect(byAuthor.device == Device(unchecked: "bob-phone", name: "Bob B"))

        let stranger = Repository.Identity(name: "Carol", email: "carol@example.com", time: testDate(0), offsetMinutes: 0)
        let foreign = try scratch.repository.commit(
            scratch.repository.createCommit(
                tree: tree, parents: [], author: stranger, committer: stranger, message: "Plain\n"))
        #expect(foreign.device == Device(unchecked: "carol@example.com", name: "Carol"))
    }
}
