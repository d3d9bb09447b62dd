import Foundation
internal import Clibgit2

/// An open libgit2 repository. Owns its `git_repository` handle.
///
/// Not thread-safe (libgit2 objects are not): each docver operation opens its own.
final class Repository {
    let pointer: OpaquePointer

    private init(pointer: OpaquePointer) { self.pointer = pointer }

    deinit { git_repository_free(pointer) }

    /// Opens the repository at `path`, or (with `search`) the nearest one above it, like git.
    convenience init(opening path: String, search: Bool) throws {
        _ = libgit2Initialised
        var handle: OpaquePointer?
        let flags = search ? 0 : GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue
        try check(git_repository_open_ext(&handle, path, flags, nil))
        self.init(pointer: handle!)
    }

    /// Creates a non-bare repository whose unborn HEAD points at `initialHead`.
    static func create(at path: String, initialHead: String) throws -> Repository {
        _ = libgit2Initialised
        var options = git_repository_init_options()
        try check(git_repository_init_options_init(&options, UInt32(GIT_REPOSITORY_INIT_OPTIONS_VERSION)))
        options.flags = GIT_REPOSITORY_INIT_MKPATH.rawValue
        var handle: OpaquePointer?
        try initialHead.withCString { head in
            options.initial_head = head
            try check(git_repository_init_ext(&handle, path, &options))
        }
        return Repository(pointer: handle!)
    }

    var isBare: Bool { git_repository_is_bare(pointer) == 1 }

    /// The working directory, with a trailing slash.
    var workdir: String? { git_repository_workdir(pointer).map { String(cString: $0) } }

    /// The `.git` directory, with a trailing slash.
    var gitDirectory: String { String(cString: git_repository_path(pointer)) }

    // MARK: Config

