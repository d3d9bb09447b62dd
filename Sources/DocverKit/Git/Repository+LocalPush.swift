internal import Clibgit2
import Foundation

// A push of big blobs to a bare repository on this machine, a piece at a time.
//
// libgit2's pack builder reads every object it sends whole (and a loose one's compressed
// file besides), and its local transport then indexes the pack it wrote through the indexer,
// which maps the whole of a big object's packed bytes at once to check them: a push of a
// 256 MiB document peaked at 562 MB. Here the big blobs go first, into a pack of their own
// written by ``PackWriter`` from ``BlobInflater``'s pieces; libgit2's pack builder then sends
// the rest (commits, trees, small blobs, with its deltas), told that the big blobs are there
// already; the branch moves last, by compare-and-swap, as libgit2's local push moves it.

extension Repository {
    /// Pushes `branch` (fast-forward only, as a refspec without `+`) to the bare repository
    /// at `path` when the push sends a blob of `bigSize` bytes or more; returns nil,
    /// having written nothing, when it sends none (or the repository there is not bare): the
    /// caller pushes through libgit2 then. Returns the refusal reasons by branch, as
    /// ``Remote/push(_:settings:progress:)`` does; throws `.nonFastForward` as libgit2 does.
    func pushStreamingBigBlobs(
        branch: String, to path: String, bigSize: Int64, progress: ((TransferCounts) -> Void)?
    ) throws -> [String: String]? {
        guard let head = try referenceTarget(branch) else { return nil }
        let remote = try Repository(opening: path, search: false)
        guard remote.isBare else { return nil }
        let remoteTips = try remote.references(matching: "refs/*")
        let old = remoteTips.first(where: { $0.name == branch })?.target
        if old == head { return [:] }
        let hidden = try remoteTips.map(\.target).filter { try commitExists($0) }
        let big = try bigBlobs(from: head, hiding: hidden, absentFrom: remote, bigSize: bigSize)
        guard !big.isEmpty else { return nil }
        if let old {
            guard try objectExists(old) else {
                throw GitError(
                    code: .nonFastForward,
                    message:
                        "cannot push because a reference that you are trying to update on the remote contains commits that are not present locally.",
                    function: "git_remote_push")
            }
            guard try isAncestorOrSame(old, of: head) else {
                throw GitError(code: .nonFastForward, message: "cannot push non-fastforwardable reference", function: "git_remote_push")
            }
        }
        let packFolder = remote.gitDirectory + "objects/pack"
        var bytes = 0
        var sent = 0
        // The big blobs the remote lacks: a pack of their own.
        let missing = big.filter { !$0.isThere }
        let total = missing.count
        if !missing.isEmpty {
            let writer = try PackWriter(folder: packFolder, count: missing.count)
            for (id, size, _) in missing {
                try writer.add(id, type: 3, size: UInt64(size)) { append in try readBlob(id, into: append) }
                sent += 1
                progress?(TransferCounts(objects: sent, totalObjects: total, indexedObjects: 0, bytes: Int(writer.size)))
            }
            bytes += Int(writer.size)
            _ = try writer.finish()
        }
        // The rest, through libgit2's pack builder, which leaves out what the hidden commits
        // hold: the remote's tips, and a commit of the big blobs that only a second handle on
        // this repository holds, in memory (nothing of it is written here).
        let scratch = try Repository(opening: gitDirectory, search: false)
        try scratch.keepWritesInMemory()
        let seedTree = try scratch.writeTree(entries: big.map { (name: $0.id.hex, id: $0.id, mode: FileMode.blob) })
        let identity = Identity(name: "docver", email: "docver@localhost", time: Date(timeIntervalSince1970: 0), offsetMinutes: 0)
        let seed = try scratch.createCommit(
            tree: seedTree, parents: [], author: identity, committer: identity, message: "docver: big blobs already pushed\n")
        let walk = try Revwalk(repository: scratch)
        walk.setSorting(GIT_SORT_TIME.rawValue)
        try walk.push(head)
        for tip in hidden + [seed] { try walk.hide(tip) }
        var builder: OpaquePointer?
        try check(git_packbuilder_new(&builder, scratch.pointer))
        defer { git_packbuilder_free(builder) }
        try check(git_packbuilder_insert_walk(builder, walk.pointer))
        let rest = git_packbuilder_object_count(builder)
        if rest > 0 {
            let before = Remote.packSizes(in: packFolder).values.reduce(0, +)
            try check(git_packbuilder_write(builder, packFolder, 0, nil, nil))
            bytes += max(0, Remote.packSizes(in: packFolder).values.reduce(0, +) - before)
        }
        // The objects are there: the branch moves, if nobody moved it meanwhile.
        do {
            try remote.updateReference(branch, to: head, expected: old, message: "push")
        } catch let error as GitError where error.code == .modified || error.code == .exists {
            return [branch: "the branch moved on the remote during the push (stale info): fetch first"]
        } catch let error as GitError where error.code == .locked {
            return [branch: "failed to lock the branch on the remote: \(error.message)"]
        }
        progress?(TransferCounts(objects: total + rest, totalObjects: total + rest, indexedObjects: 0, bytes: bytes))
        return [:]
    }

