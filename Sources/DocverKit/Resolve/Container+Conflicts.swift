import Foundation

extension Container {
    /// The conflict state at this device's head.
    func conflictState(in repository: Repository) throws -> ConflictState {
        guard let head = try headCommit(repository) else { return ConflictState() }
        return try ConflictCache(files: files, repository: repository).state(at: head)
    }

    /// Every document with unresolved conflict versions (or just `document`), sorted by path.
    public func conflicts(_ document: DocumentPath? = nil) throws -> [Conflict] {
        try withRepository { repository in
            guard let head = try headCommit(repository) else { return [] }
            let cache = ConflictCache(files: files, repository: repository)
            let all: [Conflict]
            if let cached = cache.listing(at: head) {
                all = cached
            } else {
                all = try conflicts(nil, in: repository)
                cache.storeListing(all, at: head)
            }
            return document.map { document in all.filter { $0.document == document } } ?? all
        }
    }

    func conflicts(_ document: DocumentPath?, in repository: Repository) throws -> [Conflict] {
        let open = try conflictState(in: repository).unresolvedByDocument()
        let documents = document.map { open[$0] == nil ? [] : [$0] } ?? open.keys.sorted()
        let memo = VersionMemo(file: files.versionMemo)
        let graph = VersionGraph(repository: repository, memo: memo)
        defer { memo.save() }
        return try documents.compactMap { document in
            guard let current = try currentVersion(of: document, in: repository, memo: memo) else { return nil }
            let records = open[document] ?? []
            let versions = try records.filter { $0.version != current.id }.compactMap { record in
                try ObjectID(hex: record.version).map { try graph.version(of: document, at: $0) }
            }.sorted(by: Self.newestFirst)
            guard !versions.isEmpty else { return nil }
            // A record names the integration's common ancestor; the base version is the
            // document's version there. Records from several integrations: take the newest.
            let base = try Set(records.compactMap(\.base)).compactMap(ObjectID.init(hex:)).map {
                try graph.version(of: document, at: graph.introducingCommit(of: document.path, from: $0))
            }.filter { !$0.isDeletion }.sorted(by: Self.newestFirst).first
            return Conflict(document: document, current: current, conflicts: versions, base: base)
        }
    }

    /// Unresolved conflict versions of a document, newest first (empty when not in conflict).
    public func unresolvedConflictVersions(of document: DocumentPath) throws -> [DocumentVersion] {
        try conflicts(document).first?.conflicts ?? []
    }

    /// Conflict versions of a document that were marked resolved but not removed.
    public func resolvedConflictVersions(of document: DocumentPath) throws -> [DocumentVersion] {
        try withRepository { repository in
            try (conflictState(in: repository).resolvedByDocument()[document] ?? []).compactMap { record in
                try ObjectID(hex: record.version).map { try VersionGraph(repository: repository).version(of: document, at: $0) }
            }.sorted(by: Self.newestFirst)
        }
    }

    /// Documents with unresolved conflict versions and how many each has.
    public func documentsInConflict() throws -> [(document: DocumentPath, count: Int)] {
        try conflicts().map { ($0.document, $0.conflicts.count) }
    }

    static func newestFirst(_ a: DocumentVersion, _ b: DocumentVersion) -> Bool {
        (a.modified, a.device.id, a.id) > (b.modified, b.device.id, b.id)
    }
}

