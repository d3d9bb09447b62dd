internal import Clibgit2
import Foundation

/// Brings a pack of whole objects that holds a big one (as ``PackWriter`` writes them, and git
/// above `core.bigFileThreshold`) from a repository on this machine, a piece at a time
/// (issue 29). libgit2's indexer maps the whole of a big object's packed bytes at once to
/// check them: receiving a 256 MiB document peaked at 298 MB.
///
/// The pack is copied under a temporary name and checked as libgit2's indexer checks a
/// received pack: the pack's checksum, and every object its index lists inflated and hashed
/// to its id, its packed bytes against the index's CRC-32. The index written beside it is
/// made here from what was checked, not copied.
enum PackImport {
    struct Entry {
        var id: ObjectID
        var crc: UInt32
        var offset: UInt64
    }

    /// The entries of the version 2 pack index at `path` when the pack beside it suits this
    /// import: every object stored whole, one of them at least `bigSize` packed bytes. Nil
    /// otherwise (and for an index that cannot be read): the caller uses libgit2's indexer.
    static func candidate(index path: String, pack: String, bigSize: Int64) -> [Entry]? {
        guard let entries = readIndex(path), let packSize = FileStat(path: pack)?.size, packSize >= 32 else { return nil }
        let sorted = entries.sorted { $0.offset < $1.offset }
        var hasBig = false
        for (position, entry) in sorted.enumerated() {
            let end = position + 1 < sorted.count ? sorted[position + 1].offset : UInt64(packSize) - 20
            guard end > entry.offset else { return nil }
            if end - entry.offset >= UInt64(bigSize) { hasBig = true }
        }
        guard hasBig else { return nil }
        for entry in sorted {
            guard let header = PackEntryHeader.read(pack: pack, offset: entry.offset), (1...4).contains(header.type) else { return nil }
        }
        return entries
    }

    /// Copies the pack at `source` into the pack folder `folder` and checks it (see the type's
    /// comment); returns the number of objects. Nothing is left in `folder` on an error.
    /// `copied` receives the bytes copied so far.
    static func importPack(
        _ source: String, entries: [Entry], into folder: String, copied: (Int) -> Void
    ) throws -> Int {
        let (output, temporary) = try PackFile.temporary(in: folder, "tmp_pack_docver_")
        var installed = false
        defer { if !installed { unlink(temporary) } }  // (install removes it itself)
        let checksum: [UInt8]
        do {
            defer { close(output) }
            checksum = try copy(source, to: output, path: temporary, copied: copied)
            guard fsync(output) == 0, fchmod(output, 0o444) == 0 else { throw PackFile.failure("write", temporary) }
        }
        let sorted = entries.sorted { $0.offset < $1.offset }
        guard let packSize = FileStat(path: temporary)?.size else { throw PackFile.failure("read", temporary) }
        for (position, entry) in sorted.enumerated() {
            let end = position + 1 < sorted.count ? sorted[position + 1].offset : UInt64(packSize) - 20
            try check(entry, endingAt: end, in: temporary)
        }
        let name = "pack-" + checksum.map { String(format: "%02x", $0) }.joined()
        let index = try PackWriter.index(of: entries.map { ($0.id, $0.offset, $0.crc) }, packChecksum: checksum)
        installed = true
        try PackFile.install(pack: temporary, index: index, name: name, in: folder)
        return entries.count
    }