    func configString(_ key: String) throws -> String? {
        var config: OpaquePointer?
        try check(git_repository_config_snapshot(&config, pointer))
        defer { git_config_free(config) }
        var value: UnsafePointer<CChar>?
        let result = git_config_get_string(&value, config, key)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result)
        return value.map { String(cString: $0) }
    }

    func configStrings(matching pattern: String) throws -> [(name: String, value: String)] {
        var config: OpaquePointer?
        try check(git_repository_config_snapshot(&config, pointer))
        defer { git_config_free(config) }
        var iterator: OpaquePointer?
        try check(git_config_iterator_glob_new(&iterator, config, pattern))
        defer { git_config_iterator_free(iterator) }
        var result: [(String, String)] = []
        var entry: UnsafeMutablePointer<git_config_entry>?
        while true {
            let code = git_config_next(&entry, iterator)
            if code == GIT_ITEROVER.rawValue { break }
            try check(code)
            if let entry {
                result.append((String(cString: entry.pointee.name), String(cString: entry.pointee.value)))
            }
        }
        return result
    }

    func setConfig(_ key: String, _ value: String) throws {
        var config: OpaquePointer?
        try check(git_repository_config(&config, pointer))
        defer { git_config_free(config) }
        try check(git_config_set_string(config, key, value))
    }

    // MARK: References

    /// The object a reference points at (following symbolic references); nil when absent or unborn.
    func referenceTarget(_ name: String) throws -> ObjectID? {
        var oid = git_oid()
        let result = git_reference_name_to_id(&oid, pointer, name)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result)
        return ObjectID(oid)
    }

    /// The name a symbolic reference (such as HEAD) points at.
    func symbolicTarget(of name: String) throws -> String? {
        var reference: OpaquePointer?
        let result = git_reference_lookup(&reference, pointer, name)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result)
        defer { git_reference_free(reference) }
        return git_reference_symbolic_target(reference).map { String(cString: $0) }
    }

    func setHead(_ referenceName: String) throws {
        try check(git_repository_set_head(pointer, referenceName))
    }

    /// Compare-and-swap: points `name` at `target` only if it still points at `expected`
    /// (or does not exist yet when `expected` is nil). Throws `.modified`/`.exists` otherwise.
    func updateReference(_ name: String, to target: ObjectID, expected: ObjectID?, message: String) throws {
        var reference: OpaquePointer?
        var newID = target.raw
        if var old = expected?.raw {
            try check(git_reference_create_matching(&reference, pointer, name, &newID, 1, &old, message))
        } else {
            try check(git_reference_create(&reference, pointer, name, &newID, 0, message))
        }
        git_reference_free(reference)
    }

    /// Points `name` at `target` unconditionally (for remote-tracking references docver owns).
    func forceReference(_ name: String, to target: ObjectID, message: String) throws {
        var reference: OpaquePointer?
        var newID = target.raw
        try check(git_reference_create(&reference, pointer, name, &newID, 1, message))
        git_reference_free(reference)
    }

    /// All direct references whose names match a glob such as `refs/remotes/*/docver/*`.
    func references(matching glob: String) throws -> [(name: String, target: ObjectID)] {
        var iterator: OpaquePointer?
        try check(git_reference_iterator_glob_new(&iterator, pointer, glob))
        defer { git_reference_iterator_free(iterator) }
        var result: [(String, ObjectID)] = []
        var reference: OpaquePointer?
        while true {
            let code = git_reference_next(&reference, iterator)
            if code == GIT_ITEROVER.rawValue { break }
            try check(code)
            defer { git_reference_free(reference) }
            if let target = git_reference_target(reference) {
                result.append((String(cString: git_reference_name(reference)), ObjectID(target.pointee)))
            }
        }
        return result
    }

    // MARK: Objects

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

    /// Resolves a unique abbreviation of a commit id (at least four hexadecimal digits).
    func resolveCommitPrefix(_ prefix: String) throws -> ObjectID {
        var oid = git_oid()
        try check(git_oid_fromstrn(&oid, prefix, prefix.utf8.count))
        var object: OpaquePointer?
        try check(git_object_lookup_prefix(&object, pointer, &oid, prefix.utf8.count, GIT_OBJECT_COMMIT))
        defer { git_object_free(object) }
        return ObjectID(git_object_id(object).pointee)
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
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw GitError(code: .notFound, message: "cannot open \(path) for reading", function: #function)
        }
        defer { try? file.close() }
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer))
        defer { git_odb_free(odb) }
        var stream: UnsafeMutablePointer<git_odb_stream>?
        try check(git_odb_open_wstream(&stream, odb, git_object_size_t(expectedSize), GIT_OBJECT_BLOB))
        defer { git_odb_stream_free(stream) }
        var written: Int64 = 0
        while true {
            let chunk = try file.read(upToCount: 1 << 20) ?? Data()
            if chunk.isEmpty { break }
            written += Int64(chunk.count)
            guard written <= expectedSize else { break }
            try chunk.withUnsafeBytes { buffer in
                _ = try check(git_odb_stream_write(stream, buffer.baseAddress, buffer.count))
            }
        }
        guard written == expectedSize else {
            throw GitError(code: .modified, message: "\(path) changed while it was being saved", function: #function)
        }
        var oid = git_oid()
        try check(git_odb_stream_finalize_write(&oid, stream))
        return ObjectID(oid)
    }

    struct TreeUpdate {
        enum Action { case upsert(ObjectID, FileMode), remove }
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

    struct Identity {
        var name: String
        var email: String
        var time: Date
        var offsetMinutes: Int32
    }

    /// Creates a commit object without moving any reference (the caller does a CAS update).
    func createCommit(tree treeID: ObjectID, parents: [ObjectID], author: Identity, committer: Identity,
                      message: String) throws -> ObjectID {
        let authorSignature = try Signature(author)
        let committerSignature = try Signature(committer)
        let treeObject = try tree(treeID)
        let parentCommits = try parents.map { try commit($0) }
        var parentPointers: [OpaquePointer?] = parentCommits.map { $0.pointer }
        var oid = git_oid()
        try withExtendedLifetime((authorSignature, committerSignature, treeObject, parentCommits)) {
            _ = try check(git_commit_create(&oid, pointer, nil, authorSignature.pointer, committerSignature.pointer,
                                            "UTF-8", message, treeObject.pointer, parentPointers.count, &parentPointers))
        }
        return ObjectID(oid)
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
            guard let entryA, let entryB else { return entryA == nil && entryB == nil }
            if depth == components.count - 1 || entryA.id == entryB.id {
                return entryA.id == entryB.id && entryA.mode == entryB.mode
            }
            guard entryA.mode.isTree, entryB.mode.isTree else { return false }
            treeA = entryA.id
            treeB = entryB.id
        }
        return treeA == treeB
    }

    // MARK: Graph

    func mergeBase(_ a: ObjectID, _ b: ObjectID) throws -> ObjectID? {
        var oid = git_oid()
        var ra = a.raw, rb = b.raw
        let result = git_merge_base(&oid, pointer, &ra, &rb)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result)
        return ObjectID(oid)
    }

    /// True when `commit` is a strict descendant of `ancestor`.
    func isDescendant(_ commit: ObjectID, of ancestor: ObjectID) throws -> Bool {
        var c = commit.raw, a = ancestor.raw
        return try check(git_graph_descendant_of(pointer, &c, &a)) == 1
    }

    func isAncestorOrSame(_ ancestor: ObjectID, of commit: ObjectID) throws -> Bool {
        try ancestor == commit || isDescendant(commit, of: ancestor)
    }

    func revwalk(from tips: [ObjectID], hiding hidden: [ObjectID] = [], topological: Bool = true) throws -> Revwalk {
        let walk = try Revwalk(repository: self)
        walk.setSorting(topological ? (GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue) : GIT_SORT_NONE.rawValue)
        for tip in tips { try walk.push(tip) }
        for hide in hidden { try walk.hide(hide) }
        return walk
    }

    // MARK: Index and working tree

    func index() throws -> Index {
        var handle: OpaquePointer?
        try check(git_repository_index(&handle, pointer))
        return Index(pointer: handle!)
    }

    struct WorkdirChange {
        enum Kind { case added, modified, deleted }
        var path: String
        var kind: Kind
    }

    /// Files whose working-tree state differs from `tree` (untracked ones included, ignored
    /// ones not), using the index's stat data to avoid hashing unchanged files.
    ///
    /// With `refreshIndex`, files found unchanged after hashing get fresh stat data written to
    /// the index (as `git status` does), so the next check need not hash them again. Only for
    /// callers holding the container's writer lock.
    func changesFromTreeToWorkdir(_ treeID: ObjectID?, paths: [String] = [], refreshIndex: Bool = false) throws -> [WorkdirChange] {
        var options = git_diff_options()
        try check(git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION)))
        options.flags = GIT_DIFF_INCLUDE_UNTRACKED.rawValue | GIT_DIFF_RECURSE_UNTRACKED_DIRS.rawValue
            | GIT_DIFF_INCLUDE_TYPECHANGE.rawValue | GIT_DIFF_DISABLE_PATHSPEC_MATCH.rawValue
        if refreshIndex { options.flags |= GIT_DIFF_UPDATE_INDEX.rawValue }
        let treeObject = try treeID.map { try tree($0) }
        let cPaths = paths.map { strdup($0) }
        defer { cPaths.forEach { free($0) } }
        var pathPointers: [UnsafeMutablePointer<CChar>?] = cPaths
        var diff: OpaquePointer?
        try pathPointers.withUnsafeMutableBufferPointer { buffer in
            if !paths.isEmpty {
                options.pathspec = git_strarray(strings: buffer.baseAddress, count: buffer.count)
                options.flags &= ~GIT_DIFF_DISABLE_PATHSPEC_MATCH.rawValue
            }
            try withExtendedLifetime(treeObject) {
                _ = try check(git_diff_tree_to_workdir_with_index(&diff, pointer, treeObject?.pointer, &options))
            }
        }
        defer { git_diff_free(diff) }
        var result: [WorkdirChange] = []
        for index in 0..<git_diff_num_deltas(diff) {
            guard let delta = git_diff_get_delta(diff, index)?.pointee else { continue }
            switch delta.status {
            case GIT_DELTA_ADDED, GIT_DELTA_UNTRACKED:
                result.append(.init(path: String(cString: delta.new_file.path), kind: .added))
            case GIT_DELTA_DELETED:
                result.append(.init(path: String(cString: delta.old_file.path), kind: .deleted))
            case GIT_DELTA_MODIFIED, GIT_DELTA_TYPECHANGE:
                result.append(.init(path: String(cString: delta.new_file.path), kind: .modified))
            default:
                continue
            }
        }
        return result
    }

    /// Updates the working tree and index from `baseline` to `target`. Files whose contents
    /// differ from the baseline (local edits) are never overwritten: they are skipped.
    func checkout(tree target: ObjectID, baseline: ObjectID?, paths: [String]? = nil, force: Bool = false) throws {
        var options = git_checkout_options()
        try check(git_checkout_options_init(&options, UInt32(GIT_CHECKOUT_OPTIONS_VERSION)))
        options.checkout_strategy = force
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

    /// True when git's ignore rules (.gitignore, info/exclude) exclude `path`.
    func isIgnored(_ path: String) throws -> Bool {
        var ignored: Int32 = 0
        try check(git_ignore_path_is_ignored(&ignored, pointer, path))
        return ignored == 1
    }
}

