internal import Clibgit2
import Foundation

// What the object database holds and what the references reach: for `docver du` and the
// checks around `docver gc` (libgit2 1.5 has no garbage collector of its own).

/// The kind of a stored object.
enum StoredKind: Equatable {
    case commit, tree, blob, tag, other
}

/// An object's kind and uncompressed size, read from its header.
struct StoredObjectHeader {
    var kind: StoredKind
    var size: Int64
}

/// The repository's object database (loose objects and packs). Owns its `git_odb` handle.
final class ObjectDatabase {
    let pointer: OpaquePointer
    /// Kept alive: the object database calls back into it before every read
    /// (``Repository/checkObjectsBeforeLibgit2ReadsThem()``, which holds it unretained).
    private let repository: Repository

    init(_ repository: Repository) throws {
        var handle: OpaquePointer?
        try check(git_repository_odb(&handle, repository.pointer))
        pointer = handle!
        self.repository = repository
    }

    deinit { git_odb_free(pointer) }

    /// The object's kind and size without inflating its contents; nil when it is missing.
    func header(_ id: ObjectID) throws -> StoredObjectHeader? {
        var size = 0
        var type = GIT_OBJECT_INVALID
        var raw = id.raw
        let result = git_odb_read_header(&size, &type, pointer, &raw)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result)
        let kind: StoredKind =
            switch type {
            case GIT_OBJECT_COMMIT: .commit
            case GIT_OBJECT_TREE: .tree
            case GIT_OBJECT_BLOB: .blob
            case GIT_OBJECT_TAG: .tag
            default: .other
            }
        return StoredObjectHeader(kind: kind, size: Int64(size))
    }

    /// Every object stored, loose or packed, each once.
    func allObjectIDs() throws -> Set<ObjectID> {
        var ids = Set<ObjectID>()
        try withUnsafeMutablePointer(to: &ids) { payload in
            _ = try check(
                git_odb_foreach(
                    pointer,
                    { id, payload in
                        guard let id, let payload else { return -1 }
                        payload.assumingMemoryBound(to: Set<ObjectID>.self).pointee.insert(ObjectID(id.pointee))
                        return 0
                    }, payload))
        }
        return ids
    }
}

extension Repository {
    /// What keeps objects alive, as `git gc` counts it: the target of every reference (and of
    /// HEAD) and every id in their reflogs.
    func referenceRoots() throws -> [ObjectID] {
        var names: [String] = []
        var roots: [ObjectID] = []
        var iterator: OpaquePointer?
        try check(git_reference_iterator_new(&iterator, pointer))
        defer { git_reference_iterator_free(iterator) }
        var reference: OpaquePointer?
        while true {
            let code = git_reference_next(&reference, iterator)
            if code == GIT_ITEROVER.rawValue { break }
            try check(code)
            defer { git_reference_free(reference) }
            names.append(String(cString: git_reference_name(reference)))
            if let target = git_reference_target(reference) { roots.append(ObjectID(target.pointee)) }
        }
        var head = git_oid()
        if git_reference_name_to_id(&head, pointer, "HEAD") == 0 { roots.append(ObjectID(head)) }
        for name in names + ["HEAD"] {
            var reflog: OpaquePointer?
            guard git_reflog_read(&reflog, pointer, name) == 0 else { continue }
            defer { git_reflog_free(reflog) }
            for index in 0..<git_reflog_entrycount(reflog) {
                guard let entry = git_reflog_entry_byindex(reflog, index) else { continue }
                for id in [git_reflog_entry_id_old(entry), git_reflog_entry_id_new(entry)] {
                    if let id, git_oid_is_zero(id) == 0 { roots.append(ObjectID(id.pointee)) }
                }
            }
        }
        return roots
    }

    /// Every object reachable from `roots` (commits, their trees and blobs, tags), each visited
    /// once: a subtree already seen is not read again, so the cost is one read per reachable
    /// object. Objects missing from the database (a shallow history, a reflog entry already
    /// pruned) end the walk there.
    ///
    /// - Returns: the reachable commits (in no particular order) and every reachable object
    ///   with its size.
    func reachableObjects(from roots: [ObjectID], in database: ObjectDatabase) throws
        -> (commits: [ObjectID], objects: [ObjectID: StoredObjectHeader])
    {
        var objects: [ObjectID: StoredObjectHeader] = [:]
        var commits: [ObjectID] = []
        var pending = roots
        while let id = pending.popLast() {
            guard objects[id] == nil, let header = try database.header(id) else { continue }
            objects[id] = header
            switch header.kind {
            case .commit:
                commits.append(id)
                let commit = try self.commit(id)
                pending.append(commit.treeID)
                pending += commit.parentIDs
            case .tree:
                for entry in try tree(id).entries where entry.mode != .commit { pending.append(entry.id) }
            case .tag:
                var tag: OpaquePointer?
                var raw = id.raw
                try check(git_tag_lookup(&tag, pointer, &raw))
                defer { git_tag_free(tag) }
                pending.append(ObjectID(git_tag_target_id(tag).pointee))
            case .blob, .other:
                break
            }
        }
        return (commits, objects)
    }
}
