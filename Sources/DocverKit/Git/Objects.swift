internal import Clibgit2
import Foundation

/// A commit object. Keeps its repository alive.
final class Commit {
    let pointer: OpaquePointer
    let repository: Repository

    init(pointer: OpaquePointer, repository: Repository) {
        self.pointer = pointer
        self.repository = repository
    }

    deinit { git_commit_free(pointer) }

    /// The message's length in bytes, without making a string of it.
    var messageLength: Int { git_commit_message(pointer).map { strlen($0) } ?? 0 }

    var id: ObjectID { ObjectID(git_commit_id(pointer).pointee) }
    var treeID: ObjectID { ObjectID(git_commit_tree_id(pointer).pointee) }

    var parentIDs: [ObjectID] {
        (0..<git_commit_parentcount(pointer)).map { ObjectID(git_commit_parent_id(pointer, $0).pointee) }
    }

    var message: String { git_commit_message(pointer).map { String(cString: $0) } ?? "" }

    var author: Repository.Identity { Self.identity(git_commit_author(pointer).pointee) }
    var committer: Repository.Identity { Self.identity(git_commit_committer(pointer).pointee) }
    /// The committer's time in seconds as recorded (not clamped): what libgit2's revwalk
    /// orders commits by.
    var committerSeconds: Int64 { Int64(git_commit_time(pointer)) }

    private static func identity(_ signature: git_signature) -> Repository.Identity {
        Repository.Identity(
            name: String(cString: signature.name),
            email: String(cString: signature.email),
            time: Date(timeIntervalSince1970: TimeInterval(Repository.Identity.clampedSeconds(signature.when.time))),
            offsetMinutes: signature.when.offset
        )
    }
}

/// One entry of a tree.
struct TreeEntry {
    var name: String
    var id: ObjectID
    var mode: FileMode
}

/// A tree object. Keeps its repository alive.
final class Tree {
    let pointer: OpaquePointer
    private let repository: Repository

    init(pointer: OpaquePointer, repository: Repository) {
        self.pointer = pointer
        self.repository = repository
    }

    deinit { git_tree_free(pointer) }

    var id: ObjectID { ObjectID(git_tree_id(pointer).pointee) }

    var entries: [TreeEntry] {
        (0..<git_tree_entrycount(pointer)).compactMap { index in
            guard let entry = git_tree_entry_byindex(pointer, index) else { return nil }
            return TreeEntry(
                name: String(cString: git_tree_entry_name(entry)),
                id: ObjectID(git_tree_entry_id(entry).pointee),
                mode: FileMode(raw: git_tree_entry_filemode(entry))
            )
        }
    }

    /// The direct entry with this name, or nil. The entry is borrowed from the tree.
    func entry(named name: String) -> TreeEntry? {
        guard let entry = git_tree_entry_byname(pointer, name) else { return nil }
        return TreeEntry(
            name: name, id: ObjectID(git_tree_entry_id(entry).pointee),
            mode: FileMode(raw: git_tree_entry_filemode(entry)))
    }

    /// The entry at a slash-separated path below this tree, or nil.
    func entry(atPath path: String) throws -> TreeEntry? {
        var entry: OpaquePointer?
        let result = git_tree_entry_bypath(&entry, pointer, path)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result)
        defer { git_tree_entry_free(entry) }
        return TreeEntry(
            name: String(cString: git_tree_entry_name(entry)),
            id: ObjectID(git_tree_entry_id(entry).pointee),
            mode: FileMode(raw: git_tree_entry_filemode(entry))
        )
    }
}

/// A blob object. Keeps its repository alive.
final class Blob {
    let pointer: OpaquePointer
    private let repository: Repository

    init(pointer: OpaquePointer, repository: Repository) {
        self.pointer = pointer
        self.repository = repository
    }

    deinit { git_blob_free(pointer) }

    var size: Int64 { Int64(git_blob_rawsize(pointer)) }

    var isBinary: Bool { git_blob_is_binary(pointer) == 1 }

    var data: Data {
        let count = Int(git_blob_rawsize(pointer))
        guard count > 0, let raw = git_blob_rawcontent(pointer) else { return Data() }
        return Data(bytes: raw, count: count)
    }

    /// Passes the blob's bytes to `body` without copying them.
    func withUnsafeBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let count = Int(git_blob_rawsize(pointer))
        return try body(UnsafeRawBufferPointer(start: git_blob_rawcontent(pointer), count: count))
    }
}

/// The repository's index (git's staging area and stat cache).
///
/// Racily clean entries: libgit2 compares modification times to the nanosecond, git (as
/// Debian builds it) to the second. A file changed within the second its stat data was read,
/// keeping its size, looks unchanged to git once the index file is newer than that second,
/// so `git status` and `git commit -a` would miss the change. git guards against this when it
/// rewrites the index (entries as new as the index file it read are compared with the files,
/// and smudged, their size set to 0, if they differ); libgit2 does so only to the nanosecond.
/// So docver smudges such entries whenever it reads the index to write it again, and writes an
/// entry whose stat data was read within its file's modification second smudged. A smudged
/// entry makes git and libgit2 compare the file's contents; the next status that finds it
/// unchanged records its stat data again.
final class Index {
    let pointer: OpaquePointer

