internal import Clibgit2
import Foundation

// Blobs of one many-document save written into one pack.
//
// libgit2 writes each blob as a loose file: about twenty system calls apiece (a temporary
// file, a link, an unlink, and, because the object is new, a look at the pack folder again).
// A first save of 10,000 documents made 10,000 such files, and `git gc --auto` then packed
// them all again. git itself writes loose files too, then packs them the same way.
// Here the small blobs of such a save go into one pack written by ``PackWriter``: each file is
// opened and read once, and the pack is flushed once.

extension Repository {
    /// Files up to this size go into the pack; larger ones are streamed as before.
    static let packedBlobLimit: Int64 = 1 << 20

    /// Runs `body` with the small blobs written through ``writeBlob(streamingFileAt:expectedSize:)``
    /// going into one new pack, installed when `body` returns (before this returns, so the
    /// blobs can be read at once); nothing is installed when `body` throws. Trees, commits and
    /// every other blob are written as usual. Nested calls and a repository receiving into its
    /// quarantine write loose objects.
    func writingBlobsIntoOnePack<T>(_ body: () throws -> T) throws -> T {
        guard packedBlobs == nil, incomingObjects == nil else { return try body() }
        let pack = try PackedBlobs(repository: self)
        packedBlobs = pack
        defer { packedBlobs = nil }
        let result = try body()
        try pack.finish()
        return result
    }

    /// Runs `body` with every object written loose, even during ``writingBlobsIntoOnePack(_:)``.
    func writingLooseObjects<T>(_ body: () throws -> T) rethrows -> T {
        let pack = packedBlobs
        packedBlobs = nil
        defer { packedBlobs = pack }
        return try body()
    }

    /// The blob of the regular file at `path`, which has `expectedSize` bytes, into the pack
    /// being written: read once, hashed, and added unless the object database or the pack has
    /// it. Returns nil when the file is too big for the pack. Throws `.modified` when the file
    /// does not have `expectedSize` bytes.
    func writeBlobIntoPack(fileAt path: String, expectedSize: Int64) throws -> ObjectID? {
        guard let pack = packedBlobs, expectedSize <= Self.packedBlobLimit else { return nil }
        return try pack.add(fileAt: path, size: Int(expectedSize))
    }
}

/// The pack of one ``Repository/writingBlobsIntoOnePack(_:)``.
final class PackedBlobs {
    private let odb: OpaquePointer
    private var writer: PackWriter?
    private let folder: String
    private var added: Set<ObjectID> = []
    private var buffer: UnsafeMutableRawPointer
    private var capacity = 64 << 10

    init(repository: Repository) throws {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, repository.pointer))
        self.odb = odb!
        folder = repository.gitDirectory + "objects/pack"
        buffer = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        git_odb_free(odb)
        buffer.deallocate()
    }

    func add(fileAt path: String, size: Int) throws -> ObjectID {
        // (Not following a link, and not waiting on a FIFO, in case either took the file's
        // place since it was looked at: a FIFO reads as empty, which its size refuses.)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw GitError(code: .notFound, message: "cannot open \(path) for reading: \(String(cString: strerror(errno)))", function: #function)
        }
        defer { close(descriptor) }
        if size + 1 > capacity {
            buffer.deallocate()
            capacity = size + 1
            buffer = .allocate(byteCount: capacity, alignment: 16)
        }
        // One byte more than expected is asked for: a file that grew is noticed.
        var count = 0
        while count <= size {
            let read = Foundation.read(descriptor, buffer + count, size + 1 - count)
            if read < 0, errno == EINTR { continue }
            guard read >= 0 else {
                throw GitError(code: .other(-1), message: "cannot read \(path): \(String(cString: strerror(errno)))", function: #function)
            }
            if read == 0 { break }
            count += read
        }
        guard count == size else {
            throw GitError(code: .modified, message: "\(path) changed while it was being saved", function: "writeBlob")
        }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: size)
        let hasher = SHA1Hasher()
        hasher.update(Array("blob \(size)\0".utf8))
        hasher.update(bytes)
        let id = ObjectID(bytes: hasher.finish())!
        guard !added.contains(id) else { return id }
        var raw = id.raw
        // (Without a refresh: an object another process packed meanwhile is written again,
        // which costs its bytes, not a second look at the pack folder per object.)
        if git_odb_exists_ext(odb, &raw, UInt32(GIT_ODB_LOOKUP_NO_REFRESH.rawValue)) == 1 { return id }
        if writer == nil { writer = try PackWriter(folder: folder, count: nil) }
        try writer!.add(id, type: 3, size: UInt64(size)) { append in try append(bytes) }
        added.insert(id)
        return id
    }

    /// Installs the pack, if anything was added, and makes the object database see it.
    func finish() throws {
        guard let writer else { return }
        _ = try writer.finish()
        self.writer = nil
        try check(git_odb_refresh(odb))
    }
}
