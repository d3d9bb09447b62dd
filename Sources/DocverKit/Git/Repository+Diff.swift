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
            for (before, after) in try differingEntries(folder.old, folder.new) {
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
    func differingEntries(_ old: ObjectID?, _ new: ObjectID?) throws -> [(TreeEntry?, TreeEntry?)] {
        func pairs(_ a: [BorrowedTreeEntry], _ b: [BorrowedTreeEntry]) -> [(TreeEntry?, TreeEntry?)] {
            guard Self.isInGitOrder(a), Self.isInGitOrder(b) else {
                return Self.pairedEntries(a.map(\.entry), b.map(\.entry)).filter { before, after in
                    guard let before, let after else { return true }
                    return before.id != after.id || before.mode != after.mode
                }
            }
            var result: [(TreeEntry?, TreeEntry?)] = []
            var i = 0, j = 0
            while i < a.count || j < b.count {
                let comparison =
                    i == a.count ? 1 : j == b.count ? -1 : BorrowedTreeEntry.gitOrder(a[i].name, a[i].mode.isTree, b[j].name, b[j].mode.isTree)
                if comparison == 0 {
                    if a[i].id != b[j].id || a[i].mode != b[j].mode { result.append((a[i].entry, b[j].entry)) }
                    i += 1
                    j += 1
                } else if comparison < 0 {
                    result.append((a[i].entry, nil))
                    i += 1
                } else {
                    result.append((nil, b[j].entry))
                    j += 1
                }
            }
            return result
        }
        func entries(_ tree: ObjectID?, _ body: ([BorrowedTreeEntry]) throws -> [(TreeEntry?, TreeEntry?)]) throws -> [(TreeEntry?, TreeEntry?)] {
            guard let tree else { return try body([]) }
            return try withRawTreeEntries(tree, body)
        }
        return try entries(old) { a in try entries(new) { b in pairs(a, b) } }
    }

    /// Whether a tree lists its entries in git's order, as git and libgit2 write them (a tree
    /// that does not is compared through ``pairedEntries(_:_:)``'s dictionaries).
    func entriesAreInGitOrder(_ id: ObjectID) throws -> Bool { try withRawTreeEntries(id) { Self.isInGitOrder($0) } }

    private static func isInGitOrder(_ entries: [BorrowedTreeEntry]) -> Bool {
        zip(entries, entries.dropFirst()).allSatisfy { BorrowedTreeEntry.gitOrder($0.name, $0.mode.isTree, $1.name, $1.mode.isTree) < 0 }
    }

    /// The entries of two trees paired by name. Trees list entries in git's order (names
    /// compared bytewise, a folder's as if it ended in "/"), so one merge pass pairs them;
    /// a tree that is not in that order (not written by git or libgit2) is paired by a
    /// dictionary instead. A name that is a file on one side and a folder on the other
    /// comes as two pairs, each with one side, which the caller treats like one.
    static func pairedEntries(_ old: [TreeEntry], _ new: [TreeEntry]) -> [(TreeEntry?, TreeEntry?)] {
        func order(_ a: TreeEntry, _ b: TreeEntry) -> Int {
            BorrowedTreeEntry.gitOrder(Array(a.name.utf8), a.mode.isTree, Array(b.name.utf8), b.mode.isTree)
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
