import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// Issue 29: the packs docver writes itself (big blobs pushed a piece at a time) are packs git
/// and libgit2 read, with the index git would write; a pack docver imports is checked to the
/// byte, and the format's corners (entry headers, offsets past 2 GiB) are right.
@Suite struct PackWriterTests {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func sha1GivesTheKnownDigestsWhateverThePieces() {
        let empty = SHA1Hasher()
        #expect(hex(empty.finish()) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        let abc = SHA1Hasher()
        abc.update(Array("abc".utf8))
        #expect(hex(abc.finish()) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        var random = SeededRandom(seed: 5)
        let data = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let whole = SHA1Hasher()
        whole.update(data)
        let pieces = SHA1Hasher()
        var start = 0
        while start < data.count {
            let end = min(data.count, start + Int.random(in: 1...9_000, using: &random))
            pieces.update(Array(data[start..<end]))
            start = end
        }
        #expect(whole.finish() == pieces.finish())
    }

    @Test func entryHeadersReadBackAsWritten() throws {
        let scratch = try TempRepository()
        let path = scratch.url.path + "/headers"
        for type: UInt8 in [1, 2, 3, 4] {
            for size: UInt64 in [0, 1, 15, 16, 127, 128, 2047, 2048, 1 << 20, (1 << 35) + 3, 1 << 59] {
                let bytes = PackWriter.entryHeader(type: type, size: size)
                try Data(bytes + [0xAA, 0xBB]).write(to: URL(fileURLWithPath: path))
                let header = try #require(PackEntryHeader.read(pack: path, offset: 0))
                #expect(header.type == type && header.size == size && header.bytes == bytes, "type \(type), size \(size)")
            }
        }
    }

