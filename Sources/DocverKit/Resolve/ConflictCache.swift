import Foundation

/// docver's two caches of conflict information, both keyed by the head commit they were
/// computed at, so neither can disagree with the repository (a cache whose head is not the
/// current one is either extended or ignored, never trusted):
///
/// - the ``ConflictState`` (`.git/docver/conflicts.json`): when the head moved forward only
///   the new commits are read; when it moved elsewhere, or the cache is missing, the state is
///   rebuilt from history. Listing conflicts therefore costs what the open conflicts cost.
/// - the conflict listing (`.git/docver/conflict-listing.json`): the finished answer of
///   ``Container/conflicts(_:)`` for one head.
///
/// Failing to write a cache only costs time on the next call, so write failures are not
/// errors.
struct ConflictCache {
    let files: MetadataFiles
    let repository: Repository

    /// The conflict records reachable from `head`.
    func state(at head: ObjectID) throws -> ConflictState {
        var state = ConflictState()
        var hidden: [ObjectID] = []
        if let data = FileSystem.contentsIfReadable(files.conflictState),
           let cached = try? JSONDecoder().decode(ConflictState.self, from: data),
           let cachedHead = cached.head.flatMap(ObjectID.init(hex:)),
           try repository.objectExists(cachedHead),
           try repository.isAncestorOrSame(cachedHead, of: head) {
            if cachedHead == head { return cached }
            state = cached
            hidden = [cachedHead]
        }
        let walk = try repository.revwalk(from: [head], hiding: hidden, topological: false)
        let plainMerges = PlainMerge(graph: VersionGraph(repository: repository))
        while let id = try walk.next() {
            let commit = try repository.commit(id)
            try state.absorb(commit.trailers) { version, path in
                try Self.isVersion(version, of: path, in: repository)
            }
            if PlainMerge.isPlainMerge(commit) { state.absorb(setAside: try plainMerges.setAside(by: id)) }
        }
        state.head = head.hex
        store(state, at: files.conflictState)
        return state
    }

    /// The cached conflict records when they were computed at `head`; nil otherwise. Reads
    /// one file and writes nothing (for shell completion).
    func cachedState(at head: ObjectID) -> ConflictState? {
        guard let data = FileSystem.contentsIfReadable(files.conflictState),
              let cached = try? JSONDecoder().decode(ConflictState.self, from: data),
              cached.head == head.hex else { return nil }
        return cached
    }

    /// True when `version` is a commit that holds a state of document `path` of its own: the
    /// document is there, or was there in a parent (a deletion), or the commit is a decision
    /// about the document (a resolution may keep its absence: a deletion, or a folder of its
    /// name, and that absence is a version the integrator records when another device
    /// decided otherwise). A few tree lookups, so a commit with many forged records costs
    /// time linear in their number.
    static func isVersion(_ version: String, of path: String, in repository: Repository) throws -> Bool {
        guard let id = ObjectID(hex: version), try repository.commitExists(id) else { return false }
        let commit = try repository.commit(id)
        if try repository.tree(commit.treeID).documentEntry(atPath: path) != nil { return true }
        for parent in commit.parentIDs where try repository.tree(repository.commit(parent).treeID).documentEntry(atPath: path) != nil {
            return true
        }
        let trailers = commit.trailers
        let trust = RecordTrust(trailers)
        return trailers.contains { trailer in
            Trailer.decisionRecords.contains(trailer.key) && trust.honours(trailer.key)
                && VersionRecord(trailerValue: trailer.value)?.path == path
        }
    }

    /// The conflict listing cached for `head`, if there is one.
    func listing(at head: ObjectID) -> [Conflict]? {
        guard let data = FileSystem.contentsIfReadable(files.conflictListing),
              let listing = try? JSONDecoder().decode(ConflictListing.self, from: data),
              listing.format == ConflictListing.currentFormat, listing.head == head.hex else { return nil }
        return listing.conflicts.compactMap(\.conflict)
    }

    func storeListing(_ conflicts: [Conflict], at head: ObjectID) {
        store(ConflictListing(format: ConflictListing.currentFormat, head: head.hex, conflicts: conflicts.map(ConflictListing.Item.init)),
              at: files.conflictListing)
    }

    private func store(_ value: some Encodable, at path: String) {
        guard let data = try? JSONEncoder().encode(value) else { return }
        try? FileSystem.createDirectory(files.directory)
        try? AtomicFile.write(data, to: path)
    }
}

/// The conflict listing of one head, as cached in `.git/docver/conflict-listing.json`.
struct ConflictListing: Codable {
    struct Version: Codable {
        var id: String, document: String, device: String, deviceName: String
        var modified: Double, size: Int64, kind: String, deletion: Bool, entry: String?

        init(_ version: DocumentVersion) {
            id = version.id
            document = version.document.path
            device = version.device.id
            deviceName = version.device.name
            modified = version.modified.timeIntervalSince1970
            size = version.size
            kind = version.kind.rawValue
            deletion = version.isDeletion
            entry = version.entryID?.hex
        }

        var version: DocumentVersion? {
            guard let commit = ObjectID(hex: id), let kind = DocumentKind(rawValue: kind) else { return nil }
            return DocumentVersion(id: id, document: DocumentPath(trusted: document), device: Device(unchecked: device, name: deviceName),
                                   modified: Date(timeIntervalSince1970: modified), size: size, kind: kind, isDeletion: deletion,
                                   commitID: commit, entryID: entry.flatMap(ObjectID.init(hex:)))
        }
    }

    struct Item: Codable {
        var document: String, current: Version, conflicts: [Version], bases: [String: Version]

        init(_ conflict: Conflict) {
            document = conflict.document.path
            current = Version(conflict.current)
            conflicts = conflict.conflicts.map(Version.init)
            bases = conflict.bases.mapValues(Version.init)
        }

        var conflict: Conflict? {
            guard let current = current.version else { return nil }
            return Conflict(document: DocumentPath(trusted: document), current: current,
                            conflicts: conflicts.compactMap(\.version), bases: bases.compactMapValues(\.version))
        }
    }

    /// Raised whenever the rules that compute the listing change, so that a listing cached by
    /// an older build is recomputed, not trusted (2: records are validated, plain folders are
    /// no versions of files).
    static let currentFormat = 2
    var format: Int
    var head: String
    var conflicts: [Item]
}
