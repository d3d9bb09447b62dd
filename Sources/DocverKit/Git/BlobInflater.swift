internal import Clibgit2
import Foundation

/// Reads a big blob a piece at a time, straight from the file that stores it, so that memory
/// stays flat whatever the blob's size (issue 29). libgit2 inflates every object whole: a
/// checkout of a 1 GiB document held the blob, then a copy of it.
///
/// Two storages are read: a loose object (`objects/xx/…`, one zlib stream of `blob <size>\0`
/// and the bytes) and a blob stored whole in a pack (found through the pack's version 2
/// index; its packed bytes are checked against the index's CRC-32). A blob stored as a delta
/// (git and libgit2 never make deltas of files above `core.bigFileThreshold`, 512 MiB), in
/// an alternate object store, or in a version 1 index is not read here: ``find(_:objects:)``
/// answers nil and the caller reads it through libgit2.
struct BlobInflater {
    enum Storage: Equatable {
        /// A loose object file.
        case loose(path: String)
        /// A whole (undeltified) blob at `offset` in `pack`, its packed bytes' CRC-32 `crc`.
        case packed(pack: String, offset: UInt64, crc: UInt32)
    }

    let id: ObjectID
    let storage: Storage

    /// How much is inflated at a time.
    static let pieceSize = 1 << 20

    /// Where `id` is stored in the object folder `objects` (`.git/objects`), if it can be read
    /// a piece at a time.
    static func find(_ id: ObjectID, objects: String) -> BlobInflater? {
        let hex = id.hex
        let loose = objects + "/" + hex.prefix(2) + "/" + hex.dropFirst(2)
        if FileStat(path: loose) != nil { return BlobInflater(id: id, storage: .loose(path: loose)) }
        let packs = objects + "/pack"
        for name in ((try? FileSystem.contentsOfDirectory(packs)) ?? []).sorted() where name.hasSuffix(".idx") {
            let base = packs + "/" + name.dropLast(".idx".count)
            guard let (offset, crc) = PackIndex.lookup(id, index: base + ".idx") else { continue }
            let pack = base + ".pack"
            // Only a whole blob: a delta (or another type) is left to libgit2.
            guard let header = PackEntryHeader.read(pack: pack, offset: offset), header.type == 3 else { return nil }
            return BlobInflater(id: id, storage: .packed(pack: pack, offset: offset, crc: crc))
        }
        return nil
    }

    /// Inflates the blob, passing its bytes to `sink` in order, a piece at a time. Throws on a
    /// damaged or truncated object (after passing what it read before the damage: callers
    /// write into a temporary file they discard on error).
    func inflate(into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        switch storage {
        case let .loose(path):
            try Self.inflate(file: path, from: 0, expectedSize: nil, crc: nil, id: id, into: sink)
        case let .packed(pack, offset, crc):
            guard let header = PackEntryHeader.read(pack: pack, offset: offset), header.type == 3 else {
                throw Self.damaged(id, pack, "its entry header cannot be read")
            }
            try Self.inflate(
                file: pack, from: offset + UInt64(header.length), expectedSize: header.size,
                crc: (crc, header.bytes), id: id, into: sink)
        }
    }

