import Foundation
import Synchronization

/// Reads, extends and writes the version index of one repository
/// (`.git/docver/version-index`, see ``VersionIndexFile``).
///
/// Loading trusts nothing: a file of another format version, a segment whose checksum or
/// structure is wrong, or a commit whose recorded parents differ from the repository's ends
/// what is read, and the rest is indexed again from the repository. Extending indexes only
/// the commits the tips reach that the index lacks (a walk hiding the index's own tips), so
/// its cost follows the new commits; they are appended as one segment in a single write, or
/// the whole file is replaced atomically when the old one could not be read to its end.
struct VersionIndexStore {
    let file: String
    let repository: Repository

    /// Segments beyond this many are folded into one file on the next write.
    static let segmentLimit = 64

    /// Indexes this process already read, by file, with the file's identity (inode, size,
    /// modification time) when it was read or last written here: a command that asks several
    /// history questions (`versions` asks four) decodes the file once. A file changed since
    /// (by another process, or damaged) is read again.
    private static let loaded = Mutex<[String: (stamp: [Int], index: VersionIndex)]>([:])

    private var stamp: [Int]? {
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        return [Int(info.st_ino), Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
    }

    /// The index covering every commit reachable from `tips`, updated on disk when it learned
    /// something. Writing is best effort: failing to write costs time on the next call only.
    func load(covering tips: [ObjectID]) throws -> VersionIndex {
        if let cached = Self.loaded.withLock({ $0[file] }), let now = stamp, cached.stamp == now {
            return try extending(cached.index, to: tips) { written, index in
                Self.loaded.withLock { $0[file] = written.map { ($0, index) } }
            }
        }
        let index = try readAndExtend(covering: tips)
        let written = stamp
        Self.loaded.withLock { $0[file] = written.map { ($0, index) } }
        return index
    }

    /// An index this process read earlier, extended to `tips`; what it learned is appended to
    /// the file, and `remember` is given the file's new identity with the extended index.
    private func extending(
        _ cached: VersionIndex, to tips: [ObjectID],
        remember: (_ stamp: [Int]?, _ index: VersionIndex) -> Void
    ) throws -> VersionIndex {
        var index = cached
        let learned = try extend(&index, to: tips)
        if !learned.isEmpty {
            append(learned)
            remember(stamp, index)
        }
        return index
    }

    /// Indexes read for one document in one process before the whole index is read instead.
    static let documentReadLimit = 4

    /// Indexes read for one document, by file and document, with the file's identity.
    /// (Keys by bytes: two spellings of one name are two documents.)
    private static let loadedForDocument = Mutex<[ByteString: (stamp: [Int], index: VersionIndex)]>([:])

    /// ``load(covering:)`` for questions about one document only: reads the file without
    /// decoding the other documents' entries (see ``VersionIndexFile/decode(_:document:)``).
    /// An index of every document already read in this process serves as well. When the file
    /// is missing, damaged or due to be folded, the whole index is built and written instead,
    /// as ``load(covering:)`` does: only an intact file is read this way, and only appended to.
    func load(covering tips: [ObjectID], document: String) throws -> VersionIndex {
        let key = ByteString(file + "\u{0}" + document)
        if let now = stamp {
            if let cached = Self.loaded.withLock({ $0[file] }), cached.stamp == now { return try load(covering: tips) }
            if let cached = Self.loadedForDocument.withLock({ $0[key] }), cached.stamp == now {
                return try extending(cached.index, to: tips) { written, index in
                    Self.loadedForDocument.withLock { $0[key] = written.map { ($0, index) } }
                }
            }
        }
        // A command asking about many documents one by one (`resolve --all`, `diff` of many
        // changes) is better served by one whole index, read once for all of them.
        // (Those read from an older state of the file are dropped: a long-running process, the
        // agent, keeps no more than the limit.)
        let now = stamp
        let documentsRead = Self.loadedForDocument.withLock { loaded in
            let ours = loaded.filter { $0.key.string.bytesHavePrefix(file + "\u{0}") }
            for (key, entry) in ours where entry.stamp != now { loaded[key] = nil }
            return ours.filter { $0.value.stamp == now }.count
        }
        guard documentsRead < Self.documentReadLimit, let data = FileSystem.mappedContentsIfReadable(file),
            let contents = VersionIndexFile.decode(data, document: document),
            contents.intact, contents.segments > 0, contents.segments < Self.segmentLimit
        else {
            return try load(covering: tips)
        }
        var index = VersionIndex(scope: document)
        index.reserveCapacity(contents.commits.count)
        var locations: [VersionIndexFile.ChangeLocation] = []
        locations.reserveCapacity(contents.commits.count)
        for (commit, location) in zip(contents.commits, contents.locations) {
            let before = index.count
            // A commit without its parents: not written by docver; the whole load rebuilds.
            guard index.add(commit) else { return try load(covering: tips) }
            if index.count > before { locations.append(location) }
        }
        index.storedChanges = StoredChanges(bytes: contents.bytes, strings: contents.strings, locations: locations)
        guard try matchesRepository(index) else { return try load(covering: tips) }
        let learned = try extend(&index, to: tips)
        if !learned.isEmpty { append(learned) }
        let written = stamp
        Self.loadedForDocument.withLock { $0[key] = written.map { ($0, index) } }
        return index
    }

    private func readAndExtend(covering tips: [ObjectID]) throws -> VersionIndex {
        var index = VersionIndex()
        var intact = false
        var segments = 0
        // (Each segment's strings become document numbers once, not once per change.)
        var documents: [Int32] = []
        if let data = FileSystem.localContentsIfReadable(file),
            let contents = VersionIndexFile.read(
                data, strings: { documents = index.documentNumbers(of: $0) },
                // A commit without its parents: the file was not written by docver.
                commit: { index.add($0, documents: documents) })
        {
            intact = contents.intact
            segments = contents.segments
            if try !matchesRepository(index) {
                index = VersionIndex()
                intact = false
            }
        }
        let learned = try extend(&index, to: tips)
        if !intact || segments == 0 || segments >= Self.segmentLimit {
            if !learned.isEmpty || !intact || segments >= Self.segmentLimit { rewrite(index) }
        } else if !learned.isEmpty {
            append(learned)
        }
        return index
    }

    /// The index's tips must be commits of this repository with the parents recorded: a
    /// cheap check that catches an index copied from another repository or edited by hand.
    private func matchesRepository(_ index: VersionIndex) throws -> Bool {
        for tip in index.tips {
            guard try repository.objectExists(tip) else { continue }  // pruned by gc: harmless
            guard let number = index.number(of: tip) else { return false }
            let recorded = index.nodes[Int(number)].parents.map { index.nodes[Int($0)].id }
            guard try repository.commit(tip).parentIDs == recorded else { return false }
        }
        return true
    }

    /// Indexes the commits reachable from `tips` that `index` lacks, parents first.
    func extend(_ index: inout VersionIndex, to tips: [ObjectID]) throws -> [IndexedCommit] {
        let missing = tips.filter { !index.contains($0) }
        guard !missing.isEmpty else { return [] }
        var hidden: [ObjectID] = []
        for tip in index.tips where try repository.objectExists(tip) { hidden.append(tip) }
        let walk = try repository.revwalk(from: missing, hiding: hidden, topological: true)
        var order: [ObjectID] = []
        while let id = try walk.next() {
            if !index.contains(id) { order.append(id) }
        }
        var learned: [IndexedCommit] = []
        var trees: [ObjectID: ObjectID] = [:]
        for id in order.reversed() {
            let commit = try indexedCommit(id, trees: &trees)
            guard index.add(commit) else { throw SystemError("index", file, reason: "a commit's parents are missing") }
            learned.append(commit)
        }
        return learned
    }

    /// What the index records about one commit, read from the repository: the document-level
    /// difference against each parent.
    func indexedCommit(_ id: ObjectID, trees: inout [ObjectID: ObjectID]) throws -> IndexedCommit {
        let commit = try repository.commit(id)
        let parents = commit.parentIDs
        guard parents.count <= 255 else { throw SystemError("index", file, reason: "a commit has more than 255 parents") }
        trees[id] = commit.treeID
        // Each side's folders are read once for all its documents (see DocumentEntryReader).
        let tree = try DocumentEntryReader(repository: repository, tree: commit.treeID)
        var changes: [[(document: String, kind: IndexedChangeKind)]] = []
        for parent in parents.isEmpty ? [nil] : parents.map(Optional.some) {
            var parentTreeID: ObjectID?
            if let parent {
                if let known = trees[parent] {
                    parentTreeID = known
                } else {
                    parentTreeID = try repository.commit(parent).treeID
                    trees[parent] = parentTreeID
                }
            }
            let parentTree = try parentTreeID.map { try DocumentEntryReader(repository: repository, tree: $0) }
            // A document changed when its document entry did (docs/FORMAT.md, "Documents": a
            // plain folder at its name is its absence, as in `sameDocumentState`).
            var documents = Set<DocumentPath>()  // bytes: two spellings are two documents
            for path in try repository.changedPaths(from: parentTreeID, to: commit.treeID) {
                documents.insert(DocumentPath.document(containingFile: path))
            }
            var list: [(document: String, kind: IndexedChangeKind)] = []
            for document in documents.sorted().map(\.path) {
                if parentTreeID == nil {
                    list.append((document, .added))  // a root: each file or package is new
                    continue
                }
                let before = try parentTree?.documentEntry(atPath: document), after = try tree.documentEntry(atPath: document)
                if before == nil && after == nil { continue }
                list.append((document, before != nil && after != nil ? .modified : after != nil ? .added : .deleted))
            }
            changes.append(list)
        }
        // (A set beside the list: an integration of a long divergence names thousands of
        // documents, and a search of the list per record made the walk quadratic.)
        var mentioned: [String] = [], seen = Set<ByteString>()
        for trailer in commit.trailers where Trailer.documentRecords.contains(trailer.key) {
            guard let encoded = trailer.value.split(separator: " ").last,
                let path = TrailerPath.decode(String(encoded)), seen.insert(ByteString(path)).inserted
            else { continue }
            mentioned.append(path)
        }
        return IndexedCommit(
            id: id, parents: parents, changes: changes, mentioned: mentioned, time: commit.committerSeconds,
            tree: commit.treeID)
    }

    private func rewrite(_ index: VersionIndex) {
        var data = VersionIndexFile.header
        if index.count > 0 {
            data.append(VersionIndexFile.segment((0..<Int32(index.count)).map(index.indexedCommit)))
        }
        try? FileSystem.createDirectory((file as NSString).deletingLastPathComponent)
        try? AtomicFile.write(data, to: file)
    }

    /// Appends one segment in a single write: a crash leaves a torn tail that the checksum
    /// rejects, so readers see the old index; two processes appending at once each write
    /// whole segments (O_APPEND), and a commit indexed twice is read once.
    private func append(_ commits: [IndexedCommit]) {
        let segment = VersionIndexFile.segment(commits)
        let descriptor = FileSystem.openLocalFile(file, O_WRONLY | O_APPEND)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let written = segment.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress!, $0.count) }
        if written == segment.count { fsync(descriptor) }
    }
}
