internal import Clibgit2
import Foundation

// Fetched objects are received into a quarantine, as git's receive-pack receives pushed ones
// (`objects/tmp_objdir-incoming-*`): a folder of their own under `.git/objects`, read together
// with the repository's objects while the fetched heads are checked, and moved in only for
// the heads accepted. A refused head's objects are deleted with the folder, so they neither
// stay in the object database (where `git fsck --strict` reports them) nor reach libgit2's
// push, which reads the trees of every remote head it finds here.

extension Repository {
    /// The prefix of a quarantine folder's name under `.git/objects`.
    static let incomingPrefix = "incoming-docver-"

    /// Creates an empty quarantine folder (an objects folder with `pack/`) and returns its path.
    /// Those left by a process that was killed before it moved or removed its own are removed
    /// first: the caller holds the container's write lock, so none is in use.
    func createIncomingObjects() throws -> String {
        let objects = gitDirectory + "objects/"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: objects)) ?? [] where name.hasPrefix(Self.incomingPrefix) {
            try? FileManager.default.removeItem(atPath: objects + name)
        }
        var template = Array((objects + Self.incomingPrefix + "XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else {
            throw GitError(
                code: .other(-1), message: "cannot create a folder in \(objects): \(String(cString: strerror(errno)))",
                function: "mkdtemp")
        }
        let path = String(cString: template)
        try FileManager.default.createDirectory(atPath: path + "/pack", withIntermediateDirectories: false)
        return path
    }

    /// This repository opened again with the quarantine folder `incoming` in front of its
    /// object database: objects written through it (a fetch's pack, loose objects) go there,
    /// and reads see both.
    func receiving(into incoming: String) throws -> Repository {
        let view = try Repository(opening: gitDirectory, search: false)
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, view.pointer))
        defer { git_odb_free(odb) }
        // libgit2 writes into the first backend (highest priority) that can write: a pack
        // into the first with a pack writer (both write into `incoming/pack`), a loose object
        // into the first with a writer (the loose one). Reads ask the packs first: a fetch
        // brings its objects in a pack, and asking the loose folder first cost an `access`
        // per object read (10,000 in a clone of 10,000 documents).
        // (Adding fails only without memory; the backend is then leaked.)
        var pack: UnsafeMutablePointer<git_odb_backend>?, loose: UnsafeMutablePointer<git_odb_backend>?
        try check(git_odb_backend_pack(&pack, incoming))
        try check(git_odb_add_backend(odb, pack, 1001))
        try check(git_odb_backend_loose(&loose, incoming, -1, 0, 0, 0))
        try check(git_odb_add_backend(odb, loose, 1000))
        view.incomingObjects = incoming
        return view
    }

    /// Moves every object of the quarantine `incoming` into this repository's object database
    /// (packs by renaming, the index last as git writes it; loose objects by renaming, one
    /// already here kept), then removes the folder.
    func admitAllIncoming(from incoming: String) throws {
        let objects = gitDirectory + "objects/"
        let manager = FileManager.default
        let packs = (try? manager.contentsOfDirectory(atPath: incoming + "/pack")) ?? []
        // A `.promisor` file (a fetch that left contents out) before the index, which makes
        // the pack visible: git never sees such a pack without its mark.
        for suffix in [".pack", ".rev", ".promisor", ".idx"] {
            for name in packs.sorted() where name.hasSuffix(suffix) {
                try moveObjectFile(incoming + "/pack/" + name, to: objects + "pack/" + name)
            }
        }
        for folder in (try? manager.contentsOfDirectory(atPath: incoming)) ?? [] where folder.count == 2 {
            for name in (try? manager.contentsOfDirectory(atPath: incoming + "/" + folder)) ?? [] where name.count == 38 {
                try? manager.createDirectory(atPath: objects + folder, withIntermediateDirectories: false)
                try moveObjectFile(incoming + "/" + folder + "/" + name, to: objects + folder + "/" + name)
            }
        }
        try? manager.removeItem(atPath: incoming)
        refreshObjects()
    }

    /// Copies into this repository's object database, as one new pack, the objects that the
    /// commits `heads` reach and the commits `known` do not, read through `view` (which sees
    /// the quarantine); the quarantine is then removed with whatever else it held.
    func admitIncoming(from incoming: String, view: Repository, heads: [ObjectID], known: [ObjectID]) throws {
        defer {
            try? FileManager.default.removeItem(atPath: incoming)
            refreshObjects()
        }
        guard !heads.isEmpty else { return }
        var walk: OpaquePointer?
        try check(git_revwalk_new(&walk, view.pointer))
        defer { git_revwalk_free(walk) }
        for head in heads {
            var raw = head.raw
            try check(git_revwalk_push(walk, &raw))
        }
        for commit in known where try objectExists(commit) {
            var raw = commit.raw
            try check(git_revwalk_hide(walk, &raw))
        }
        var builder: OpaquePointer?
        try check(git_packbuilder_new(&builder, view.pointer))
        defer { git_packbuilder_free(builder) }
        try check(git_packbuilder_insert_walk(builder, walk))
        guard git_packbuilder_object_count(builder) > 0 else { return }
        try check(git_packbuilder_write(builder, gitDirectory + "objects/pack", 0, nil, nil))
    }

    /// Renames an object file into place; one already there (the same object) is kept.
    private func moveObjectFile(_ source: String, to destination: String) throws {
        if rename(source, destination) == 0 { return }
        let problem = errno
        if FileManager.default.fileExists(atPath: destination) { return }
        throw GitError(
            code: .other(-1), message: "cannot move \(source) to \(destination): \(String(cString: strerror(problem)))",
            function: "rename")
    }

    /// Makes libgit2 look for packs again (it lists them when it misses an object).
    func refreshObjects() {
        var odb: OpaquePointer?
        guard git_repository_odb(&odb, pointer) == 0 else { return }
        defer { git_odb_free(odb) }
        _ = git_odb_refresh(odb)
    }
}