    /// The blobs of `bigSize` bytes or more that the commits from `head` not reachable
    /// from `hidden` bring, with their sizes and whether `remote` has them already (a push
    /// stopped after its big blobs), in the order first met.
    ///
    /// A commit brings what its tree holds that none of its parents' trees holds at the same
    /// path: what is the same is not entered, so the walk costs what changed. (A parent is
    /// either hidden, and the remote has what it holds, or walked itself.)
    private func bigBlobs(
        from head: ObjectID, hiding hidden: [ObjectID], absentFrom remote: Repository, bigSize: Int64
    ) throws -> [(id: ObjectID, size: Int64, isThere: Bool)] {
        var remoteODB: OpaquePointer?
        try check(git_repository_odb(&remoteODB, remote.pointer))
        defer { git_odb_free(remoteODB) }
        func remoteHas(_ id: ObjectID) -> Bool {
            var raw = id.raw
            return git_odb_exists_ext(remoteODB, &raw, UInt32(GIT_ODB_LOOKUP_NO_REFRESH.rawValue)) == 1
        }
        let walk = try Revwalk(repository: self)
        walk.setSorting(GIT_SORT_NONE.rawValue)
        try walk.push(head)
        for tip in hidden { try walk.hide(tip) }
        var seen = Set<ObjectID>()
        var found: [(id: ObjectID, size: Int64, isThere: Bool)] = []
        while let id = try walk.next() {
            let commit = try commit(id)
            var pending: [(tree: ObjectID, parents: [ObjectID])] = [(commit.treeID, try commit.parentIDs.map { try self.commit($0).treeID })]
            while let (treeID, parentTrees) = pending.popLast() {
                guard !parentTrees.contains(treeID), seen.insert(treeID).inserted else { continue }
                let parents = try parentTrees.map { try tree($0) }
                for entry in try tree(treeID).entries {
                    let before = parents.compactMap { $0.entry(named: entry.name) }
                    if before.contains(where: { $0.id == entry.id }) { continue }
                    if entry.mode.isTree {
                        pending.append((entry.id, before.filter(\.mode.isTree).map(\.id)))
                    } else if entry.mode.isBlob, seen.insert(entry.id).inserted, let size = try blobSizeIfHere(entry.id),
                        size >= bigSize
                    {
                        found.append((entry.id, size, remoteHas(entry.id)))
                    }
                }
            }
        }
        return found
    }

    /// Makes every object written through this handle stay in memory (libgit2's mempack
    /// backend, in front of the others) and go when the handle does.
    private func keepWritesInMemory() throws {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer))
        defer { git_odb_free(odb) }
        var backend: UnsafeMutablePointer<git_odb_backend>?
        try check(git_mempack_new(&backend))
        let added = git_odb_add_backend(odb, backend, 1000)
        // (The object database owns the backend once added.)
        if added < 0 { backend?.pointee.free(backend) }
        try check(added)
    }
}
