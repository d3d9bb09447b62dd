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
    /// (docs/MODEL.md: R13, R26.)
    func state(at head: ObjectID) throws -> ConflictState {
        let policy = try SigningPolicy(repository: repository)
        var state = ConflictState()
        state.trust = policy?.key
        var hidden: [ObjectID] = []
        if let data = FileSystem.localContentsIfReadable(files.conflictState),
            let cached = try? JSONDecoder().decode(ConflictState.self, from: data),
            cached.trust == policy?.key,
            let cachedHead = cached.head.flatMap(ObjectID.init(hex:)),
            try repository.objectExists(cachedHead),
            try repository.isAncestorOrSame(cachedHead, of: head)
        {
            if cachedHead == head { return cached }
            state = cached
            hidden = [cachedHead]
        }
        let walk = try repository.revwalk(from: [head], hiding: hidden, topological: false)
        let plainMerges = PlainMerge(graph: VersionGraph(repository: repository))
        while let id = try walk.next() {
            let commit = try repository.commit(id)
            let trailers = commit.trailers
            // (Only commits that carry decisions have a signature worth checking.)
            let signed =
                try policy.map { policy in
                    try !Decision(trailers: trailers).carriesRecords || policy.verifies(commit, trailers: trailers, in: repository)
                } ?? true
            try state.absorb(trailers, decisionsSigned: signed) { version, path in
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
        guard let data = FileSystem.localContentsIfReadable(files.conflictState),
            let cached = try? JSONDecoder().decode(ConflictState.self, from: data),
            cached.head == head.hex
        else { return nil }
        return cached
    }

    /// True when `version` is a commit that holds a state of document `path` of its own: the
    /// document is there, or was there in a parent (a deletion), or the commit is a decision
    /// about the document (a resolution may keep its absence: a deletion, or a folder of its
    /// name, and that absence is a version the integrator records when another device
    /// decided otherwise). A few tree lookups, so a commit with many forged records costs
    /// time linear in their number.
    /// (docs/MODEL.md: R12, R27.)
    static func isVersion(_ version: String, of path: String, in repository: Repository) throws -> Bool {
        guard let id = ObjectID(hex: version), try repository.commitExists(id) else { return false }
        let commit = try repository.commit(id)
        if try repository.tree(commit.treeID).documentEntry(atPath: path) != nil { return true }
        for parent in commit.parentIDs where try repository.tree(repository.commit(parent).treeID).documentEntry(atPath: path) != nil {
            return true
        }
        return commit.decision.isAbout(path)
    }

    /// Raised whenever the rules that compute the listing change, so that a listing cached by
    /// an older build is recomputed, not trusted (2: records are validated, plain folders are
    /// no versions of files; 3: a resolution descends from the versions it decided, which
    /// changes bases; 4: stored as text, not JSON; 5: a decision that kept one version,
    /// and a replace, descend from that version alone, not from what they set aside or
    /// replaced, which changes bases; 6: a state several versions hold descends from all of
    /// them, which changes bases).
    static let listingFormat = 6

    /// The conflict listing cached for `head`, if there is one.
    func listing(at head: ObjectID) -> [Conflict]? {
        guard let data = FileSystem.localContentsIfReadable(files.conflictListing) else { return nil }
        return ListingText.decodeListing(
            data, format: Self.listingFormat, head: head.hex,
            trust: (try? SigningPolicy(repository: repository))??.key)
    }

    /// One document's entry of the conflict listing cached for `head`, decoding only that
    /// document's lines: the outer nil when no listing for `head` is cached, the inner when
    /// the document has no open conflict.
    func listing(at head: ObjectID, of document: DocumentPath) -> Conflict?? {
        guard let data = FileSystem.mappedContentsIfReadable(files.conflictListing) else { return nil }
        return ListingText.decodeListing(
            data, format: Self.listingFormat, head: head.hex,
            trust: (try? SigningPolicy(repository: repository))??.key, document: document.path)
    }

    /// Each document's count of unresolved conflict versions from the listing cached for
    /// `head`, without decoding the versions; nil when no listing for `head` is cached.
    func counts(at head: ObjectID) -> [DocumentConflictCount]? {
        guard let data = FileSystem.mappedContentsIfReadable(files.conflictListing) else { return nil }
        return ListingText.decodeConflictCounts(
            data, format: Self.listingFormat, head: head.hex,
            trust: (try? SigningPolicy(repository: repository))??.key)?
            .map { DocumentConflictCount(document: DocumentPath(trusted: $0.document), conflicts: $0.conflicts) }
    }

    func storeListing(_ conflicts: [Conflict], at head: ObjectID) {
        let data = ListingText.encodeListing(
            format: Self.listingFormat, head: head.hex,
            trust: (try? SigningPolicy(repository: repository))??.key, conflicts: conflicts)
        try? FileSystem.createDirectory(files.directory)
        try? AtomicFile.write(data, to: files.conflictListing)
        try? FileSystem.remove(files.formerConflictListing)
    }

    private func store(_ value: some Encodable, at path: String) {
        guard let data = try? JSONEncoder().encode(value) else { return }
        try? FileSystem.createDirectory(files.directory)
        try? AtomicFile.write(data, to: path)
    }
}
