internal import Clibgit2
import Foundation

// Objects as stored, before libgit2 normalises them: for checking what arrives from a remote
// (ArrivalValidator) the way `git fsck --strict` does.

/// A tree entry as stored: the name's bytes and the mode as written.
struct RawTreeEntry {
    var name: [UInt8]
    var id: ObjectID
    var rawMode: UInt32
}

/// A tree entry whose name is borrowed from libgit2's tree (``Repository/withRawTreeEntries(_:_:)``).
struct BorrowedTreeEntry {
    var name: UnsafeBufferPointer<UInt8>
    var id: ObjectID
    /// The mode as stored.
    var rawMode: UInt32
    /// The mode as libgit2 reads it (an odd stored mode mapped to the one git means).
    var mode: FileMode

    /// The entry with its name copied.
    var entry: TreeEntry { TreeEntry(name: String(decoding: name, as: UTF8.self), id: id, mode: mode) }

    /// git's order of tree entries (negative, zero, positive): names compared bytewise, a
    /// folder's read as if it ended with "/". The one comparison of that order: tree diffs
    /// pair entries by it, and the arrival checks hold arriving trees to it.
    static func gitOrder(_ a: UnsafeBufferPointer<UInt8>, _ aIsTree: Bool, _ b: UnsafeBufferPointer<UInt8>, _ bIsTree: Bool) -> Int {
        let aCount = a.count + (aIsTree ? 1 : 0), bCount = b.count + (bIsTree ? 1 : 0)
        var index = 0
        while index < aCount && index < bCount {
            let x = index < a.count ? a[index] : UInt8(ascii: "/")
            let y = index < b.count ? b[index] : UInt8(ascii: "/")
            if x != y { return x < y ? -1 : 1 }
            index += 1
        }
        return aCount == bCount ? 0 : aCount < bCount ? -1 : 1
    }

    static func gitOrder(_ a: [UInt8], _ aIsTree: Bool, _ b: [UInt8], _ bIsTree: Bool) -> Int {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in gitOrder(a, aIsTree, b, bIsTree) } }
    }
}

/// A commit's header as stored.
struct RawCommit {
    var tree: ObjectID
    var parents: [ObjectID]
    /// Every header line (`author …`, `committer …`, `tree …`), without the message.
    var headerLines: [String]
}

extension Repository {
    /// The entries of a tree, in stored order, with their raw names and modes (copied: for
    /// callers that keep them past one folder).
    func rawTreeEntries(_ id: ObjectID) throws -> [RawTreeEntry] {
        try withRawTreeEntries(id) { entries in entries.map { RawTreeEntry(name: Array($0.name), id: $0.id, rawMode: $0.rawMode) } }
    }

    /// ``rawTreeEntries(_:)`` without a copy of each name: `body` is given the entries with
    /// their names borrowed from libgit2's tree, valid only while `body` runs. (The arrival
    /// checks read every entry of every tree a sync brings, and compare most of them only.)
    func withRawTreeEntries<T>(_ id: ObjectID, _ body: ([BorrowedTreeEntry]) throws -> T) throws -> T {
        let tree = try self.tree(id)
        return try withExtendedLifetime(tree) {
            let count = git_tree_entrycount(tree.pointer)
            var entries: [BorrowedTreeEntry] = []
            entries.reserveCapacity(count)
            for index in 0..<count {
                guard let entry = git_tree_entry_byindex(tree.pointer, index) else { continue }
                let name = git_tree_entry_name(entry).map { pointer in
                    UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
                }
                entries.append(
                    BorrowedTreeEntry(
                        name: name ?? UnsafeBufferPointer(start: nil, count: 0), id: ObjectID(git_tree_entry_id(entry).pointee),
                        rawMode: git_tree_entry_filemode_raw(entry).rawValue, mode: FileMode(raw: git_tree_entry_filemode(entry))))
            }
            return try body(entries)
        }
    }

    /// A commit's header as stored (libgit2 parses leniently; this is the text itself).
    func rawCommit(_ id: ObjectID) throws -> RawCommit {
        let commit = try self.commit(id)
        let header =
            git_commit_raw_header(commit.pointer).map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) } ?? ""
        return RawCommit(
            tree: commit.treeID, parents: commit.parentIDs,
            headerLines: header.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }

    /// The type of an object, without reading its contents; nil when it is missing.
    func objectKind(_ id: ObjectID) throws -> String? { try objectHeader(id)?.kind }

    /// The type and size of an object, without inflating it (a packed delta's size is read
    /// from its header); nil when it is missing.
    func objectHeader(_ id: ObjectID) throws -> (kind: String, size: Int64)? {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer))
        defer { git_odb_free(odb) }
        var size = 0
        var type = GIT_OBJECT_INVALID
        var raw = id.raw
        let result = git_odb_read_header(&size, &type, odb, &raw)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result)
        return (String(cString: git_object_type2string(type)), Int64(size))
    }
}
