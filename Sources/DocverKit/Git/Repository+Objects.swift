internal import Clibgit2
import Foundation

// Objects: reading and writing blobs, trees and commits.

extension Repository {
    func commit(_ id: ObjectID) throws -> Commit {
        var handle: OpaquePointer?
        var raw = id.raw
        try check(git_commit_lookup(&handle, pointer, &raw))
        return Commit(pointer: handle!, repository: self)
    }

    func tree(_ id: ObjectID) throws -> Tree {
        var handle: OpaquePointer?
        var raw = id.raw
        try check(git_tree_lookup(&handle, pointer, &raw))
        return Tree(pointer: handle!, repository: self)
    }

    func blob(_ id: ObjectID) throws -> Blob {
        var handle: OpaquePointer?
        var raw = id.raw
        try check(git_blob_lookup(&handle, pointer, &raw))
        return Blob(pointer: handle!, repository: self)
    }

    /// The size of a blob without inflating it.
    func blobSize(_ id: ObjectID) throws -> Int64 {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer))
        defer { git_odb_free(odb) }
        var size: Int = 0
        var type = GIT_OBJECT_ANY
        var raw = id.raw
        try check(git_odb_read_header(&size, &type, odb, &raw))
        return Int64(size)
    }

    func objectExists(_ id: ObjectID) throws -> Bool {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer))
        defer { git_odb_free(odb) }
        var raw = id.raw
        return git_odb_exists(odb, &raw) == 1
    }

    /// True when `id` names a commit in the object database (read from its header only).
    func commitExists(_ id: ObjectID) throws -> Bool {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer))
        defer { git_odb_free(odb) }
        var raw = id.raw
        var size = 0
        var type = GIT_OBJECT_INVALID
        return git_odb_read_header(&size, &type, odb, &raw) == 0 && type == GIT_OBJECT_COMMIT
    }

    /// Resolves a unique abbreviation of a commit id (at least four hexadecimal digits).
    func resolveCommitPrefix(_ prefix: String) throws -> ObjectID {
        var oid = git_oid()
        try check(git_oid_fromstrn(&oid, prefix, prefix.utf8.count))
        var object: OpaquePointer?
        try check(git_object_lookup_prefix(&object, pointer, &oid, prefix.utf8.count, GIT_OBJECT_COMMIT))
        defer { git_object_free(object) }
        return ObjectID(git_object_id(object).pointee)
    }

    /// Throws instead of letting libgit2 read a truncated loose object, which it inflates
    /// forever. Each object is checked once per opened repository. Runs for every object
    /// libgit2 reads from this repository (``checkObjectsBeforeLibgit2ReadsThem()``).
    func refuseTruncatedLooseObject(_ id: ObjectID) throws {
        guard !checkedLooseObjects.contains(id) else { return }
        let hex = id.hex
        let path = gitDirectory + "objects/" + hex.prefix(2) + "/" + hex.dropFirst(2)
        guard docver_loose_object_is_complete(path) == 1 else {
            throw GitError(
                code: .invalid, message: "object \(hex) is corrupt (a truncated or damaged file \(path)); 'git fsck' lists what is damaged",
                function: #function)
        }
        checkedLooseObjects.insert(id)
    }

    /// Puts ``refuseTruncatedLooseObject(_:)`` in front of every object read from this
    /// repository's object database, libgit2's own included (a loose object of up to 8 MB is
    /// read there whole, inflated once, and handed to libgit2, which inflated it again after
    /// the check: a 932 KB integration cost two inflations per read): its history walks, merge bases
    /// and ancestry checks read commits that docver never looks up itself, and a truncated
    /// one would hang them. Called once, when the repository is opened; the backend that
    /// calls back holds this repository unretained, and the object database it belongs to is
    /// freed with the repository. libgit2 calls backends with its object database's lock held,
    /// so the set of checked objects is never touched by two threads at once.
    func checkObjectsBeforeLibgit2ReadsThem() {
        var odb: OpaquePointer?
        // Without an object database every read fails anyway, and says so.
        guard git_repository_odb(&odb, pointer) == 0 else { return }
        defer { git_odb_free(odb) }
        _ = docver_add_checking_backend(
            odb, gitDirectory + "objects/",
            { payload, id in
                guard let payload, let id else { return 0 }
                let repository = Unmanaged<Repository>.fromOpaque(payload).takeUnretainedValue()
                do {
                    try repository.refuseTruncatedLooseObject(ObjectID(id.pointee))
                    return 0
                } catch {
                    // Read by the checked call that made libgit2 read the object (same thread).
                    git_error_set_str(Int32(GIT_ERROR_ODB.rawValue), "\(error)")
                    return GIT_EINVALID.rawValue
                }
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The id `data` has as a blob, computed without writing anything.
    func hashBlob(_ data: Data) throws -> ObjectID {
        var oid = git_oid()
        try data.withUnsafeBytes { buffer in
            _ = try check(git_odb_hash(&oid, buffer.baseAddress, buffer.count, GIT_OBJECT_BLOB))
        }
        return ObjectID(oid)
    }

    /// The id a regular file's contents have as a blob, computed without writing anything.
    /// Only for regular files: it reads the file to its end.
    func hashFile(at path: String) throws -> ObjectID {
        var oid = git_oid()
        try check(git_odb_hashfile(&oid, path, GIT_OBJECT_BLOB))
        return ObjectID(oid)
    }

    func writeBlob(_ data: Data) throws -> ObjectID {
        var oid = git_oid()
        try data.withUnsafeBytes { buffer in
            _ = try check(git_blob_create_from_buffer(&oid, pointer, buffer.baseAddress, buffer.count))
        }
        return ObjectID(oid)
    }

    /// Streams a file into the object database in fixed-size chunks, so memory stays flat
    /// whatever the file's size. Fails (writing nothing) if the file changes size meanwhile.
    func writeBlob(streamingFileAt path: String, expectedSize: Int64) throws -> ObjectID {
        if let id = try writeBlobIntoPack(fileAt: path, expectedSize: expectedSize) { return id }
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw GitError(code: .notFound, message: "cannot open \(path) for reading", function: #function)
        }
        defer { try? file.close() }
        return try writeBlob(size: expectedSize) { append in
            var written: Int64 = 0
            while true {
                let chunk = try file.read(upToCount: 1 << 20) ?? Data()
                if chunk.isEmpty { break }
                written += Int64(chunk.count)
                guard written <= expectedSize else { break }
                try chunk.withUnsafeBytes { try append($0) }
            }
            guard written == expectedSize else {
                throw GitError(code: .modified, message: "\(path) changed while it was being saved", function: "writeBlob")
            }
        }
    }

    /// Writes a blob of `size` bytes that `contents` appends piece by piece through the
    /// function it is given (libgit2's write stream: nothing is written unless `contents`
    /// returns and the size is met). Returns the id the bytes hash to.
    func writeBlob(size: Int64, contents: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws -> ObjectID {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer))
        defer { git_odb_free(odb) }
        var stream: UnsafeMutablePointer<git_odb_stream>?
        try check(git_odb_open_wstream(&stream, odb, git_object_size_t(size), GIT_OBJECT_BLOB))
        defer { git_odb_stream_free(stream) }
        try contents { piece in
            _ = try check(git_odb_stream_write(stream, piece.baseAddress?.assumingMemoryBound(to: CChar.self), piece.count))
        }
        var oid = git_oid()
        try check(git_odb_stream_finalize_write(&oid, stream))
        return ObjectID(oid)
    }

    struct TreeUpdate {
        enum Action {
            case upsert(ObjectID, FileMode)
            case remove
        }
        var path: String
        var action: Action
    }

    /// Writes the tree that results from applying `updates` to `base` (nil: the empty tree).
    func writeTree(base: ObjectID?, updates: [TreeUpdate]) throws -> ObjectID {
        let baseTree = try base.map { try tree($0) }
        var oid = git_oid()
        let paths = updates.map { strdup($0.path) }
        defer { paths.forEach { free($0) } }
        var cUpdates: [git_tree_update] = updates.enumerated().map { index, update in
            var entry = git_tree_update()
            entry.path = UnsafePointer(paths[index])
            switch update.action {
            case let .upsert(id, mode):
                entry.action = GIT_TREE_UPDATE_UPSERT
                entry.id = id.raw
                entry.filemode = mode.raw
            case .remove:
                entry.action = GIT_TREE_UPDATE_REMOVE
            }
            return entry
        }
        // Every wrapper whose pointer goes to C is kept alive across the call: Swift may end a
        // local's lifetime at its last Swift use, which would free the object too early.
        try withExtendedLifetime(baseTree) {
            _ = try check(git_tree_create_updated(&oid, pointer, baseTree?.pointer, cUpdates.count, &cUpdates))
        }
        return ObjectID(oid)
    }

    /// Writes a tree from scratch with the given direct entries.
    func writeTree(entries: [(name: String, id: ObjectID, mode: FileMode)]) throws -> ObjectID {
        var builder: OpaquePointer?
        try check(git_treebuilder_new(&builder, pointer, nil))
        defer { git_treebuilder_free(builder) }
        for entry in entries {
            var raw = entry.id.raw
            try check(git_treebuilder_insert(nil, builder, entry.name, &raw, entry.mode.raw))
        }
        var oid = git_oid()
        try check(git_treebuilder_write(&oid, builder))
        return ObjectID(oid)
    }

    /// Writes a tree of entries taken from trees this repository holds, as the integration's
    /// merge combines them, without the tree builder's look-up of every entry's object: the
    /// objects are there, since the trees that name them are (each arrived through the arrival
    /// checks or was written here). That look-up reads each object's header, which for a
    /// packed object means following its delta chain: two thirds of a merge's tree writing.
    /// What the tree builder checks from the entries themselves is checked here: a name that
    /// is not empty, `.` or `..` and has no `/` or NUL, a mode git writes, no name twice.
    /// The entries are written in git's order, whatever order they come in.
    func writeTree(entriesOfStoredTrees entries: [(name: String, id: ObjectID, mode: FileMode)]) throws -> ObjectID {
        let validModes: [git_filemode_t] = [
            GIT_FILEMODE_BLOB, GIT_FILEMODE_BLOB_EXECUTABLE, GIT_FILEMODE_LINK, GIT_FILEMODE_TREE, GIT_FILEMODE_COMMIT,
        ]
        var named: [(name: [UInt8], id: ObjectID, mode: FileMode)] = []
        named.reserveCapacity(entries.count)
        var seen = Set<[UInt8]>(minimumCapacity: entries.count)
        for entry in entries {
            let name = Array(entry.name.utf8)
            guard !name.isEmpty, name != [0x2E], name != [0x2E, 0x2E], !name.contains(0x2F), !name.contains(0),
                validModes.contains(entry.mode.raw)
            else {
                throw GitError(code: .invalid, message: "failed to write a tree: invalid entry '\(entry.name)'", function: #function)
            }
            // A file and a folder of one name are not neighbours in git's order: checked by name.
            guard seen.insert(name).inserted else {
                throw GitError(code: .invalid, message: "failed to write a tree: '\(entry.name)' named twice", function: #function)
            }
            named.append((name, entry.id, entry.mode))
        }
        named.sort { BorrowedTreeEntry.gitOrder($0.name, $0.mode.isTree, $1.name, $1.mode.isTree) < 0 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(named.reduce(0) { $0 + $1.name.count + 28 })
        for entry in named {
            bytes.append(contentsOf: String(entry.mode.raw.rawValue, radix: 8).utf8)
            bytes.append(0x20)
            bytes.append(contentsOf: entry.name)
            bytes.append(0)
            withUnsafeBytes(of: entry.id.raw.id) { bytes.append(contentsOf: $0) }
        }
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer))
        defer { git_odb_free(odb) }
        var oid = git_oid()
        try bytes.withUnsafeBytes { buffer in
            _ = try check(git_odb_write(&oid, odb, buffer.baseAddress, buffer.count, GIT_OBJECT_TREE))
        }
        return ObjectID(oid)
    }

    struct Identity {
        var name: String
        var email: String
        var time: Date
        var offsetMinutes: Int32

        /// The dates docver orders and shows: 0001-01-01 to 9999-12-31 (UTC), as seconds since
        /// 1970. A commit dated outside (a plain git commit, a damaged object) is clamped to
        /// the nearest end, so ordering stays total and no conversion can overflow.
        static let earliestSeconds: Int64 = -62_135_596_800
        static let latestSeconds: Int64 = 253_402_300_799

        static func clampedSeconds(_ seconds: Int64) -> Int64 { min(max(seconds, earliestSeconds), latestSeconds) }

        static func clampedSeconds(_ date: Date) -> Int64 {
            let seconds = date.timeIntervalSince1970.rounded(.down)
            guard seconds.isFinite else { return seconds > 0 ? latestSeconds : earliestSeconds }
            return Int64(min(max(seconds, Double(earliestSeconds)), Double(latestSeconds)))
        }
    }

    /// The deepest folder nesting docver walks in a tree. Deeper trees never arrive from a
    /// remote (``ArrivalValidator``); one made locally ends the walk with an error instead of
    /// exhausting the thread's stack.
    static let maximumTreeDepth = 1000

    /// Throws when `prefix` (a path ending in `/`) is already as deep as docver walks.
    static func checkTreeDepth(_ prefix: String) throws {
        guard prefix.utf8.lazy.filter({ $0 == UInt8(ascii: "/") }).count >= maximumTreeDepth else { return }
        throw GitError(
            code: .invalid, message: "folders nested deeper than \(maximumTreeDepth) levels at '\(prefix.prefix(80))…'",
            function: #function)
    }

    /// Creates a commit object without moving any reference (the caller does a CAS update).
    /// With `sign`, the commit carries the signature `sign` returns for its contents in its
    /// `gpgsig` header, where git looks for it (`git log --show-signature`).
    func createCommit(
        tree treeID: ObjectID, parents: [ObjectID], author: Identity, committer: Identity,
        message: String, sign: ((Data) throws -> String)? = nil
    ) throws -> ObjectID {
        let authorSignature = try Signature(author)
        let committerSignature = try Signature(committer)
        let treeObject = try tree(treeID)
        let parentCommits = try parents.map { try commit($0) }
        var parentPointers: [OpaquePointer?] = parentCommits.map { $0.pointer }
        var oid = git_oid()
        try withExtendedLifetime((authorSignature, committerSignature, treeObject, parentCommits)) {
            guard let sign else {
                _ = try check(
                    git_commit_create(
                        &oid, pointer, nil, authorSignature.pointer, committerSignature.pointer,
                        "UTF-8", message, treeObject.pointer, parentPointers.count, &parentPointers))
                return
            }
            var buffer = git_buf()
            defer { git_buf_dispose(&buffer) }
            try parentPointers.withUnsafeMutableBufferPointer { parents in
                try parents.baseAddress!.withMemoryRebound(to: Optional<OpaquePointer>.self, capacity: parents.count) { base in
                    _ = try check(
                        git_commit_create_buffer(
                            &buffer, pointer, authorSignature.pointer, committerSignature.pointer,
                            "UTF-8", message, treeObject.pointer, parents.count, base))
                }
            }
            let content = Data(bytes: buffer.ptr, count: buffer.size)
            let signature = try sign(content)
            _ = try check(git_commit_create_with_signature(&oid, pointer, buffer.ptr, signature, nil))
        }
        return ObjectID(oid)
    }

    /// A commit's signature (its `gpgsig` header) and the contents it signs; nil for an
    /// unsigned commit.
    func commitSignature(_ id: ObjectID) throws -> (signature: String, signedData: Data)? {
        var signature = git_buf(), signed = git_buf()
        defer { git_buf_dispose(&signature); git_buf_dispose(&signed) }
        var raw = id.raw
        let status = git_commit_extract_signature(&signature, &signed, pointer, &raw, nil)
        if status == GIT_ENOTFOUND.rawValue { return nil }
        _ = try check(status)
        return (
            String(decoding: Data(bytes: signature.ptr, count: signature.size), as: UTF8.self),
            Data(bytes: signed.ptr, count: signed.size)
        )
    }

    /// True when two trees hold the same entry (id and mode, or absence) at a path.
    ///
    /// Descends one level at a time and stops as soon as the subtrees are the same object,
    /// so walking history usually touches only the top of each tree.
    func sameEntry(_ components: [String], _ a: ObjectID, _ b: ObjectID) throws -> Bool {
        var treeA = a, treeB = b
        for (depth, name) in components.enumerated() {
            if treeA == treeB { return true }
            let entryA = try tree(treeA).entry(named: name)
            let entryB = try tree(treeB).entry(named: name)
            if depth == components.count - 1 {
                return entryA?.id == entryB?.id && entryA?.mode == entryB?.mode
            }
            // On the way, one object holds the same below, whatever its mode: the same folder,
            // or a file (of either mode) under which the path is absent on both sides.
            if entryA?.id == entryB?.id { return true }
            // Below here the path's state is absent wherever a folder on the way is missing or
            // is a file: compare the document's own presence, never its folder's.
            let rest = components[(depth + 1)...]
            guard let entryA, entryA.mode.isTree else { return try !exists(rest, below: entryB) }
            guard let entryB, entryB.mode.isTree else { return try !exists(rest, below: entryA) }
            treeA = entryA.id
            treeB = entryB.id
        }
        return treeA == treeB
    }

    /// True when `entry` is a folder holding `components`.
    private func exists(_ components: ArraySlice<String>, below entry: TreeEntry?) throws -> Bool {
        guard let entry, entry.mode.isTree else { return false }
        return try tree(entry.id).entry(atPath: components.joined(separator: "/")) != nil
    }
}
