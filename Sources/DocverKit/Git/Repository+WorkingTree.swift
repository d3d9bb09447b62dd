internal import Clibgit2
import Foundation

// The index and the working tree: status, checkout, ignore rules.

extension Repository {
    func index() throws -> Index {
        var handle: OpaquePointer?
        try check(git_repository_index(&handle, pointer))
        return Index(pointer: handle!)
    }

    struct WorkdirChange {
        enum Kind { case added, modified, deleted }
        var path: String
        var kind: Kind
        /// The name's bytes when they are not UTF-8 (`path` then holds a lossy rendering).
        var invalidName: [UInt8]? = nil

        init(path: UnsafePointer<CChar>, kind: Kind) {
            if let valid = String(validatingCString: path) {
                self.path = valid
            } else {
                self.path = String(cString: path)
                invalidName = Array(UnsafeBufferPointer(start: UnsafeRawPointer(path).assumingMemoryBound(to: UInt8.self), count: strlen(path)))
            }
            self.kind = kind
        }
    }

    /// Runs `body` with a copy of `options` whose pathspec is `paths` (none when empty), given
    /// as bytes (a name need not be UTF-8), as C strings that live until `body` returns.
    private static func withPathspec(
        _ paths: [[UInt8]], _ options: git_diff_options,
        _ body: (inout git_diff_options) throws -> Void
    ) throws {
        let cPaths: [UnsafeMutablePointer<CChar>?] = paths.map { path in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: path.count + 1)
            for (offset, byte) in path.enumerated() { copy[offset] = CChar(bitPattern: byte) }
            copy[path.count] = 0
            return copy
        }
        defer { cPaths.forEach { $0?.deallocate() } }
        var pointers = cPaths
        try pointers.withUnsafeMutableBufferPointer { buffer in
            var scoped = options
            if !paths.isEmpty { scoped.pathspec = git_strarray(strings: buffer.baseAddress, count: buffer.count) }
            try body(&scoped)
        }
    }

    /// Files whose working-tree state differs from `tree` (untracked ones included, ignored
    /// ones not), using the index's stat data to avoid hashing unchanged files.
    ///
    /// With `refreshIndex`, files found unchanged after hashing get fresh stat data written to
    /// the index (as `git status` does), so the next check need not hash them again. Only for
    /// callers holding the container's writer lock. `scanning: false` makes libgit2 read the
    /// whole working tree even when `paths` is empty (the scan's oracle in tests).
    func changesFromTreeToWorkdir(
        _ treeID: ObjectID?, paths: [String] = [], refreshIndex: Bool = false, scanning: Bool = true
    ) throws -> [WorkdirChange] {
        var options = git_diff_options()
        try check(git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION)))
        options.flags =
            GIT_DIFF_INCLUDE_UNTRACKED.rawValue | GIT_DIFF_RECURSE_UNTRACKED_DIRS.rawValue
            | GIT_DIFF_INCLUDE_TYPECHANGE.rawValue | GIT_DIFF_DISABLE_PATHSPEC_MATCH.rawValue
        if refreshIndex { options.flags |= GIT_DIFF_UPDATE_INDEX.rawValue }
        let treeObject = try treeID.map { try tree($0) }
        // The whole tree: docver's own status loop names the files that may have changed
        // (`WorkingTreeScan`), with those the index holds differently from the tree, and the
        // diff looks at those only. Where the scan cannot vouch, the diff reads everything.
        var exactPaths: [[UInt8]]?
        if paths.isEmpty, scanning {
            exactPaths = try pathsToLookAt(since: treeObject, refreshIndex: refreshIndex)
            if exactPaths?.isEmpty == true { return [] }
        } else {
            if refreshIndex { try self.index().refresh() }
            if !paths.isEmpty { options.flags &= ~GIT_DIFF_DISABLE_PATHSPEC_MATCH.rawValue }
        }
        var diff: OpaquePointer?
        let diffWith: (inout git_diff_options) throws -> Void = { options in
            try withExtendedLifetime(treeObject) {
                _ = try check(git_diff_tree_to_workdir_with_index(&diff, self.pointer, treeObject?.pointer, &options))
            }
        }
        // The scan's paths are taken literally (GIT_DIFF_DISABLE_PATHSPEC_MATCH, set above).
        try Self.withPathspec(exactPaths ?? paths.map { Array($0.utf8) }, options, diffWith)
        defer { git_diff_free(diff) }
        var result: [WorkdirChange] = []
        for index in 0..<git_diff_num_deltas(diff) {
            guard let delta = git_diff_get_delta(diff, index)?.pointee else { continue }
            switch delta.status {
            case GIT_DELTA_ADDED, GIT_DELTA_UNTRACKED:
                result.append(.init(path: delta.new_file.path, kind: .added))
            case GIT_DELTA_DELETED:
                result.append(.init(path: delta.old_file.path, kind: .deleted))
            case GIT_DELTA_MODIFIED, GIT_DELTA_TYPECHANGE:
                result.append(.init(path: delta.new_file.path, kind: .modified))
            default:
                continue
            }
        }
        return result
    }

    /// The paths a diff of the whole working tree against `tree` needs to look at: those the
    /// index holds differently from the tree, and those `WorkingTreeScan` names. Nil when the
    /// scan cannot vouch (the diff then reads everything).
    ///
    /// The index is read again first if its file changed, and its racily clean entries are
    /// smudged (see `Index`), as the diff that may refresh it needs; if the file changes while
    /// the scan runs, the scan's answer is about an index the diff will not read: nil.
    func pathsToLookAt(since tree: Tree?, refreshIndex: Bool) throws -> [[UInt8]]? {
        // Names compared as bytes, as libgit2 does unless told to fold case or Unicode forms.
        let config = try ConfigSnapshot(of: self)
        guard let workdir, try config.bool("core.ignorecase") != true, try config.bool("core.precomposeunicode") != true else {
            if refreshIndex { try self.index().refresh() }
            return nil
        }
        let index = try self.index()
        guard let cPath = git_index_path(index.pointer) else {
            if refreshIndex { try index.refresh() }
            return nil
        }
        let indexPath = String(cString: cPath)
        let before = FileStat(path: indexPath)
        try index.refresh()
        guard let before, let scan = WorkingTreeScan(index: index, indexSecond: before.mtimeSeconds),
            var found = scan.candidates(workdir: workdir),
            let after = FileStat(path: indexPath), after.sameFile(as: before)
        else { return nil }
        found += try stagedPaths(since: tree, index: index)
        return Array(Set(found))
    }

    /// The paths `index` holds differently from `tree`, among `paths` (taken literally) or
    /// all of them when `paths` is empty, as bytes.
    private func stagedPaths(since tree: Tree?, index: Index?, among paths: [[UInt8]] = []) throws -> [[UInt8]] {
        var options = git_diff_options()
        try check(git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION)))
        options.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH.rawValue | GIT_DIFF_INCLUDE_TYPECHANGE.rawValue
        var diff: OpaquePointer?
        try Self.withPathspec(paths, options) { options in
            try withExtendedLifetime((tree, index)) {
                _ = try check(git_diff_tree_to_index(&diff, pointer, tree?.pointer, index?.pointer, &options))
            }
        }
        defer { git_diff_free(diff) }
        var result: [[UInt8]] = []
        for position in 0..<git_diff_num_deltas(diff) {
            guard let delta = git_diff_get_delta(diff, position)?.pointee else { continue }
            for path in [delta.old_file.path, delta.new_file.path] {
                guard let path else { continue }
                result.append(Array(UnsafeBufferPointer(start: UnsafeRawPointer(path).assumingMemoryBound(to: UInt8.self), count: strlen(path))))
            }
        }
        return result
    }

    /// Those of `paths` whose index entry differs from `tree` (git's staged changes). docver
    /// keeps the index at the saved state, so these are the files of an index older or newer
    /// than the branch (restored from a backup, `git reset --soft`): a stat-clean file there
    /// is compared with the index's blob, not the tree's, and must be looked at again.
    /// (An array, not a set of Strings: a set would take two Unicode spellings of one name
    /// for one path.)
    func pathsStaged(against treeID: ObjectID?, paths: [String]) throws -> [String] {
        guard !paths.isEmpty else { return [] }
        let treeObject = try treeID.map { try tree($0) }
        return try stagedPaths(since: treeObject, index: nil, among: paths.map { Array($0.utf8) })
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Updates the working tree and index from `baseline` to `target`. Files whose contents
    /// differ from the baseline (local edits) are never overwritten: they are skipped.
    func checkout(tree target: ObjectID, baseline: ObjectID?, paths: [String]? = nil, force: Bool = false) throws {
        var options = git_checkout_options()
        try check(git_checkout_options_init(&options, UInt32(GIT_CHECKOUT_OPTIONS_VERSION)))
        options.checkout_strategy =
            force
            ? GIT_CHECKOUT_FORCE.rawValue
            : GIT_CHECKOUT_SAFE.rawValue | GIT_CHECKOUT_ALLOW_CONFLICTS.rawValue
        let targetTree = try tree(target)
        let baselineTree = try baseline.map { try tree($0) }
        options.baseline = baselineTree?.pointer
        let cPaths = (paths ?? []).map { strdup($0) }
        defer { cPaths.forEach { free($0) } }
        var pathPointers: [UnsafeMutablePointer<CChar>?] = cPaths
        try pathPointers.withUnsafeMutableBufferPointer { buffer in
            if paths != nil {
                options.paths = git_strarray(strings: buffer.baseAddress, count: buffer.count)
                options.checkout_strategy |= GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH.rawValue
            }
            try withExtendedLifetime((targetTree, baselineTree)) {
                _ = try check(git_checkout_tree(pointer, targetTree.pointer, &options))
            }
        }
    }

    /// Replaces the index with `tree`'s entries, without stat data (the next status hashes the
    /// files once): for an index file that was emptied.
    func resetIndex(to tree: ObjectID?) throws {
        let index = try self.index()
        if let tree {
            let treeObject = try self.tree(tree)
            try withExtendedLifetime(treeObject) { _ = try check(git_index_read_tree(index.pointer, treeObject.pointer)) }
        } else {
            try check(git_index_clear(index.pointer))
        }
        try index.write()
    }

    /// True when git's ignore rules (.gitignore, info/exclude) exclude `path`.
    func isIgnored(_ path: String) throws -> Bool {
        var ignored: Int32 = 0
        try check(git_ignore_path_is_ignored(&ignored, pointer, path))
        return ignored == 1
    }
}
