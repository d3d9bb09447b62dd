internal import Clibgit2
import Foundation

// Tree-to-tree differences: changed paths and renames.

extension Repository {
    /// Paths of files that differ between two trees (either may be nil: the empty tree),
    /// sorted by bytes. Identical subtrees are skipped by id without being read, so the cost
    /// follows the size of the change. (libgit2's tree diff opens every folder on both sides,
    /// which made integration read both sides' whole trees.) A file that became a folder, or
    /// the reverse, is the file plus every file of the folder.
    func changedPaths(from old: ObjectID?, to new: ObjectID?) throws -> [String] {
        GitWorkCounter.countTreeDiff()
        var result: [String] = []
        // The folder pairs still to compare, kept here rather than on the call stack: the walk
        // goes as deep as the trees (up to `maximumTreeDepth` folders), and recursing once per
        // folder overflowed a thread's stack first (512 KB for a secondary thread on macOS, and
        // sanitizers make every frame larger). The order of the walk does not matter: the
        // result is sorted.
        var pending: [(old: ObjectID?, new: ObjectID?, prefix: String)] = [(old, new, "")]
        while let folder = pending.popLast() {
            guard folder.old != folder.new else { continue }
            try Self.checkTreeDepth(folder.prefix)
            let oldTree = try folder.old.map { try tree($0) }, newTree = try folder.new.map { try tree($0) }
            for (before, after) in Self.differingEntries(oldTree, newTree) {
                let path = folder.prefix + (before ?? after)!.name
                let beforeFolder = before.map { $0.mode.isTree ? $0.id : nil } ?? nil
                let afterFolder = after.map { $0.mode.isTree ? $0.id : nil } ?? nil
                if beforeFolder != nil || afterFolder != nil {
                    pending.append((beforeFolder, afterFolder, path + "/"))
                }
                let beforeFile = before.map { !$0.mode.isTree } ?? false
                let afterFile = after.map { !$0.mode.isTree } ?? false
                if beforeFile || afterFile { result.append(path) }
            }
        }
        return result.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The entries of two trees that differ, paired by name as ``pairedEntries(_:_:)`` pairs
    /// them: a pair whose sides hold the same object with the same mode is left out without
    /// making a string of its name (a folder of a thousand documents, one of them changed,
    /// names one entry, not two thousand).
    static func differingEntries(_ old: Tree?, _ new: Tree?) -> [(TreeEntry?, TreeEntry?)] {
        let a = old.map(RawEntries.init) ?? RawEntries(), b = new.map(RawEntries.init) ?? RawEntries()
        return withExtendedLifetime((old, new)) {
            guard a.isInGitOrder, b.isInGitOrder else {
                return pairedEntries(old?.entries ?? [], new?.entries ?? []).filter { before, after in
                    guard let before, let after else { return true }
                    return before.id != after.id || before.mode != after.mode
                }
            }
            var result: [(TreeEntry?, TreeEntry?)] = []
            var i = 0, j = 0
            while i < a.count || j < b.count {
                let comparison = i == a.count ? 1 : j == b.count ? -1 : RawEntries.order(a, i, b, j)
                if comparison == 0 {
                    if !a.holdsSame(i, as: b, j) { result.append((a.entry(i), b.entry(j))) }
                    i += 1
                    j += 1
                } else if comparison < 0 {
                    result.append((a.entry(i), nil))
                    i += 1
                } else {
                    result.append((nil, b.entry(j)))
                    j += 1
                }
            }
            return result
        }
    }

    /// Whether a tree lists its entries in git's order, as git and libgit2 write them (a tree
    /// that does not is compared through ``pairedEntries(_:_:)``'s dictionaries).
    func entriesAreInGitOrder(_ id: ObjectID) throws -> Bool {
        let tree = try tree(id)
        return withExtendedLifetime(tree) { RawEntries(tree).isInGitOrder }
    }

    /// A tree's entries as libgit2 holds them, borrowed: valid while the tree lives.
    private struct RawEntries {
        var entries: [OpaquePointer] = []
        var names: [UnsafePointer<CChar>] = []
        var lengths: [Int] = []
        var isFolder: [Bool] = []

        init() {}

        init(_ tree: Tree) {
            let count = git_tree_entrycount(tree.pointer)
            entries.reserveCapacity(count)
            names.reserveCapacity(count)
            lengths.reserveCapacity(count)
            isFolder.reserveCapacity(count)
            for index in 0..<count {
                guard let entry = git_tree_entry_byindex(tree.pointer, index), let name = git_tree_entry_name(entry) else { continue }
                entries.append(entry)
                names.append(name)
                lengths.append(strlen(name))
                isFolder.append(git_tree_entry_filemode(entry) == GIT_FILEMODE_TREE)
            }
        }

        var count: Int { entries.count }

        /// git's order of tree entries: names compared bytewise, a folder's as if it ended in
        /// "/" (as ``Repository/pairedEntries(_:_:)`` orders them); 0 for the same name and kind.
        static func order(_ x: RawEntries, _ i: Int, _ y: RawEntries, _ j: Int) -> Int {
            let xLength = x.lengths[i], yLength = y.lengths[j]
            let common = min(xLength, yLength)
            let prefix = memcmp(x.names[i], y.names[j], common)
            if prefix != 0 { return prefix < 0 ? -1 : 1 }
            // After the common part: the next byte, "/" past a folder's name, or the end.
            func next(_ entries: RawEntries, _ index: Int, _ length: Int) -> Int {
                length > common ? Int(UInt8(bitPattern: entries.names[index][common])) : entries.isFolder[index] ? 0x2F : -1
            }
            let p = next(x, i, xLength), q = next(y, j, yLength)
            if p != q { return p < q ? -1 : 1 }
            if p == -1 { return 0 }
            // Both went on with "/" (a folder's end, or a name's own byte against it): compare
            // the rest as the general walk does.
            return Self.orderAfterCommon(x, i, y, j, common)
        }

        private static func orderAfterCommon(_ x: RawEntries, _ i: Int, _ y: RawEntries, _ j: Int, _ common: Int) -> Int {
            func byte(_ entries: RawEntries, _ index: Int, _ position: Int) -> Int {
                let length = entries.lengths[index]
                if position < length { return Int(UInt8(bitPattern: entries.names[index][position])) }
                return position == length && entries.isFolder[index] ? 0x2F : -1
            }
            var position = common
            while true {
                let p = byte(x, i, position), q = byte(y, j, position)
                if p != q { return p < q ? -1 : 1 }
                if p == -1 { return 0 }
                position += 1
            }
        }

        /// Whether every entry comes after the one before it in git's order.
        var isInGitOrder: Bool { count < 2 || (1..<count).allSatisfy { Self.order(self, $0 - 1, self, $0) < 0 } }

        func holdsSame(_ i: Int, as other: RawEntries, _ j: Int) -> Bool {
            git_tree_entry_filemode(entries[i]) == git_tree_entry_filemode(other.entries[j])
                && git_oid_equal(git_tree_entry_id(entries[i]), git_tree_entry_id(other.entries[j])) != 0
        }

        func entry(_ i: Int) -> TreeEntry {
            TreeEntry(
                name: String(cString: names[i]), id: ObjectID(git_tree_entry_id(entries[i]).pointee),
                mode: FileMode(raw: git_tree_entry_filemode(entries[i])))
        }
    }

    /// The entries of two trees paired by name. Trees list entries in git's order (names
    /// compared bytewise, a folder's as if it ended in "/"), so one merge pass pairs them;
    /// a tree that is not in that order (not written by git or libgit2) is paired by a
    /// dictionary instead. A name that is a file on one side and a folder on the other
    /// comes as two pairs, each with one side, which the caller treats like one.
    static func pairedEntries(_ old: [TreeEntry], _ new: [TreeEntry]) -> [(TreeEntry?, TreeEntry?)] {
        func order(_ a: TreeEntry, _ b: TreeEntry) -> Int {
            var x = a.name.utf8.makeIterator(), y = b.name.utf8.makeIterator()
            var xSlash = a.mode.isTree, ySlash = b.mode.isTree
            while true {
                let p: Int, q: Int
                if let byte = x.next() { p = Int(byte) } else if xSlash { p = 0x2F; xSlash = false } else { p = -1 }
                if let byte = y.next() { q = Int(byte) } else if ySlash { q = 0x2F; ySlash = false } else { q = -1 }
                if p != q { return p < q ? -1 : 1 }
                if p == -1 { return 0 }
            }
        }
        func sorted(_ entries: [TreeEntry]) -> Bool {
            zip(entries, entries.dropFirst()).allSatisfy { order($0, $1) < 0 }
        }
        guard sorted(old), sorted(new) else {
            let oldByName = Dictionary(old.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let newByName = Dictionary(new.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            return Set(oldByName.keys).union(newByName.keys).map { (oldByName[$0], newByName[$0]) }
        }
        var result: [(TreeEntry?, TreeEntry?)] = []
        result.reserveCapacity(max(old.count, new.count))
        var i = 0, j = 0
        while i < old.count || j < new.count {
            if i == old.count { result.append((nil, new[j])); j += 1; continue }
            if j == new.count { result.append((old[i], nil)); i += 1; continue }
            let comparison = order(old[i], new[j])
            if comparison == 0 {
                result.append((old[i], new[j])); i += 1; j += 1
            } else if comparison < 0 {
                result.append((old[i], nil)); i += 1
            } else {
                result.append((nil, new[j])); j += 1
            }
        }
        return result
    }

    /// Renamed files between two trees, found by libgit2's similarity detection (old → new
    /// path). A list, not a dictionary: a `[String: …]` takes two spellings of one name (NFC
    /// and NFD) for one key.
    /// (docs/MODEL.md: R23.)
    func renames(from old: ObjectID, to new: ObjectID) throws -> [(old: String, new: String)] {
        GitWorkCounter.countTreeDiff()
        let oldTree = try tree(old)
        let newTree = try tree(new)
        var diff: OpaquePointer?
        try withExtendedLifetime((oldTree, newTree)) {
            _ = try check(git_diff_tree_to_tree(&diff, pointer, oldTree.pointer, newTree.pointer, nil))
        }
        defer { git_diff_free(diff) }
        var options = git_diff_find_options()
        try check(git_diff_find_options_init(&options, UInt32(GIT_DIFF_FIND_OPTIONS_VERSION)))
        options.flags = GIT_DIFF_FIND_RENAMES.rawValue
        try check(git_diff_find_similar(diff, &options))
        var result: [(old: String, new: String)] = []
        for index in 0..<git_diff_num_deltas(diff) {
            guard let delta = git_diff_get_delta(diff, index)?.pointee, delta.status == GIT_DELTA_RENAMED else { continue }
            // A rename needs content: git leaves empty files out of rename detection, else any
            // empty file deleted "moves" to any empty file created (docs/RESOLVING.md).
            guard ObjectID(delta.old_file.id) != ObjectID.emptyBlob else { continue }
            result.append((String(cString: delta.old_file.path), String(cString: delta.new_file.path)))
        }
        return result
    }
}