/// A git file mode as stored in trees.
struct FileMode: Equatable, Sendable {
    var raw: git_filemode_t
    static let blob = FileMode(raw: GIT_FILEMODE_BLOB)
    static let executable = FileMode(raw: GIT_FILEMODE_BLOB_EXECUTABLE)
    static let link = FileMode(raw: GIT_FILEMODE_LINK)
    static let tree = FileMode(raw: GIT_FILEMODE_TREE)
    static let commit = FileMode(raw: GIT_FILEMODE_COMMIT)
    var isTree: Bool { raw == GIT_FILEMODE_TREE }
    var isBlob: Bool { raw == GIT_FILEMODE_BLOB || raw == GIT_FILEMODE_BLOB_EXECUTABLE || raw == GIT_FILEMODE_LINK }
}

/// A `git_signature`, freed when done.
final class Signature {
    let pointer: UnsafeMutablePointer<git_signature>
    init(_ identity: Repository.Identity) throws {
        var handle: UnsafeMutablePointer<git_signature>?
        let seconds = git_time_t(identity.time.timeIntervalSince1970.rounded(.down))
        try check(git_signature_new(&handle, identity.name, identity.email, seconds, identity.offsetMinutes))
        pointer = handle!
    }
    deinit { git_signature_free(pointer) }
}

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

extension Repository {
    /// The best common ancestor of several commits, for an octopus merge; nil when unrelated.
    func mergeBase(of commits: [ObjectID]) throws -> ObjectID? {
        guard commits.count > 1 else { return commits.first }
        var raw = commits.map(\.raw)
        var oid = git_oid()
        let result = git_merge_base_octopus(&oid, pointer, raw.count, &raw)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result)
        return ObjectID(oid)
    }
}
