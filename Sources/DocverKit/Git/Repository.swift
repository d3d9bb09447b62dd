internal import Clibgit2
import Foundation

/// An open libgit2 repository. Owns its `git_repository` handle.
///
/// Not thread-safe (libgit2 objects are not): each docver operation opens its own.
final class Repository {
    let pointer: OpaquePointer
    /// Objects found complete by ``refuseTruncatedLooseObject(_:)``.
    var checkedLooseObjects: Set<ObjectID> = []
    /// The quarantine folder this repository writes received objects into
    /// (``receiving(into:)``); nil: its own object database.
    var incomingObjects: String?
    /// The trailers of commits with long messages, parsed once (``Commit/trailers``): a save
    /// of 20,000 documents has a 470 KB message, and its device was asked once per document
    /// (a clone of 20,000 documents spent 90 % of 149 s parsing it). Cleared when it holds
    /// ``parsedTrailersLimit`` commits.
    var parsedTrailers: [ObjectID: [(key: String, value: String)]] = [:]
    static let parsedTrailersLimit = 4096
    /// Whether an object this repository lacks is fetched from its promisor remotes when
    /// libgit2 reads it (Repository+OnDemand.swift); off while a caller asks what is here.
    var fetchesMissingObjects = true
    /// The promisor remotes, read at the first missing object.
    var promisors: [String]?
    /// The pack small blobs are written into, during ``writingBlobsIntoOnePack(_:)``.
    var packedBlobs: PackedBlobs?

    private init(pointer: OpaquePointer) {
        self.pointer = pointer
        checkObjectsBeforeLibgit2ReadsThem()
        fetchMissingObjects()
    }

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

    /// Creates an empty bare repository at `path` (and the folders above it), as
    /// `git init --bare` does: a remote devices can sync through.
    static func createBare(at path: String) throws {
        _ = libgit2Initialised
        var options = git_repository_init_options()
        try check(git_repository_init_options_init(&options, UInt32(GIT_REPOSITORY_INIT_OPTIONS_VERSION)))
        options.flags = GIT_REPOSITORY_INIT_MKPATH.rawValue | GIT_REPOSITORY_INIT_BARE.rawValue | GIT_REPOSITORY_INIT_NO_REINIT.rawValue
        var handle: OpaquePointer?
        try check(git_repository_init_ext(&handle, path, &options))
        git_repository_free(handle)
    }

    /// Whether `path` itself (not a folder above it) is a git repository, bare or not.
    static func exists(at path: String) -> Bool {
        _ = libgit2Initialised
        var handle: OpaquePointer?
        guard git_repository_open_ext(&handle, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil) == 0 else { return false }
        git_repository_free(handle)
        return true
    }

    /// Whether `path` itself is a bare repository (true), a repository with a working tree
    /// (false, also for its `.git` folder), or no repository (nil).
    static func isBare(at path: String) -> Bool? {
        _ = libgit2Initialised
        var handle: OpaquePointer?
        guard git_repository_open_ext(&handle, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil) == 0 else { return nil }
        defer { git_repository_free(handle) }
        return git_repository_is_bare(handle) == 1
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

    /// The entries whose name matches the regular expression `pattern`, in the config's
    /// order. Matched here, not by libgit2, which leaks memory at each entry it does not
    /// match (``ConfigSnapshot``).
    func configStrings(matching pattern: String) throws -> [(name: String, value: String)] {
        let expression = try NSRegularExpression(pattern: pattern)
        return try ConfigSnapshot(of: self).entries { name in
            expression.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
        }
    }

    func setConfig(_ key: String, _ value: String) throws {
        var config: OpaquePointer?
        try check(git_repository_config(&config, pointer))
        defer { git_config_free(config) }
        try check(git_config_set_string(config, key, value))
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
    var isExecutable: Bool { raw == GIT_FILEMODE_BLOB_EXECUTABLE }
}

extension FileMode {
    /// The mode a raw tree entry records (``RawTreeEntry/rawMode``).
    init(rawMode: UInt32) { self.init(raw: git_filemode_t(rawValue: rawMode)) }
}

/// A `git_signature`, freed when done.
final class Signature {
    let pointer: UnsafeMutablePointer<git_signature>
    init(_ identity: Repository.Identity) throws {
        var handle: UnsafeMutablePointer<git_signature>?
        let seconds = git_time_t(Repository.Identity.clampedSeconds(identity.time))
        try check(git_signature_new(&handle, identity.name, identity.email, seconds, identity.offsetMinutes))
        pointer = handle!
    }
    deinit { git_signature_free(pointer) }
}
