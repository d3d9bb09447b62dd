import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// The wire form of the answers the agent serves (`ls`, `conflicts`): what is decoded is
/// exactly what was encoded, whatever the names and dates hold.
@Suite struct ListingTextTests {
    static func version(_ seed: Int, document: String, deletion: Bool = false) -> DocumentVersion {
        let commit = ObjectID(hex: String(repeating: String(seed % 10), count: 40))!
        return DocumentVersion(
            id: commit.hex, document: DocumentPath(trusted: document),
            device: Device(unchecked: "\u{301}dev-\(seed)", name: "Name %09 with\ttab, 100% \u{e9}t\u{e9}\n\(seed)"),
            modified: Date(timeIntervalSinceReferenceDate: 0.1 * Double(seed) + 1e-7),
            size: Int64(seed) * 1_000_003, kind: seed % 2 == 0 ? .flat : .package, isDeletion: deletion,
            commitID: commit, entryID: deletion ? nil : ObjectID(hex: String(repeating: "f", count: 40)))
    }

    static let names = [
        "a.txt", "notes/%20 odd\tname.md", "b%0A.txt", "%", "d\u{301}ej\u{e0}/vu.pages", "line\nbreak\rreturn", "\u{301}combining/\u{301}start.txt",
    ]

    @Test func documentsRoundTrip() throws {
        let items = Self.names.enumerated().map { index, name in
            MetadataItem(
                document: DocumentPath(trusted: name), created: Date(timeIntervalSinceReferenceDate: -1e9 / Double(index + 3)),
                current: Self.version(index, document: name, deletion: index == 3),
                hasUnresolvedConflicts: index % 2 == 0,
                syncStatus: SyncStatus(isUploaded: index % 3 == 0, hasRemoteChanges: index % 3 == 1))
        }
        #expect(ListingText.decodeItems(ListingText.encode(items)) == items)
        #expect(ListingText.decodeItems(ListingText.encode([MetadataItem]())) == [])
    }

    /// The listing as the generic reader reads it: split into fields, then each field read as
    /// a String (what `decodeItems` did before it read bytes).
    static func readFieldByField(_ data: Data) -> [MetadataItem]? {
        var items: [MetadataItem] = []
        for line in ListingText.lines(data) {
            let start = line.startIndex
            guard line.count == 15, let created = ListingText.date(line[start + 1]),
                let current = ListingText.version(line.dropFirst(5))
            else { return nil }
            items.append(
                MetadataItem(
                    document: DocumentPath(trusted: ListingText.unescape(line[start])), created: created,
                    current: current, hasUnresolvedConflicts: line[start + 2] == "1",
                    syncStatus: SyncStatus(isUploaded: line[start + 3] == "1", hasRemoteChanges: line[start + 4] == "1")))
        }
        return items
    }

