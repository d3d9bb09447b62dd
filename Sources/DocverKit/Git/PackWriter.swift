internal import Clibgit2
import Foundation

/// Writes a pack of whole objects (no deltas), each deflated a piece at a time, and its
/// version 2 index (git's `Documentation/gitformat-pack.txt`), so that memory stays flat
/// whatever the objects' sizes (issue 29). git writes objects above `core.bigFileThreshold`
/// the same way; libgit2's pack builder holds each object whole, and its indexer maps the
/// whole of a big object's packed bytes at once to check them.
///
/// Nothing is visible until ``finish()``: the pack is written under a temporary name in the
/// pack folder, then renamed to `pack-<checksum>.pack`, and its index is renamed into place
/// last, as git and libgit2 do (a pack is part of a repository once its index is there).
final class PackWriter {
    /// git's `pack.compression` default (zlib's).
    static let compressionLevel = Z_DEFAULT_COMPRESSION

    private let folder: String
    private let temporaryPath: String
    private let descriptor: Int32
    /// nil: counted as objects are added, and written into the header by ``finish()``.
    private let expectedCount: Int?
    private let checksum = SHA1Hasher()
    private var written: UInt64 = 0
    private var entries: [(id: ObjectID, offset: UInt64, crc: UInt32)] = []
    private var finished = false
    /// One deflate stream and one output buffer for all objects (reset between them): a
    /// pack of 10,000 small objects set up zlib and a megabyte 10,000 times.
    private var stream = z_stream()
    private let output: UnsafeMutablePointer<UInt8>
    private static let outputSize = 1 << 20
    /// Bytes not yet written to the file (small objects are written 64 KiB at a time).
    private var pending: [UInt8] = []
    private static let pendingLimit = 64 << 10

    /// Starts a pack of `count` objects in the pack folder `folder`; with `count` nil, of as
    /// many objects as are added.
    init(folder: String, count: Int?) throws {
        self.folder = folder
        expectedCount = count
        output = .allocate(capacity: Self.outputSize)
        pending.reserveCapacity(Self.pendingLimit)
        guard deflateInit_(&stream, Self.compressionLevel, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            output.deallocate()
            throw GitError(code: .other(-1), message: "zlib could not start", function: "deflateInit")
        }
        do {
            (descriptor, temporaryPath) = try PackFile.temporary(in: folder, "tmp_pack_docver_")
        } catch {
            deflateEnd(&stream)
            output.deallocate()
            throw error
        }
        var header: [UInt8] = Array("PACK".utf8) + Self.bigEndian32(2) + Self.bigEndian32(UInt32(count ?? 0))
        // (On an error, deinit removes the temporary file.)
        try header.withUnsafeMutableBytes { try write(UnsafeRawBufferPointer($0)) }
    }

    deinit {
        deflateEnd(&stream)
        output.deallocate()
        if !finished {
            close(descriptor)
            unlink(temporaryPath)
        }
    }

    /// The number of objects added so far.
    var count: Int { entries.count }

