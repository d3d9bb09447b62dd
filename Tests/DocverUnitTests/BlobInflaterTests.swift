import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// Issue 29: big blobs are read a piece at a time from their loose file or their pack, and
/// give the bytes libgit2 gives; what cannot be read so (a delta) is left to libgit2, and a
/// damaged pack entry is an error, never other bytes.
@Suite struct BlobInflaterTests {
    /// Random blobs: empty, small, across the 1 MiB piece boundary, compressible or not.
    private static func blobs(seed: UInt64) -> [Data] {
        var random = SeededRandom(seed: seed)
        let sizes = [
            0, 1, 100, BlobInflater.pieceSize - 1, BlobInflater.pieceSize + 1, 3 * BlobInflater.pieceSize + Int.random(in: 0...999, using: &random),
        ]
        return sizes.map { size in
            let repetitive = Bool.random(using: &random)
            return Data((0..<size).map { index in repetitive ? UInt8(truncatingIfNeeded: index / 7) : UInt8.random(in: 0...255, using: &random) })
        }
    }

    private func collect(_ inflater: BlobInflater) throws -> Data {
        var result = Data()
        try inflater.inflate { result.append(contentsOf: $0) }
        return result
    }

    /// Packs `ids` with `git pack-objects` (window 0: no deltas, unless `deltas`) and removes
    /// their loose files.
    private func pack(_ ids: [ObjectID], in scratch: TempRepository, deltas: Bool = false) throws {
        let git = scratch.url.appendingPathComponent(".git").path
        let input = ids.map(\.hex).joined(separator: "\n") + "\n"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["--git-dir", git, "pack-objects", "-q"] + (deltas ? [] : ["--window=0"]) + [git + "/objects/pack/pack"]
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let prune = Process()
        prune.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        prune.arguments = ["--git-dir", git, "prune-packed", "-q"]
        try prune.run()
        prune.waitUntilExit()
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func looseAndPackedBlobsGiveTheirBytes(seed: UInt64) throws {
        let scratch = try TempRepository()
        let blobs = Self.blobs(seed: seed)
        let ids = try blobs.map { try scratch.repository.writeBlob($0) }
        let objects = scratch.url.path + "/.git/objects"
        for (id, data) in zip(ids, blobs) {
            let inflater = try #require(BlobInflater.find(id, objects: objects))
            guard case .loose = inflater.storage else { Issue.record("\(id.hex) is not loose"); continue }
            #expect(try collect(inflater) == data, "loose, \(data.count) bytes")
        }
        try pack(ids, in: scratch)
        for (id, data) in zip(ids, blobs) {
            let inflater = try #require(BlobInflater.find(id, objects: objects))
            guard case .packed = inflater.storage else { Issue.record("\(id.hex) is not packed"); continue }
            #expect(try collect(inflater) == data, "packed, \(data.count) bytes")
            var read = Data()
            try scratch.repository.readBlob(id) { read.append(contentsOf: $0) }
            #expect(read == data)
        }
    }

    /// A blob packed as a delta is not read here; `readBlob` still gives its bytes (libgit2).
    @Test func aDeltaIsLeftToLibgit2() throws {
        let scratch = try TempRepository()
        var random = SeededRandom(seed: 7)
        let first = Data((0..<200_000).map { _ in UInt8.random(in: 0...255, using: &random) })
        var second = first
        second.append(contentsOf: Data("one more line\n".utf8))
        let ids = try [first, second].map { try scratch.repository.writeBlob($0) }
        try pack(ids, in: scratch, deltas: true)
        let objects = scratch.url.path + "/.git/objects"
        let found = ids.map { BlobInflater.find($0, objects: objects) }
        #expect(found.contains { $0 == nil }, "neither blob was packed as a delta")
        for (id, data) in zip(ids, [first, second]) {
            var read = Data()
            try scratch.repository.readBlob(id) { read.append(contentsOf: $0) }
            #expect(read == data)
        }
    }

    /// One byte changed inside a packed blob's compressed bytes: an error naming the object,
    /// whichever byte it was.
    @Test(arguments: [11, 12, 13, 14, 15] as [UInt64])
    func aDamagedPackEntryIsAnError(seed: UInt64) throws {
        let scratch = try TempRepository()
        var random = SeededRandom(seed: seed)
        let data = Data((0..<(2 * BlobInflater.pieceSize)).map { _ in UInt8.random(in: 0...255, using: &random) })
        let id = try scratch.repository.writeBlob(data)
        try pack([id], in: scratch)
        let objects = scratch.url.path + "/.git/objects"
        let inflater = try #require(BlobInflater.find(id, objects: objects))
        guard case let .packed(pack, offset, _) = inflater.storage else { Issue.record("not packed"); return }
        let handle = try #require(FileHandle(forUpdatingAtPath: pack))
        let position = offset + 10 + UInt64.random(in: 0..<UInt64(data.count - 100), using: &random)
        try handle.seek(toOffset: position)
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: position)
        handle.write(Data([byte ^ 0x5a]))
        try handle.close()
        #expect {
            _ = try collect(inflater)
        } throws: { error in
            "\(error)".contains("object \(id.hex)") && "\(error)".contains("damaged")
        }
    }

    /// A big loose blob is copied into another repository a piece at a time, under its own id;
    /// a small one is left to the caller; a damaged one is an error and leaves nothing there.
    @Test func aBigLooseBlobIsCopiedPieceByPiece() throws {
        let source = try TempRepository("copySource"), destination = try TempRepository("copyDestination")
        var random = SeededRandom(seed: 21)
        let big = Data((0..<(Int(Repository.pieceByPieceSize) + 4096)).map { _ in UInt8.random(in: 0...255, using: &random) })
        let id = try source.repository.writeBlob(big)
        let small = try source.repository.writeBlob(Data("small\n".utf8))
        #expect(try destination.repository.copyBigBlob(small, from: source.repository) == false)
        #expect(try destination.repository.copyBigBlob(id, from: source.repository))
        var read = Data()
        try destination.repository.readBlob(id) { read.append(contentsOf: $0) }
        #expect(read == big)

        let damaged = try source.repository.writeBlob(big + Data("x".utf8))
        let file = source.url.path + "/.git/objects/" + damaged.hex.prefix(2) + "/" + damaged.hex.dropFirst(2)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes[bytes.count / 2] ^= 0x5a
        try FileManager.default.removeItem(atPath: file)
        try bytes.write(to: URL(fileURLWithPath: file))
        #expect(throws: (any Error).self) { try destination.repository.copyBigBlob(damaged, from: source.repository) }
        #expect(try !destination.repository.objectExists(damaged))
    }
}