    init(pointer: OpaquePointer) { self.pointer = pointer }

    deinit { git_index_free(pointer) }

    /// Reads the index file again, then smudges the entries git would take for racily clean.
    func reload() throws {
        try check(git_index_read(pointer, 1))
        smudgeRacilyCleanEntries()
    }

    /// ``reload()``, but the file is read again only if it changed since it was read.
    func refresh() throws {
        try check(git_index_read(pointer, 0))
        smudgeRacilyCleanEntries()
    }

    /// Smudges the entries whose modification time is not older than the index file's (to
    /// the second). Done right after reading, before anything is added, so it only meets
    /// entries the file held. Cost: one pass over the entries.
    private func smudgeRacilyCleanEntries() {
        guard let indexPath = git_index_path(pointer), let stamp = FileStat(path: String(cString: indexPath)) else { return }
        for position in 0..<git_index_entrycount(pointer) {
            guard let entry = git_index_get_byindex(pointer, position),
                Int(entry.pointee.mtime.seconds) >= stamp.mtimeSeconds, entry.pointee.file_size != 0
            else { continue }
            // libgit2 smudges its own racily clean entries the same way, in place (index.c,
            // `truncate_racily_clean`): the size is no part of the entry's key or order.
            UnsafeMutablePointer(mutating: entry).pointee.file_size = 0
        }
    }

    /// Records a file's saved blob together with the stat data read before it was hashed,
    /// so the next status check trusts the stat data instead of hashing again.
    func add(path: String, id: ObjectID, mode: FileMode, stat: FileStat) throws {
        var entry = git_index_entry()
        entry.ctime = git_index_time(
            seconds: Int32(truncatingIfNeeded: stat.ctimeSeconds),
            nanoseconds: UInt32(truncatingIfNeeded: stat.ctimeNanoseconds))
        entry.mtime = git_index_time(
            seconds: Int32(truncatingIfNeeded: stat.mtimeSeconds),
            nanoseconds: UInt32(truncatingIfNeeded: stat.mtimeNanoseconds))
        entry.dev = UInt32(truncatingIfNeeded: stat.device)
        entry.ino = UInt32(truncatingIfNeeded: stat.inode)
        entry.uid = stat.uid
        entry.gid = stat.gid
        // Stat data read within the file's modification second is not trusted (see above).
        entry.file_size = stat.isRacilyClean ? 0 : UInt32(truncatingIfNeeded: stat.size)
        entry.mode = mode.raw.rawValue
        entry.id = id.raw
        try path.withCString { cPath in
            entry.path = cPath
            try check(git_index_add(pointer, &entry))
        }
    }

    /// The paths whose entry holds one of `ids` (one pass over the entries).
    func paths(holding ids: Set<ObjectID>) -> [(path: String, id: ObjectID)] {
        guard !ids.isEmpty else { return [] }
        var result: [(path: String, id: ObjectID)] = []
        for position in 0..<git_index_entrycount(pointer) {
            guard let entry = git_index_get_byindex(pointer, position) else { continue }
            let id = ObjectID(entry.pointee.id)
            if ids.contains(id), let path = entry.pointee.path { result.append((String(cString: path), id)) }
        }
        return result
    }

    func remove(path: String) throws {
        let result = git_index_remove_bypath(pointer, path)
        if result == GIT_ENOTFOUND.rawValue { return }
        try check(result)
    }

    func removeDirectory(path: String) throws {
        try check(git_index_remove_directory(pointer, path, 0))
    }

    func write() throws { try check(git_index_write(pointer)) }
}

/// A history walk. Keeps its repository alive.
final class Revwalk {
    let pointer: OpaquePointer
    private let repository: Repository

    init(repository: Repository) throws {
        var handle: OpaquePointer?
        try check(git_revwalk_new(&handle, repository.pointer))
        pointer = handle!
        self.repository = repository
    }

    deinit { git_revwalk_free(pointer) }

    func setSorting(_ mode: UInt32) { git_revwalk_sorting(pointer, mode) }

    func push(_ id: ObjectID) throws {
        var raw = id.raw
        try check(git_revwalk_push(pointer, &raw))
    }

    func hide(_ id: ObjectID) throws {
        var raw = id.raw
        try check(git_revwalk_hide(pointer, &raw))
    }

    func next() throws -> ObjectID? {
        var oid = git_oid()
        let result = git_revwalk_next(&oid, pointer)
        if result == GIT_ITEROVER.rawValue { return nil }
        try check(result)
        return ObjectID(oid)
    }
}