    /// Adds object `id` of `type` (1 commit, 2 tree, 3 blob, 4 tag) and `size` bytes, which
    /// `contents` passes in order to the function it is given. Throws when the bytes passed
    /// are not `size`, or do not hash to `id`.
    func add(
        _ id: ObjectID, type: UInt8, size: UInt64,
        contents: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        let offset = written
        let header = Self.entryHeader(type: type, size: size)
        var crc = header.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
        try header.withUnsafeBytes { try write($0) }
        let objectHash = SHA1Hasher()
        objectHash.update(Array("\(Self.typeName(type)) \(size)\0".utf8))

        guard deflateReset(&stream) == Z_OK else {
            throw GitError(code: .other(-1), message: "zlib could not start", function: "deflateReset")
        }
        let outputSize = Self.outputSize
        let output = self.output
        var passed: UInt64 = 0
        func run(_ flush: Int32) throws {
            repeat {
                stream.next_out = output
                stream.avail_out = uInt(outputSize)
                let status = deflate(&stream, flush)
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw GitError(code: .other(-1), message: "zlib failed (\(status))", function: "deflate")
                }
                let produced = outputSize - Int(stream.avail_out)
                if produced > 0 {
                    let bytes = UnsafeRawBufferPointer(start: output, count: produced)
                    crc = UInt32(crc32(uLong(crc), output, uInt(produced)))
                    try write(bytes)
                }
                if flush == Z_FINISH, status == Z_STREAM_END { return }
            } while stream.avail_out == 0 || (flush == Z_FINISH)
        }
        try contents { piece in
            guard !piece.isEmpty else { return }
            passed += UInt64(piece.count)
            guard passed <= size else { return }
            objectHash.update(piece)
            // zlib reads 32-bit counts: a piece is given in parts below 4 GiB.
            var rest = piece
            while !rest.isEmpty {
                let part = UnsafeRawBufferPointer(rebasing: rest.prefix(1 << 30))
                stream.next_in = UnsafeMutablePointer(mutating: part.baseAddress!.assumingMemoryBound(to: UInt8.self))
                stream.avail_in = uInt(part.count)
                while stream.avail_in > 0 { try run(Z_NO_FLUSH) }
                rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(part.count))
            }
        }
        guard passed == size else {
            throw GitError(
                code: .modified, message: "object \(id.hex) gave \(passed) bytes, not its \(size)", function: "PackWriter.add")
        }
        stream.next_in = nil
        stream.avail_in = 0
        try run(Z_FINISH)
        guard ObjectID(bytes: objectHash.finish()) == id else {
            throw GitError(
                code: .invalid, message: "object \(id.hex) is damaged: its bytes hash to another id; 'git fsck' lists what is damaged",
                function: "PackWriter.add")
        }
        entries.append((id, offset, crc))
    }

    /// Writes the pack's checksum and its index, and renames both into place. Returns the
    /// pack's name (`pack-<checksum>`).
    func finish() throws -> String {
        if let expectedCount, entries.count != expectedCount {
            throw GitError(
                code: .invalid, message: "a pack of \(expectedCount) objects was given \(entries.count)", function: "PackWriter.finish")
        }
        try flushPending()
        let digest: [UInt8]
        if expectedCount == nil {
            // The header's count is known now: written in, and the checksum taken again
            // from the file (SHA-1 cannot be patched).
            var count = Self.bigEndian32(UInt32(entries.count))
            guard pwrite(descriptor, &count, 4, 8) == 4 else { throw PackFile.failure("write", temporaryPath) }
            digest = try Self.checksum(ofFile: descriptor, length: written, path: temporaryPath)
        } else {
            digest = checksum.finish()
        }
        try digest.withUnsafeBytes { bytes in
            try PackFile.writeAll(descriptor, bytes, path: temporaryPath)
        }
        guard fsync(descriptor) == 0, fchmod(descriptor, 0o444) == 0 else { throw PackFile.failure("write", temporaryPath) }
        finished = true
        close(descriptor)
        let name = "pack-" + digest.map { String(format: "%02x", $0) }.joined()
        try PackFile.install(pack: temporaryPath, index: Self.index(of: entries, packChecksum: digest), name: name, in: folder)
        return name
    }

    /// The SHA-1 of the first `length` bytes of the file open at `descriptor`.
    private static func checksum(ofFile descriptor: Int32, length: UInt64, path: String) throws -> [UInt8] {
        let hasher = SHA1Hasher()
        let size = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        var offset: UInt64 = 0
        while offset < length {
            let count = pread(descriptor, buffer, Int(min(UInt64(size), length - offset)), off_t(offset))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw PackFile.failure("read", path) }
            hasher.update(UnsafeRawBufferPointer(start: buffer, count: count))
            offset += UInt64(count)
        }
        return hasher.finish()
    }

    /// The pack's size so far, in bytes.
    var size: UInt64 { written }

    private func write(_ bytes: UnsafeRawBufferPointer) throws {
        if expectedCount != nil { checksum.update(bytes) }
        written += UInt64(bytes.count)
        if pending.count + bytes.count <= Self.pendingLimit {
            pending.append(contentsOf: bytes)
            return
        }
        try flushPending()
        try PackFile.writeAll(descriptor, bytes, path: temporaryPath)
    }

    private func flushPending() throws {
        guard !pending.isEmpty else { return }
        try pending.withUnsafeBytes { try PackFile.writeAll(descriptor, $0, path: temporaryPath) }
        pending.removeAll(keepingCapacity: true)
    }

    /// A pack entry's header: the type and the size, 4 bits then 7 at a time, low first.
    static func entryHeader(type: UInt8, size: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var byte = type << 4 | UInt8(size & 0x0f)
        var rest = size >> 4
        while rest > 0 {
            bytes.append(byte | 0x80)
            byte = UInt8(rest & 0x7f)
            rest >>= 7
        }
        bytes.append(byte)
        return bytes
    }

    static func typeName(_ type: UInt8) -> String {
        switch type {
        case 1: "commit"
        case 2: "tree"
        case 4: "tag"
        default: "blob"
        }
    }

    /// A version 2 pack index of `entries`.
    static func index(of entries: [(id: ObjectID, offset: UInt64, crc: UInt32)], packChecksum: [UInt8]) throws -> [UInt8] {
        let sorted = entries.sorted { $0.id < $1.id }
        var bytes: [UInt8] = [0xff, 0x74, 0x4f, 0x63] + bigEndian32(2)
        var fanout = [UInt32](repeating: 0, count: 256)
        for entry in sorted { fanout[Int(entry.id.bytes[0])] += 1 }
        var running: UInt32 = 0
        for first in 0..<256 {
            running += fanout[first]
            bytes += bigEndian32(running)
        }
        for entry in sorted { bytes += entry.id.bytes }
        for entry in sorted { bytes += bigEndian32(entry.crc) }
        var large: [UInt64] = []
        for entry in sorted {
            if entry.offset < 0x8000_0000 {
                bytes += bigEndian32(UInt32(entry.offset))
            } else {
                bytes += bigEndian32(0x8000_0000 | UInt32(large.count))
                large.append(entry.offset)
            }
        }
        for offset in large { bytes += bigEndian32(UInt32(offset >> 32)) + bigEndian32(UInt32(offset & 0xffff_ffff)) }
        bytes += packChecksum
        let hasher = SHA1Hasher()
        hasher.update(bytes)
        bytes += hasher.finish()
        return bytes
    }

    static func bigEndian32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

}