    /// Reading a listing's bytes directly gives what reading it field by field gives, for
    /// listings as written and for damaged ones (signs, capitals, cut or invalid UTF-8 bytes,
    /// stray separators): the same items, or nil for both.
    @Test func readingBytesAgreesWithReadingFields() throws {
        var items = Self.names.enumerated().map { index, name in
            MetadataItem(
                document: DocumentPath(trusted: name), created: Date(timeIntervalSinceReferenceDate: -1e9 / Double(index + 3)),
                current: Self.version(index, document: Self.names[(index + index % 2) % Self.names.count], deletion: index == 3),
                hasUnresolvedConflicts: index % 2 == 0,
                syncStatus: SyncStatus(isUploaded: index % 3 == 0, hasRemoteChanges: index % 3 == 1))
        }
        items += items
        let encoded = [UInt8](ListingText.encode(items))
        #expect(ListingText.decodeItems(Data(encoded)) == Self.readFieldByField(Data(encoded)))
        var random = SeededRandom(seed: UInt64(ProcessInfo.processInfo.environment["DOCVER_UNIT_SEED"] ?? "") ?? 12)
        let replacements: [[UInt8]] = [
            [0x09], [0x0A], [0x25], Array("A".utf8), Array("+".utf8), Array("-".utf8), Array("1".utf8),
            Array("0".utf8), [0xFF], [0xC3], Array("%25".utf8), [], Array("ffffffffffffffffff".utf8),
        ]
        var agreed = 0
        for _ in 0..<400 {
            var bytes = encoded
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                bytes.replaceSubrange(
                    at..<min(bytes.count, at + Int.random(in: 0...2, using: &random)),
                    with: replacements.randomElement(using: &random)!)
            }
            let data = Data(bytes)
            let expected = Self.readFieldByField(data)
            #expect(ListingText.decodeItems(data) == expected, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            if expected != nil { agreed += 1 }
        }
        #expect(agreed > 20, "some damaged listings still read (\(agreed)), so their items were compared")
    }

    @Test func conflictsRoundTrip() throws {
        let conflicts = Self.names.enumerated().map { index, name in
            let versions = (0...index).map { Self.version(index * 7 + $0, document: name, deletion: $0 == 1) }
            let bases = Dictionary(uniqueKeysWithValues: versions.dropFirst().map { ($0.id, Self.version(index + 40, document: name)) })
            return Conflict(document: DocumentPath(trusted: name), current: versions[0], conflicts: Array(versions.dropFirst()), bases: bases)
        }
        #expect(ListingText.decodeConflicts(ListingText.encode(conflicts)) == conflicts)
    }

    /// `versions DOC` reads one document's block of the cached listing: the same conflict the
    /// whole listing holds for it, none for a document without one (even one whose name
    /// begins another's), and nothing at all from a listing of another head.
    @Test func oneDocumentsConflictIsReadAloneFromTheListing() throws {
        let sorted = Self.names.sorted()
        let conflicts = sorted.enumerated().map { index, name in
            let versions = (0...index % 3 + 1).map { Self.version(index * 5 + $0, document: name, deletion: $0 == 2) }
            let bases = Dictionary(uniqueKeysWithValues: versions.dropFirst().map { ($0.id, Self.version(index + 40, document: name)) })
            return Conflict(document: DocumentPath(trusted: name), current: versions[0], conflicts: Array(versions.dropFirst()), bases: bases)
        }
        let head = String(repeating: "ab", count: 20)
        let data = ListingText.encodeListing(format: 4, head: head, trust: nil, conflicts: conflicts)
        for conflict in conflicts {
            let found = ListingText.decodeListing(data, format: 4, head: head, trust: nil, document: conflict.document.path)
            #expect(found == .some(conflict), "\(conflict.document.path)")
        }
        for absent in ["a", "a.tx", "a.txt.bak", "zzz", "%2"] {
            #expect(ListingText.decodeListing(data, format: 4, head: head, trust: nil, document: absent) == .some(nil), "\(absent)")
        }
        #expect(ListingText.decodeListing(data, format: 4, head: String(repeating: "cd", count: 20), trust: nil, document: "a.txt") == nil)
        let empty = ListingText.encodeListing(format: 4, head: head, trust: nil, conflicts: [])
        #expect(ListingText.decodeListing(empty, format: 4, head: head, trust: nil, document: "a.txt") == .some(nil))
    }

    /// `status` reads only each document's count from the cached listing: the counts of the
    /// conflicts the whole listing decodes to, in order; nothing from another head's listing or
    /// from a damaged one.
    @Test func conflictCountsAreReadWithoutTheVersions() throws {
        let conflicts = Self.names.sorted().enumerated().map { index, name in
            let versions = (0...index % 4 + 1).map { Self.version(index * 3 + $0, document: name, deletion: $0 == 2) }
            let bases = Dictionary(uniqueKeysWithValues: versions.dropFirst(index % 2 + 1).map { ($0.id, Self.version(index + 40, document: name)) })
            return Conflict(document: DocumentPath(trusted: name), current: versions[0], conflicts: Array(versions.dropFirst()), bases: bases)
        }
        let head = String(repeating: "ab", count: 20)
        let data = ListingText.encodeListing(format: 5, head: head, trust: "key", conflicts: conflicts)
        let counts = try #require(ListingText.decodeConflictCounts(data, format: 5, head: head, trust: "key"))
        #expect(counts.map(\.document) == conflicts.map(\.document.path))
        #expect(counts.map(\.conflicts) == conflicts.map(\.conflicts.count))
        #expect(ListingText.decodeConflictCounts(data, format: 5, head: head, trust: nil) == nil)
        #expect(ListingText.decodeConflictCounts(data, format: 4, head: head, trust: "key") == nil)
        #expect(
            ListingText.decodeConflictCounts(
                ListingText.encodeListing(format: 5, head: head, trust: nil, conflicts: []),
                format: 5, head: head, trust: nil)?.isEmpty == true)
        let text = String(decoding: data, as: UTF8.self)
        // A block short of its lines, a base where a version belongs, a block without its header.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for damaged in [
            lines.dropLast(3).joined(separator: "\n") + "\n", text.replacingOccurrences(of: "\nB\t", with: "\nV\t"),
            text.replacingOccurrences(of: "\nC\t", with: "\nX\t"),
        ] {
            #expect(ListingText.decodeConflictCounts(Data(damaged.utf8), format: 5, head: head, trust: "key") == nil)
        }
    }

    @Test func damagedAnswersAreRefusedNotMisread() throws {
        let item = MetadataItem(
            document: DocumentPath(trusted: "a.txt"), created: Date(timeIntervalSinceReferenceDate: 5),
            current: Self.version(1, document: "a.txt"), hasUnresolvedConflicts: false,
            syncStatus: SyncStatus(isUploaded: true, hasRemoteChanges: false))
        let text = String(decoding: ListingText.encode([item]), as: UTF8.self)
        #expect(ListingText.decodeItems(Data(text.dropLast(30).utf8)) == nil)
        #expect(ListingText.decodeItems(Data(text.replacingOccurrences(of: "\t", with: " ").utf8)) == nil)
        let conflict = Conflict(
            document: DocumentPath(trusted: "a.txt"), current: Self.version(1, document: "a.txt"),
            conflicts: [Self.version(2, document: "a.txt")], bases: [:])
        let conflictText = String(decoding: ListingText.encode([conflict]), as: UTF8.self)
        let lines = conflictText.split(separator: "\n")
        #expect(ListingText.decodeConflicts(Data(lines.dropLast().joined(separator: "\n").utf8)) == nil)
    }
}
