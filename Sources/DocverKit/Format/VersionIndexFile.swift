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
    /// The committer time in seconds, as recorded: the order of libgit2's revwalk, which
    /// `log DOC` follows without reading every commit.
    var time: Int64 = 0
    /// The commit's tree: whether a document is present at an indexed commit is one tree
    /// lookup, without reading the commit (an integration can be a megabyte of records).
    /// nil only in hand-made test data.
    var tree: ObjectID? = nil

    static func == (a: IndexedCommit, b: IndexedCommit) -> Bool {
        guard a.id == b.id, a.time == b.time, a.tree == b.tree, a.parents == b.parents, a.changes.count == b.changes.count else { return false }
        // (Names are bytes: two spellings of one name are two documents.)
        let mentioned: [ByteString] = a.mentioned.map { ByteString($0) }
        guard mentioned == b.mentioned.map({ ByteString($0) }) else { return false }
        return zip(a.changes, b.changes).allSatisfy { x, y in
            x.count == y.count && zip(x, y).allSatisfy { $0.document.bytesEqual($1.document) && $0.kind == $1.kind }
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
///     commit  = id(20) i64(committer time) id(20, tree) u8(parent count) id(20)*
///               u8(list count) (u32(change count) (u32(string) u8(kind))*)*
///               u32(mention count) u32(string)*
///
/// Integers are little-endian; `u32(string)` is an index into the segment's strings.
/// Format 2 added the committer time and the tree; a file of format 1 is not read, and is rebuilt.
enum VersionIndexFile {
    static let magic: [UInt8] = Array("DVIX".utf8)
    static let formatVersion: UInt32 = 2

    static var header: Data {
        var writer = Writer()
        writer.bytes(magic)
        writer.u32(formatVersion)
        return writer.data
    }

    /// One segment holding `commits` (parents first).
    static func segment(_ commits: [IndexedCommit]) -> Data {
        var strings: [String] = []
        // By bytes: two spellings of a name are two documents (docs/FORMAT.md, "Names").
        var stringIDs: [ByteString: UInt32] = [:]
        func intern(_ string: String) -> UInt32 {
            if let known = stringIDs[ByteString(string)] { return known }
            let id = UInt32(strings.count)
            strings.append(string)
            stringIDs[ByteString(string)] = id
            return id
        }
        var body = Writer()
        body.u32(UInt32(commits.count))
        for commit in commits {
            body.bytes(commit.id.bytes)
            body.u64(UInt64(bitPattern: commit.time))
            body.bytes((commit.tree ?? ObjectID.emptyTree).bytes)
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
        var commits: [IndexedCommit] = []
        var table: [String] = []
        guard
            let read = read(
                data, strings: { table = $0 },
                commit: { record in
                    commits.append(
                        IndexedCommit(
                            id: record.id, parents: record.parents,
                            changes: record.listEnds.indices.map { list in
                                record.changes(ofList: list).map { (table[Int($0.string)], $0.kind) }
                            },
                            mentioned: record.mentioned.map { table[Int($0)] }, time: record.time, tree: record.tree))
                    return true
                })
        else { return nil }
        return Contents(commits: commits, segments: read.segments, intact: read.intact)
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
}

// MARK: Reading record by record

extension VersionIndexFile {
    /// One commit as a segment records it, its documents as numbers in the segment's strings
    /// (``read(_:strings:commit:)``). One value is reused for every commit of a read.
    struct RecordedCommit {
        var id = ObjectID.emptyTree
        var time: Int64 = 0
        var tree = ObjectID.emptyTree
        var parents: [ObjectID] = []
        /// Every change list's entries, list after list (each list in file order: sorted by
        /// path bytes); `listEnds[i]` is where list `i` ends.
        var changes: [(string: UInt32, kind: IndexedChangeKind)] = []
        var listEnds: [Int] = []
        var mentioned: [UInt32] = []

        /// The entries of list `list` (against parent `list`, or the empty tree for a root).
        func changes(ofList list: Int) -> ArraySlice<(string: UInt32, kind: IndexedChangeKind)> {
            changes[(list == 0 ? 0 : listEnds[list - 1])..<listEnds[list]]
        }
    }

    /// Reads a file segment by segment without making a string per change: `strings` is given
    /// each intact segment's strings, then `commit` each of its commits, parents first; a
    /// commit `commit` refuses ends the read (as a torn segment does: `intact` false). Each
    /// segment is checked whole (length, checksum, structure, UTF-8) before anything of it is
    /// given, so a segment is taken whole or not at all, as ``decode(_:)`` takes it.
    /// nil when the file is not a version index of this format version at all.
    static func read(
        _ data: Data, strings: (_ strings: [String]) -> Void, commit: (_ record: borrowing RecordedCommit) -> Bool
    ) -> (segments: Int, intact: Bool)? {
        data.withUnsafeBytes { raw -> (segments: Int, intact: Bool)? in
            let buffer = raw.bindMemory(to: UInt8.self)
            var reader = RawReader(buffer: buffer, position: 0, end: buffer.count)
            guard let head = reader.take(4), head.elementsEqual(magic), reader.u32() == formatVersion else { return nil }
            var segments = 0
            var record = RecordedCommit()
            while reader.position < reader.end {
                guard let length = reader.u32().map(Int.init), length <= reader.end - reader.position,
                    reader.end - reader.position - length >= 8
                else { return (segments, false) }
                let start = reader.position, end = start + length
                var trailer = RawReader(buffer: buffer, position: end, end: end + 8)
                guard let checksum = trailer.u64(), checksum == fnv1a(UnsafeBufferPointer(rebasing: buffer[start..<end])),
                    let table = segmentStrings(buffer, from: start, to: end),
                    recordsAreWellFormed(RawReader(buffer: buffer, position: table.bodyStart, end: end), strings: table.strings.count)
                else { return (segments, false) }
                strings(table.strings)
                var records = RawReader(buffer: buffer, position: table.bodyStart, end: end)
                let commitCount = records.u32() ?? 0
                for _ in 0..<commitCount {
                    guard readRecord(&records, into: &record), commit(record) else { return (segments, false) }
                }
                segments += 1
                reader.position = end + 8
            }
            return (segments, true)
        }
    }

    /// A segment's strings, and where its commits begin; nil when a string is cut or not UTF-8.
    private static func segmentStrings(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int)
        -> (strings: [String], bodyStart: Int)?
    {
        var reader = RawReader(buffer: buffer, position: start, end: end)
        guard let count = reader.u32().map(Int.init), count <= (end - start) / 4 else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(count)
        for _ in 0..<count {
            guard let length = reader.u32().map(Int.init), let utf8 = reader.take(length),
                let string = String(validating: utf8, as: UTF8.self)
            else { return nil }
            strings.append(string)
        }
        return (strings, reader.position)
    }

    /// Whether the commits from `reader`'s position fill the rest of the segment exactly, each
    /// as the format says (string numbers within the table, known kinds, one list per parent).
    private static func recordsAreWellFormed(_ records: RawReader, strings: Int) -> Bool {
        var reader = records
        guard let commitCount = reader.u32() else { return false }
        for _ in 0..<commitCount {
            guard reader.take(48) != nil, let parentCount = reader.u8(), reader.take(20 * Int(parentCount)) != nil,
                let listCount = reader.u8(), Int(listCount) == max(Int(parentCount), 1)
            else { return false }
            for _ in 0..<listCount {
                guard let count = reader.u32().map(Int.init), count <= (reader.end - reader.position) / 5 else { return false }
                for _ in 0..<count {
                    guard let string = reader.u32(), Int(string) < strings, reader.u8().flatMap(IndexedChangeKind.init) != nil
                    else { return false }
                }
            }
            guard let mentionCount = reader.u32().map(Int.init), mentionCount <= (reader.end - reader.position) / 4 else { return false }
            for _ in 0..<mentionCount {
                guard let string = reader.u32(), Int(string) < strings else { return false }
            }
        }
        return reader.position == reader.end
    }

    /// One commit of a segment ``recordsAreWellFormed(_:strings:)`` checked (false only if
    /// the two disagreed).
    private static func readRecord(_ reader: inout RawReader, into record: inout RecordedCommit) -> Bool {
        guard let id = reader.objectID(), let time = reader.u64(), let tree = reader.objectID(), let parentCount = reader.u8()
        else { return false }
        record.id = id
        record.time = Int64(bitPattern: time)
        record.tree = tree
        record.parents.removeAll(keepingCapacity: true)
        for _ in 0..<parentCount {
            guard let parent = reader.objectID() else { return false }
            record.parents.append(parent)
        }
        record.changes.removeAll(keepingCapacity: true)
        record.listEnds.removeAll(keepingCapacity: true)
        guard let listCount = reader.u8() else { return false }
        for _ in 0..<listCount {
            guard let count = reader.u32() else { return false }
            for _ in 0..<count {
                guard let string = reader.u32(), let kind = reader.u8().flatMap(IndexedChangeKind.init) else { return false }
                record.changes.append((string, kind))
            }
            record.listEnds.append(record.changes.count)
        }
        record.mentioned.removeAll(keepingCapacity: true)
        guard let mentionCount = reader.u32() else { return false }
        for _ in 0..<mentionCount {
            guard let string = reader.u32() else { return false }
            record.mentioned.append(string)
        }
        return true
    }
}

// MARK: Reading for one document

extension VersionIndexFile {
    /// Where a commit's change lists lie in the file (the offset of its first list).
    struct ChangeLocation: Sendable {
        var segment: Int
        var offset: Int
    }

    /// A file read for one document (``decode(_:document:)``): every commit with its parents,
    /// but change lists and mentions holding only that document's entries. The file's bytes
    /// are kept so that any commit's whole change lists can be decoded on demand.
    struct DocumentContents {
        var commits: [IndexedCommit]
        /// Per commit of `commits`, where its whole change lists are.
        var locations: [ChangeLocation]
        var bytes: [UInt8]
        /// Per intact segment, the offset of each of its strings (its length field).
        var strings: [[Int]]
        var segments: Int
        var intact: Bool
    }

    /// Reads a file for one document: the checks of ``decode(_:)`` (magic, format version,
    /// each segment's length, checksum and structure), without making a string of any other
    /// document's path. Its cost is a pass over the bytes plus one small record per commit,
    /// where the whole decode interns every path of every change (the root commit alone
    /// lists every document). nil when it is not a version index of this format version.
    static func decode(_ data: Data, document: String) -> DocumentContents? {
        let bytes = [UInt8](data)
        let target = Array(document.utf8)
        var contents = DocumentContents(commits: [], locations: [], bytes: [], strings: [], segments: 0, intact: true)
        let ok = bytes.withUnsafeBufferPointer { buffer -> Bool in
            var reader = RawReader(buffer: buffer, position: 0, end: buffer.count)
            guard let head = reader.take(4), head.elementsEqual(magic), reader.u32() == formatVersion else { return false }
            while reader.position < reader.end {
                guard let length = reader.u32().map(Int.init), length <= reader.end - reader.position,
                    reader.end - reader.position - length >= 8
                else {
                    contents.intact = false
                    break
                }
                let start = reader.position
                var trailer = RawReader(buffer: buffer, position: start + length, end: start + length + 8)
                guard let checksum = trailer.u64(), checksum == fnv1a(UnsafeBufferPointer(rebasing: buffer[start..<(start + length)])),
                    let (commits, locations, strings) = decodePayload(
                        buffer, from: start, to: start + length,
                        segment: contents.segments, target: target, document: document)
                else {
                    contents.intact = false
                    break
                }
                contents.commits += commits
                contents.locations += locations
                contents.strings.append(strings)
                contents.segments += 1
                reader.position = start + length + 8
            }
            return true
        }
        guard ok else { return nil }
        contents.bytes = bytes
        return contents
    }

    private static func decodePayload(
        _ buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, segment: Int,
        target: [UInt8], document: String
    )
        -> (commits: [IndexedCommit], locations: [ChangeLocation], strings: [Int])?
    {
        var reader = RawReader(buffer: buffer, position: start, end: end)
        guard let stringCount = reader.u32().map(Int.init), stringCount <= end - start else { return nil }
        var strings: [Int] = []
        strings.reserveCapacity(stringCount)
        var targetID: UInt32?
        for number in 0..<stringCount {
            strings.append(reader.position)
            guard let count = reader.u32().map(Int.init), let utf8 = reader.take(count) else { return nil }
            if targetID == nil, count == target.count, utf8.elementsEqual(target) { targetID = UInt32(number) }
        }
        guard let commitCount = reader.u32() else { return nil }
        var commits: [IndexedCommit] = []
        var locations: [ChangeLocation] = []
        for _ in 0..<commitCount {
            guard let id = reader.objectID(), let time = reader.u64(), let tree = reader.objectID(),
                let parentCount = reader.u8()
            else { return nil }
            var parents: [ObjectID] = []
            parents.reserveCapacity(Int(parentCount))
            for _ in 0..<parentCount {
                guard let parent = reader.objectID() else { return nil }
                parents.append(parent)
            }
            guard let listCount = reader.u8(), Int(listCount) == max(parents.count, 1) else { return nil }
            locations.append(ChangeLocation(segment: segment, offset: reader.position))
            var changes: [[(document: String, kind: IndexedChangeKind)]] = []
            for _ in 0..<listCount {
                guard let count = reader.u32().map(Int.init), count <= (reader.end - reader.position) / 5 else { return nil }
                var list: [(document: String, kind: IndexedChangeKind)] = []
                for _ in 0..<count {
                    guard let string = reader.u32(), Int(string) < stringCount,
                        let kind = reader.u8().flatMap(IndexedChangeKind.init)
                    else { return nil }
                    if string == targetID { list.append((document, kind)) }
                }
                changes.append(list)
            }
            guard let mentionCount = reader.u32().map(Int.init), mentionCount <= (reader.end - reader.position) / 4 else { return nil }
            var mentioned: [String] = []
            for _ in 0..<mentionCount {
                guard let string = reader.u32(), Int(string) < stringCount else { return nil }
                if string == targetID { mentioned.append(document) }
            }
            commits.append(
                IndexedCommit(
                    id: id, parents: parents, changes: changes, mentioned: mentioned,
                    time: Int64(bitPattern: time), tree: tree))
        }
        return reader.position == end ? (commits, locations, strings) : nil
    }

    /// The whole first change list of the commit at `location` (against its first parent),
    /// decoded from bytes ``decode(_:document:)`` already checked.
    static func firstChangeList(in bytes: [UInt8], strings: [[Int]], at location: ChangeLocation)
        -> [(document: String, kind: IndexedChangeKind)]?
    {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = RawReader(buffer: buffer, position: location.offset, end: buffer.count)
            let table = strings[location.segment]
            guard let count = reader.u32() else { return nil }
            var list: [(document: String, kind: IndexedChangeKind)] = []
            list.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let string = reader.u32().map(Int.init), string < table.count,
                    let kind = reader.u8().flatMap(IndexedChangeKind.init)
                else { return nil }
                var text = RawReader(buffer: buffer, position: table[string], end: buffer.count)
                guard let length = text.u32().map(Int.init), let utf8 = text.take(length),
                    let path = String(validating: utf8, as: UTF8.self)
                else { return nil }
                list.append((path, kind))
            }
            return list
        }
    }

    /// Little-endian reads from a buffer, each checked against `end`.
    private struct RawReader {
        let buffer: UnsafeBufferPointer<UInt8>
        var position: Int
        let end: Int

        mutating func take(_ count: Int) -> UnsafeBufferPointer<UInt8>? {
            guard count >= 0, end - position >= count else { return nil }
            defer { position += count }
            return UnsafeBufferPointer(rebasing: buffer[position..<(position + count)])
        }
        mutating func u8() -> UInt8? {
            guard position < end else { return nil }
            defer { position += 1 }
            return buffer[position]
        }
        mutating func u32() -> UInt32? {
            guard end - position >= 4 else { return nil }
            defer { position += 4 }
            return UnsafeRawPointer(buffer.baseAddress! + position).loadUnaligned(as: UInt32.self).littleEndian
        }
        mutating func u64() -> UInt64? {
            guard end - position >= 8 else { return nil }
            defer { position += 8 }
            return UnsafeRawPointer(buffer.baseAddress! + position).loadUnaligned(as: UInt64.self).littleEndian
        }
        mutating func objectID() -> ObjectID? { take(20).flatMap { ObjectID(bytes: $0) } }
    }
}