    /// Random blobs written into a pack, each given in random pieces: git verifies the pack,
    /// reads every blob, and docver's own readers agree with the index it wrote.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func packsItWritesAreReadByGit(seed: UInt64) throws {
        let scratch = try TempRepository()
        var random = SeededRandom(seed: seed)
        let sizes = [0, 1, 999, BlobInflater.pieceSize + 17, 3 * BlobInflater.pieceSize + Int.random(in: 0...9_999, using: &random)]
        let blobs = sizes.map { size in
            let repetitive = Bool.random(using: &random)
            return Data((0..<size).map { index in repetitive ? UInt8(truncatingIfNeeded: index / 5) : UInt8.random(in: 0...255, using: &random) })
        }
        // Their ids, from a repository that holds them (git's hash).
        let source = try TempRepository("source\(seed)")
        let ids = try blobs.map { try source.repository.writeBlob($0) }
        let folder = scratch.url.path + "/.git/objects/pack"
        let writer = try PackWriter(folder: folder, count: blobs.count)
        for (id, data) in zip(ids, blobs) {
            try writer.add(id, type: 3, size: UInt64(data.count)) { append in
                var start = 0
                while start < data.count {
                    let end = min(data.count, start + Int.random(in: 1...(1 << 20), using: &random))
                    try data[start..<end].withUnsafeBytes { try append($0) }
                    start = end
                }
            }
        }
        let name = try writer.finish()
        let verified = String(decoding: try scratch.git(["verify-pack", "-v", ".git/objects/pack/\(name).pack"]), as: UTF8.self)
        #expect(verified.hasSuffix(": ok\n") && verified.contains("non delta: \(blobs.count) objects"), "\(verified)")
        // git's own index of the same pack is the one written.
        let written = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name).idx"))
        _ = try scratch.git(["index-pack", "-o", scratch.url.path + "/git.idx", ".git/objects/pack/\(name).pack"])
        #expect(try Data(contentsOf: scratch.url.appendingPathComponent("git.idx")) == written)
        let objects = scratch.url.path + "/.git/objects"
        for (id, data) in zip(ids, blobs) {
            #expect(try scratch.git(["cat-file", "blob", id.hex]) == data)
            let inflater = try #require(BlobInflater.find(id, objects: objects))
            var read = Data()
            try inflater.inflate { read.append(contentsOf: $0) }
            #expect(read == data)
        }
        // Imported into another repository: the same pack and index.
        let other = try TempRepository("other\(seed)")
        let entries = try #require(PackImport.readIndex("\(folder)/\(name).idx"))
        let otherFolder = other.url.path + "/.git/objects/pack"
        #expect(try PackImport.importPack("\(folder)/\(name).pack", entries: entries, into: otherFolder) { _ in } == blobs.count)
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(otherFolder)/\(name).idx")) == written)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: "\(otherFolder)/\(name).pack"))
                == Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name).pack")))
    }

    /// Offsets past 2 GiB go to the index's table of large offsets, and read back.
    @Test func offsetsPastTwoGibibytesReadBack() throws {
        let scratch = try TempRepository()
        var random = SeededRandom(seed: 9)
        let offsets: [UInt64] = [12, 0x7fff_ffff, 0x8000_0000, 5 << 30, (1 << 40) + 7]
        let entries = offsets.map { offset in
            (
                id: ObjectID(bytes: (0..<20).map { _ in UInt8.random(in: 0...255, using: &random) })!, offset: offset,
                crc: UInt32.random(in: 0...UInt32.max, using: &random)
            )
        }
        let index = try PackWriter.index(of: entries, packChecksum: [UInt8](repeating: 7, count: 20))
        let path = scratch.url.path + "/test.idx"
        try Data(index).write(to: URL(fileURLWithPath: path))
        let read = try #require(PackImport.readIndex(path))
        #expect(read.map(\.id) == entries.map(\.id).sorted())
        for entry in entries {
            let found = try #require(read.first { $0.id == entry.id })
            #expect(found.offset == entry.offset && found.crc == entry.crc)
            let looked = try #require(PackIndex.lookup(entry.id, index: path))
            #expect(looked.offset == entry.offset && looked.crc == entry.crc)
        }
    }

    /// Bytes that are not the object's (another id, another size) are an error, and leave no
    /// file behind.
    @Test func bytesThatAreNotTheObjectAreRefused() throws {
        let scratch = try TempRepository()
        let data = Data("the real contents\n".utf8)
        let id = try scratch.repository.writeBlob(data)
        let folder = scratch.url.path + "/.git/objects/pack"
        let before = try FileManager.default.contentsOfDirectory(atPath: folder)
        do {
            let writer = try PackWriter(folder: folder, count: 1)
            #expect(throws: GitError.self) {
                try writer.add(id, type: 3, size: UInt64(data.count)) { append in
                    try Data("other contents!!!\n".utf8).withUnsafeBytes { try append($0) }
                }
            }
            #expect(throws: GitError.self) {
                try writer.add(id, type: 3, size: UInt64(data.count + 1)) { append in try data.withUnsafeBytes { try append($0) } }
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == before)
    }

    /// One byte changed anywhere in a pack: the import fails, naming the damage, and leaves
    /// nothing in the destination.
    @Test(arguments: [21, 22, 23, 24, 25, 26] as [UInt64])
    func aDamagedPackIsNotImported(seed: UInt64) throws {
        let scratch = try TempRepository()
        var random = SeededRandom(seed: seed)
        let data = Data((0..<(2 * BlobInflater.pieceSize)).map { _ in UInt8.random(in: 0...255, using: &random) })
        let source = try TempRepository("ids\(seed)")
        let id = try source.repository.writeBlob(data)
        let folder = scratch.url.path + "/.git/objects/pack"
        let writer = try PackWriter(folder: folder, count: 1)
        try writer.add(id, type: 3, size: UInt64(data.count)) { append in try data.withUnsafeBytes { try append($0) } }
        let name = try writer.finish()
        let pack = "\(folder)/\(name).pack"
        chmod(pack, 0o644)
        let size = try #require(FileManager.default.attributesOfItem(atPath: pack)[.size] as? Int)
        let position = UInt64.random(in: 0..<UInt64(size), using: &random)
        let handle = try #require(FileHandle(forUpdatingAtPath: pack))
        try handle.seek(toOffset: position)
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: position)
        handle.write(Data([byte ^ (1 << UInt8.random(in: 0...7, using: &random))]))
        try handle.close()
        let other = try TempRepository("other\(seed)")
        let otherFolder = other.url.path + "/.git/objects/pack"
        let entries = try #require(PackImport.readIndex("\(folder)/\(name).idx"))
        #expect {
            _ = try PackImport.importPack(pack, entries: entries, into: otherFolder) { _ in }
        } throws: { error in
            (error as? GitError)?.code == .invalid && "\(error)".contains("damaged")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: otherFolder).isEmpty)
    }
}
