import Foundation

// docs/FORMAT.md, "The version index": the binary file `.git/docver/version-index`.

/// How a document differs between a commit and one of its parents.
enum IndexedChangeKind: UInt8, Sendable {
    /// Absent in the parent, present in the commit.
    case added = 1
    /// Present in the parent, absent in the commit.
    case deleted = 2
    /// Present in both with a different entry (contents, mode, or file↔package).
    case modified = 3
}

/// One commit as the version index records it: facts about an immutable commit.
struct IndexedCommit: Equatable, Sendable {
    var id: ObjectID
    var parents: [ObjectID]
    /// Per parent, in the commit's parent order, the documents that differ from it, sorted by
    /// path bytes; a root commit has one list: its documents against the empty tree.
    var changes: [[(document: String, kind: IndexedChangeKind)]]
    /// Documents named by the commit's document records (conflict, resolution, restore…).
    var mentioned: [String]

    static func == (a: IndexedCommit, b: IndexedCommit) -> Bool {
        a.id == b.id && a.parents == b.parents && a.mentioned == b.mentioned && a.changes.count == b.changes.count
            && zip(a.changes, b.changes).allSatisfy { x, y in
                x.count == y.count && zip(x, y).allSatisfy { $0.document == $1.document && $0.kind == $1.kind }
            }
    }
}

/// The version index file: a header, then segments appended one per update, each holding the
/// commits that update learned, parents before children. Each segment carries its length and
/// a checksum, so a torn or tampered tail is recognized and ignored, never trusted.
///
///     file    = "DVIX" u32(format version) segment*
///     segment = u32(payload length) payload u64(FNV-1a 64 of payload)
///     payload = u32(string count) (u32(byte count) utf8)*
///               u32(commit count) commit*
///     commit  = id(20) u8(parent count) id(20)*
///               u8(list count) (u32(change count) (u32(string) u8(kind))*)*
///               u32(mention count) u32(string)*
///
/// Integers are little-endian; `u32(string)` is an index into the segment's strings.
enum VersionIndexFile {
    static let magic: [UInt8] = Array("DVIX".utf8)
    static let formatVersion: UInt32 = 1

    static var header: Data {
        var writer = Writer()
        writer.bytes(magic)
        writer.u32(formatVersion)
        return writer.data
    }

    /// One segment holding `commits` (parents first).
    static func segment(_ commits: [IndexedCommit]) -> Data {
        var strings: [String] = []
        var stringIDs: [String: UInt32] = [:]
        func intern(_ string: String) -> UInt32 {
            if let known = stringIDs[string] { return known }
            let id = UInt32(strings.count)
            strings.append(string)
            stringIDs[string] = id
            return id
        }
        var body = Writer()
        body.u32(UInt32(commits.count))
        for commit in commits {
            body.bytes(commit.id.bytes)
            body.u8(UInt8(commit.parents.count))
            for parent in commit.parents { body.bytes(parent.bytes) }
            body.u8(UInt8(commit.changes.count))
            for list in commit.changes {
                body.u32(UInt32(list.count))
                for change in list {
                    body.u32(intern(change.document))
                    body.u8(change.kind.rawValue)
                }
            }
            body.u32(UInt32(commit.mentioned.count))
            for document in commit.mentioned { body.u32(intern(document)) }
        }
        var payload = Writer()
        payload.u32(UInt32(strings.count))
        for string in strings {
            let utf8 = Array(string.utf8)
            payload.u32(UInt32(utf8.count))
            payload.bytes(utf8)
        }
        payload.data.append(body.data)
        var segment = Writer()
        segment.u32(UInt32(payload.data.count))
        segment.data.append(payload.data)
        segment.u64(fnv1a(payload.data))
        return segment.data
    }

    /// The contents of a version index file.
    struct Contents {
        /// The commits of every intact segment, in file order.
        var commits: [IndexedCommit]
        /// How many intact segments were read.
        var segments: Int
        /// False when the file ends in a torn, truncated or altered segment (ignored): the next
        /// write must replace the whole file, since appending after it would never be read.
        var intact: Bool
    }

    /// Reads a file; nil when it is not a version index of this format version at all.
    static func decode(_ data: Data) -> Contents? {
        let bytes = [UInt8](data)
        var reader = Reader(bytes: bytes[...])
        guard let head = reader.take(4), Array(head) == magic, reader.u32() == formatVersion else { return nil }
        var contents = Contents(commits: [], segments: 0, intact: true)
        while !reader.isAtEnd {
            guard let length = reader.u32(), let payload = reader.take(Int(length)), let checksum = reader.u64(),
                  checksum == fnv1a(payload), let commits = decodePayload(payload) else {
                contents.intact = false
                break
            }
            contents.commits += commits
            contents.segments += 1
        }
        return contents
    }

    private static func decodePayload(_ payload: ArraySlice<UInt8>) -> [IndexedCommit]? {
        var reader = Reader(bytes: payload)
        guard let stringCount = reader.u32() else { return nil }
        var strings: [String] = []
        for _ in 0..<stringCount {
            guard let count = reader.u32(), let utf8 = reader.take(Int(count)),
                  let string = String(validating: utf8, as: UTF8.self) else { return nil }
            strings.append(string)
        }
        func string(_ id: UInt32?) -> String? { id.flatMap { Int($0) < strings.count ? strings[Int($0)] : nil } }
        guard let commitCount = reader.u32() else { return nil }
        var commits: [IndexedCommit] = []
        for _ in 0..<commitCount {
            guard let id = reader.objectID(), let parentCount = reader.u8() else { return nil }
            var parents: [ObjectID] = []
            for _ in 0..<parentCount {
                guard let parent = reader.objectID() else { return nil }
                parents.append(parent)
            }
            guard let listCount = reader.u8(), Int(listCount) == max(parents.count, 1) else { return nil }
            var changes: [[(document: String, kind: IndexedChangeKind)]] = []
            for _ in 0..<listCount {
                guard let count = reader.u32() else { return nil }
                var list: [(document: String, kind: IndexedChangeKind)] = []
                for _ in 0..<count {
                    guard let document = string(reader.u32()), let kind = reader.u8().flatMap(IndexedChangeKind.init)
                    else { return nil }
                    list.append((document, kind))
                }
                changes.append(list)
            }
            guard let mentionCount = reader.u32() else { return nil }
            var mentioned: [String] = []
            for _ in 0..<mentionCount {
                guard let document = string(reader.u32()) else { return nil }
                mentioned.append(document)
            }
            commits.append(IndexedCommit(id: id, parents: parents, changes: changes, mentioned: mentioned))
        }
        return reader.isAtEnd ? commits : nil
    }

    /// FNV-1a, 64 bits: detects torn writes and stray edits (not an attacker, who could
    /// equally rewrite the repository's own files).
    static func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private struct Writer {
        var data = Data()
        mutating func u8(_ value: UInt8) { data.append(value) }
        mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        mutating func bytes(_ bytes: [UInt8]) { data.append(contentsOf: bytes) }
    }

    private struct Reader {
        var bytes: ArraySlice<UInt8>
        var isAtEnd: Bool { bytes.isEmpty }

        mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, bytes.count >= count else { return nil }
            defer { bytes = bytes.dropFirst(count) }
            return bytes.prefix(count)
        }
        mutating func u8() -> UInt8? { take(1)?.first }
        mutating func u32() -> UInt32? {
            take(4).map { slice in slice.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        }
        mutating func u64() -> UInt64? {
            take(8).map { slice in slice.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        }
        mutating func objectID() -> ObjectID? { take(20).flatMap { ObjectID(bytes: $0) } }
    }
}
