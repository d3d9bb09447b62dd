import Foundation

extension Container {
    /// The conflict state at this device's head.
    func conflictState(in repository: Repository) throws -> ConflictState {
        guard let head = try headCommit(repository) else { return ConflictState() }
        return try ConflictCache(files: files, repository: repository).state(at: head)
    }

    /// Every document with unresolved conflict versions (or just `document`), sorted by path.
    /// While the container's agent runs and has them for the head as it is now, it answers.
    /// (docs/MODEL.md: R28.)
    public func conflicts(_ document: DocumentPath? = nil) throws -> [Conflict] {
        if let served = servedConflicts() {
            return document.map { document in served.filter { $0.document == document } } ?? served
        }
        guard let document else { return try computeConflicts() }
        return try withRepository { repository in
            try conflict(of: document, in: repository, askingAgent: false).map { [$0] } ?? []
        }
    }

    /// One document's unresolved conflict versions as ``conflicts(_:)`` finds them, in a
    /// repository already open: the agent's answer, else the document's lines of the cached
    /// listing (not the whole listing: thousands of conflicts after a long offline period),
    /// else computed.
    func unresolvedConflicts(of document: DocumentPath, in repository: Repository) throws -> [DocumentVersion] {
        try conflict(of: document, in: repository, askingAgent: true)?.conflicts ?? []
    }

    private func conflict(of document: DocumentPath, in repository: Repository, askingAgent: Bool) throws -> Conflict? {
        if askingAgent, let served = servedConflicts() {
            return served.first { $0.document == document }
        }
        if let cached = try headCommit(repository).flatMap({ ConflictCache(files: files, repository: repository).listing(at: $0, of: document) }) {
            return cached
        }
        return try computeConflicts(in: repository).first { $0.document == document }
    }

    /// Every document in conflict, read from the repository (never asks the agent).
    func computeConflicts() throws -> [Conflict] {
        try withRepository { repository in try computeConflicts(in: repository) }
    }

    func computeConflicts(in repository: Repository) throws -> [Conflict] {
        guard let head = try headCommit(repository) else { return [] }
        let cache = ConflictCache(files: files, repository: repository)
        if let cached = cache.listing(at: head) { return cached }
        let all = try conflicts(nil, in: repository)
        cache.storeListing(all, at: head)
        return all
    }

    func conflicts(_ document: DocumentPath?, in repository: Repository) throws -> [Conflict] {
        guard try headCommit(repository) != nil else { return [] }
        let open = try conflictState(in: repository).unresolvedByDocument()
        let documents = document.map { open[$0] == nil ? [] : [$0] } ?? open.keys.sorted()
        let memo = VersionMemo(file: files.versionMemo)
        let graph = VersionGraph(repository: repository, memo: memo, index: documents.isEmpty ? nil : versionIndex(in: repository))
        defer { memo.save() }
        guard let head = try headCommit(repository) else { return [] }
        return try documents.compactMap { document in
            // A document never saved on this line (its name is a plain folder here, say) is
            // current as its absence at the head.
            let current = try graph.currentVersion(of: document, at: head) ?? graph.version(of: document, at: head)
            // A conflict version is its version id: several records of one version (crossed
            // integrations record it once each, with their own merge base) list it once.
            let ids = Set((open[document] ?? []).map(\.version)).subtracting([current.id])
            let versions = try ids.sorted().compactMap { id -> DocumentVersion? in
                guard let commit = ObjectID(hex: id), try repository.objectExists(commit) else { return nil }
                return try graph.version(of: document, at: commit)
            }.sorted(by: Self.newestFirst)
            guard !versions.isEmpty else { return nil }
            var bases: [String: DocumentVersion] = [:]
            let currentSide = try graph.currentSide(current, path: document.path, head: head)
            for version in versions {
                guard let ancestor = try graph.commonAncestor(of: [version.commitID], and: currentSide, path: document.path)
                else { continue }
                let base = try graph.version(of: document, at: ancestor)
                if !base.isDeletion { bases[version.id] = base }
            }
            return Conflict(document: document, current: current, conflicts: versions, bases: bases)
        }
    }

    /// Unresolved conflict versions of a document, newest first (empty when not in conflict).
    public func unresolvedConflictVersions(of document: DocumentPath) throws -> [DocumentVersion] {
        try conflicts(document).first?.conflicts ?? []
    }

    /// Conflict versions of a document that were marked resolved but not removed.
    public func resolvedConflictVersions(of document: DocumentPath) throws -> [DocumentVersion] {
        try withRepository { repository in try resolvedConflictVersions(of: document, in: repository) }
    }

    func resolvedConflictVersions(of document: DocumentPath, in repository: Repository) throws -> [DocumentVersion] {
        // A version is listed once, though several records name it (crossed integrations
        // record it with their own bases; a plain merge may set aside a recorded one).
        let ids = Set(try (conflictState(in: repository).resolvedByDocument()[document] ?? []).map(\.version))
        return try ids.compactMap { id in
            try ObjectID(hex: id).map { try VersionGraph(repository: repository).version(of: document, at: $0) }
        }.sorted(by: Self.newestFirst)
    }

    /// Documents with unresolved conflict versions and how many each has.
    public func documentsInConflict() throws -> [(document: DocumentPath, count: Int)] {
        try conflicts().map { ($0.document, $0.conflicts.count) }
    }

    static func newestFirst(_ a: DocumentVersion, _ b: DocumentVersion) -> Bool {
        (a.modified, a.device.id, a.id) > (b.modified, b.device.id, b.id)
    }
}