/// The files of a pack docver writes (``PackWriter``) or copies (``PackImport``): temporary
/// files in the pack folder, and the installation git and libgit2 rely on.
enum PackFile {
    /// A new file `<prefix>XXXXXX` in `folder`, open for writing.
    static func temporary(in folder: String, _ prefix: String) throws -> (descriptor: Int32, path: String) {
        var template = Array((folder + "/" + prefix + "XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw failure("create a file in", folder) }
        return (descriptor, template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var rest = bytes
        while !rest.isEmpty {
            let count = write(descriptor, rest.baseAddress, rest.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw failure("write", path) }
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(count))
        }
    }

    /// Puts a finished pack (flushed at `temporary`) and its index in place as `name` in
    /// `folder`: the pack first, the index last (a pack is part of a repository once its index
    /// is there), then the folder flushed. A pack of that name already indexed there is the
    /// same contents and is kept. On an error, `temporary` and the renamed pack are removed.
    static func install(pack temporary: String, index: [UInt8], name: String, in folder: String) throws {
        let pack = folder + "/" + name + ".pack"
        let indexPath = folder + "/" + name + ".idx"
        if FileManager.default.fileExists(atPath: indexPath) {
            unlink(temporary)
            return
        }
        guard rename(temporary, pack) == 0 else {
            let error = failure("rename", temporary)
            unlink(temporary)
            throw error
        }
        var temporaryIndex = ""
        do {
            let (descriptor, path) = try Self.temporary(in: folder, "tmp_idx_docver_")
            temporaryIndex = path
            defer { close(descriptor) }
            try index.withUnsafeBytes { try writeAll(descriptor, $0, path: path) }
            guard fsync(descriptor) == 0, fchmod(descriptor, 0o444) == 0 else { throw failure("write", path) }
            guard rename(path, indexPath) == 0 else { throw failure("rename", path) }
        } catch {
            if !temporaryIndex.isEmpty { unlink(temporaryIndex) }
            unlink(pack)
            throw error
        }
        let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    /// An error naming the path in quotes (where `GitError.quotedPath` finds it) and errno.
    static func failure(_ what: String, _ path: String) -> GitError {
        GitError(code: .other(-1), message: "cannot \(what) '\(path)': \(String(cString: strerror(errno)))", function: "PackFile")
    }
}