    /// Copies `source` into `output` a piece at a time; checks its header and its trailing
    /// checksum, which it returns.
    private static func copy(_ source: String, to output: Int32, path: String, copied: (Int) -> Void) throws -> [UInt8] {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw PackFile.failure("open", source) }
        defer { close(input) }
        var status = stat()
        guard fstat(input, &status) == 0 else { throw PackFile.failure("read", source) }
        let size = Int(status.st_size)
        guard size >= 32 else { throw damaged(source, "it is not a version 2 pack") }
        let hashed = size - 20  // everything but the trailing checksum
        let pieceSize = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: pieceSize, alignment: 16)
        defer { buffer.deallocate() }
        let hasher = SHA1Hasher()
        var header: [UInt8] = []
        var trailer: [UInt8] = []
        var total = 0
        while total < size {
            let count = read(input, buffer, min(pieceSize, size - total))
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw PackFile.failure("read", source) }
            guard count > 0 else { throw damaged(source, "it ended while it was copied") }
            let piece = UnsafeRawBufferPointer(start: buffer, count: count)
            try PackFile.writeAll(output, piece, path: path)
            if header.count < 12 { header += piece.prefix(12 - header.count) }
            let toHash = max(0, min(count, hashed - total))
            hasher.update(UnsafeRawBufferPointer(rebasing: piece.prefix(toHash)))
            trailer += piece.dropFirst(toHash)
            total += count
            copied(total)
        }
        guard header.count == 12, header.prefix(4).elementsEqual("PACK".utf8), header[4..<8].elementsEqual([0, 0, 0, 2]) else {
            throw damaged(source, "it is not a version 2 pack")
        }
        let digest = hasher.finish()
        guard digest == trailer else { throw damaged(source, "its checksum does not match its contents") }
        return digest
    }

    /// Checks one whole object: inflated, it is as long as its header says and hashes to its
    /// id; its packed bytes are the index's CRC-32 and end where the next entry starts.
    private static func check(_ entry: Entry, endingAt end: UInt64, in pack: String) throws {
        guard let header = PackEntryHeader.read(pack: pack, offset: entry.offset), (1...4).contains(header.type) else {
            throw damaged(pack, "the entry of object \(entry.id.hex) cannot be read")
        }
        let hasher = SHA1Hasher()
        hasher.update(Array("\(PackWriter.typeName(header.type)) \(header.size)\0".utf8))
        let consumed = try BlobInflater.inflate(
            file: pack, from: entry.offset + UInt64(header.length), expectedSize: header.size,
            crc: (entry.crc, header.bytes), id: entry.id
        ) { piece in hasher.update(piece) }
        guard entry.offset + UInt64(header.length) + consumed == end else {
            throw damaged(pack, "the entry of object \(entry.id.hex) does not end where the next one starts")
        }
        guard ObjectID(bytes: hasher.finish()) == entry.id else {
            throw damaged(pack, "object \(entry.id.hex) hashes to another id")
        }
    }

    /// The entries of a version 2 pack index, checked for order and size; nil if it is not one.
    static func readIndex(_ path: String) -> [Entry]? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return nil }
        return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> [Entry]? in
            func word(_ offset: Int) -> UInt32 { (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) } }
            let names = 8 + 1024
            guard bytes.count >= names + 40, bytes.prefix(8).elementsEqual([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]) else { return nil }
            let count = Int(word(names - 4))
            guard count > 0, bytes.count >= names + count * 28 + 40 else { return nil }
            let largeStart = names + count * 28
            var entries: [Entry] = []
            entries.reserveCapacity(count)
            var previous: ObjectID?
            for position in 0..<count {
                let start = names + position * 20
                guard let id = ObjectID(bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<start + 20])) else { return nil }
                if let previous, !(previous < id) { return nil }
                previous = id
                var offset = UInt64(word(names + count * 24 + position * 4))
                if offset & 0x8000_0000 != 0 {
                    let large = largeStart + Int(offset & 0x7fff_ffff) * 8
                    guard large + 8 <= bytes.count - 40 else { return nil }
                    offset = UInt64(word(large)) << 32 | UInt64(word(large + 4))
                }
                guard offset >= 12 else { return nil }
                entries.append(Entry(id: id, crc: word(names + count * 20 + position * 4), offset: offset))
            }
            return entries
        }
    }

    private static func damaged(_ pack: String, _ reason: String) -> GitError {
        GitError(code: .invalid, message: "the pack \(pack) is damaged: \(reason); 'git fsck' lists what is damaged", function: "PackImport")
    }
}
