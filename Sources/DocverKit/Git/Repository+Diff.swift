import Foundation
internal import Clibgit2

// Tree-to-tree differences: changed paths and renames.

extension Repository {
    /// Paths of files that differ between two trees (either may be nil: the empty tree).
    /// Identical subtrees are skipped by id, so the cost follows the size of the change.
    func changedPaths(from old: ObjectID?, to new: ObjectID?) throws -> [String] {
        let oldTree = try old.map { try tree($0) }
        let newTree = try new.map { try tree($0) }
        var diff: OpaquePointer?
        try withExtendedLifetime((oldTree, newTree)) {
            _ = try check(git_diff_tree_to_tree(&diff, pointer, oldTree?.pointer, newTree?.pointer, nil))
        }
        defer { git_diff_free(diff) }
        return (0..<git_diff_num_deltas(diff)).compactMap { index in
            guard let delta = git_diff_get_delta(diff, index)?.pointee else { return nil }
            let path = delta.status == GIT_DELTA_DELETED ? delta.old_file.path : delta.new_file.path
            return path.map { String(cString: $0) }
        }
    }

    /// Renamed files between two trees, found by libgit2's similarity detection (old → new path).
    func renames(from old: ObjectID, to new: ObjectID) throws -> [String: String] {
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
        var result: [String: String] = [:]
        for index in 0..<git_diff_num_deltas(diff) {
            guard let delta = git_diff_get_delta(diff, index)?.pointee, delta.status == GIT_DELTA_RENAMED else { continue }
            result[String(cString: delta.old_file.path)] = String(cString: delta.new_file.path)
        }
        return result
    }
}