    /// The zlib stream at `start` in `path`: a loose object (`expectedSize` nil: its header
    /// says the size, and is skipped) or a packed blob's (`crc`: the index's CRC-32 of the
    /// entry and the entry header's bytes, which it covers).
    /// Returns how many compressed bytes the stream took.
    @discardableResult
    static func inflate(
        file path: String, from start: UInt64, expectedSize: UInt64?, crc expected: (UInt32, [UInt8])?,
        id: ObjectID, into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> UInt64 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw damaged(id, path, "it cannot be opened: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let input = UnsafeMutablePointer<UInt8>.allocate(capacity: pieceSize)
        let output = UnsafeMutablePointer<UInt8>.allocate(capacity: pieceSize)
        defer { input.deallocate(); output.deallocate() }
        var stream = z_stream()
        guard inflateInit_(&stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw damaged(id, path, "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var crc: uLong = expected.map { header in header.1.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) } } ?? 0
        var position = off_t(start)
        var size = expectedSize
        var header: [UInt8] = []  // a loose object's "blob <size>\0", until its NUL
        var passed: UInt64 = 0
        while true {
            if stream.avail_in == 0 {
                let count = pread(descriptor, input, pieceSize, position)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw damaged(id, path, count < 0 ? String(cString: strerror(errno)) : "it ends before the object does") }
                position += off_t(count)
                stream.next_in = input
                stream.avail_in = uInt(count)
            }
            let before = stream.next_in!
            let availableBefore = stream.avail_in
            stream.next_out = output
            stream.avail_out = uInt(pieceSize)
            let status = Clibgit2.inflate(&stream, Z_NO_FLUSH)
            guard status == Z_OK || status == Z_STREAM_END || (status == Z_BUF_ERROR && stream.avail_in == 0) else {
                throw damaged(id, path, "its compressed bytes are damaged (zlib \(status))")
            }
            if expected != nil { crc = crc32(crc, before, availableBefore - stream.avail_in) }
            var produced = UnsafeRawBufferPointer(start: output, count: pieceSize - Int(stream.avail_out))
            if size == nil, !produced.isEmpty {
                // A loose object's header comes first.
                guard let nul = produced.firstIndex(of: 0) else {
                    header += produced
                    guard header.count < 64 else { throw damaged(id, path, "its header is not a blob's") }
                    continue
                }
                header += produced[..<nul]
                let text = String(decoding: header, as: UTF8.self)
                guard text.hasPrefix("blob "), let declared = UInt64(text.dropFirst(5)) else {
                    throw damaged(id, path, "its header is not a blob's")
                }
                size = declared
                produced = UnsafeRawBufferPointer(rebasing: produced[(nul + 1)...])
            }
            if !produced.isEmpty {
                passed += UInt64(produced.count)
                guard let size, passed <= size else { throw damaged(id, path, "it holds more bytes than its size") }
                try sink(produced)
            }
            if status == Z_STREAM_END { break }
        }
        guard let size, passed == size else { throw damaged(id, path, "it holds fewer bytes than its size") }
        if let expected, UInt32(truncatingIfNeeded: crc) != expected.0 {
            throw damaged(id, path, "its packed bytes do not match the pack index's checksum")
        }
        return UInt64(position) - start - UInt64(stream.avail_in)
    }

    private static func damaged(_ id: ObjectID, _ path: String, _ reason: String) -> GitError {
        GitError(
            code: .invalid, message: "object \(id.hex) in \(path) is damaged: \(reason); 'git fsck' lists what is damaged",
            function: "inflate")
    }
}

/// A lookup in a pack's version 2 index (git's `Documentation/gitformat-pack.txt`): the
/// offset of an object in the pack, and the CRC-32 of its packed bytes.
enum PackIndex {
    static func lookup(_ id: ObjectID, index path: String) -> (offset: UInt64, crc: UInt32)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        func read(_ count: Int, at offset: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return got == count ? bytes : nil
        }
        func word(_ bytes: ArraySlice<UInt8>) -> UInt32 { bytes.reduce(0) { $0 << 8 | UInt32($1) } }
        guard let header = read(8, at: 0), header == [0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2],
            let fanout = read(1024, at: 8)
        else { return nil }
        let raw = withUnsafeBytes(of: id.raw.id) { Array($0) }
        let count = Int(word(fanout[1020..<1024]))
        let first = Int(raw[0])
        var low = first == 0 ? 0 : Int(word(fanout[(first - 1) * 4..<first * 4]))
        var high = Int(word(fanout[first * 4..<first * 4 + 4]))
        let names = 8 + 1024
        while low < high {
            let middle = (low + high) / 2
            guard let name = read(20, at: names + middle * 20) else { return nil }
            if name == raw {
                guard let crc = read(4, at: names + count * 20 + middle * 4),
                    let small = read(4, at: names + count * 24 + middle * 4)
                else { return nil }
                var offset = UInt64(word(small[...]))
                if offset & 0x8000_0000 != 0 {
                    let large = Int(offset & 0x7fff_ffff)
                    guard let wide = read(8, at: names + count * 28 + large * 8) else { return nil }
                    offset = wide.reduce(0) { $0 << 8 | UInt64($1) }
                }
                return (offset, word(crc[...]))
            }
            if name.lexicographicallyPrecedes(raw) { low = middle + 1 } else { high = middle }
        }
        return nil
    }
}

/// The header of a pack entry: its type (1 commit, 2 tree, 3 blob, 4 tag, 6 and 7 deltas),
/// its inflated size, and its bytes.
struct PackEntryHeader {
    var type: UInt8
    var size: UInt64
    var bytes: [UInt8]
    var length: Int { bytes.count }

    static func read(pack path: String, offset: UInt64) -> PackEntryHeader? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 16)
        let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 16, off_t(offset)) }
        guard got > 0 else { return nil }
        var index = 0
        var byte = buffer[0]
        let type = (byte >> 4) & 0x7
        var size = UInt64(byte & 0x0f)
        var shift: UInt64 = 4
        while byte & 0x80 != 0 {
            index += 1
            guard index < got, shift < 64 else { return nil }
            byte = buffer[index]
            size |= UInt64(byte & 0x7f) << shift
            shift += 7
        }
        return PackEntryHeader(type: type, size: size, bytes: Array(buffer[...index]))
    }
}

extension Repository {
    /// Blobs of this size or more are read a piece at a time where their storage allows.
    static let pieceByPieceSize: Int64 = 8 << 20

    /// Passes blob `id`'s bytes to `sink` in order: a big one (``pieceByPieceSize``) a piece
    /// at a time where ``BlobInflater`` can read it, any other whole, without a copy.
    ///
    /// A file that cannot be read before any byte was passed (a pack that `git gc` removed
    /// meanwhile) leaves the blob to libgit2, which finds it where it is now.
    func readBlob(_ id: ObjectID, into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        if try blobSize(id) >= Self.pieceByPieceSize, let inflater = BlobInflater.find(id, objects: gitDirectory + "objects") {
            var passed = false
            do {
                try inflater.inflate { piece in
                    passed = true
                    try sink(piece)
                }
                return
            } catch  where !passed {
                // (Nothing passed yet: libgit2 reads it below.)
            }
        }
        try blob(id).withUnsafeBytes(sink)
    }

    /// Copies blob `id` from `source` into this repository a piece at a time when it is big
    /// (``pieceByPieceSize``) and ``BlobInflater`` can read it there; the copy is written
    /// under the id its bytes hash to, which must be `id`. False when it was not copied so.
    func copyBigBlob(_ id: ObjectID, from source: Repository) throws -> Bool {
        let size = try source.blobSize(id)
        guard size >= Self.pieceByPieceSize, let inflater = BlobInflater.find(id, objects: source.gitDirectory + "objects") else {
            return false
        }
        let written = try writeBlob(size: size) { append in try inflater.inflate(into: append) }
        guard written == id else {
            throw GitError(
                code: .invalid, message: "object \(id.hex) is damaged: its bytes hash to \(written.hex); 'git fsck' lists what is damaged",
                function: #function)
        }
        return true
    }
}
