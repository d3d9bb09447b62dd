import Foundation

/// A document in conflict: the NSFileVersion view of one document.
public struct Conflict: Sendable, Hashable {
    /// The document in conflict.
    public let document: DocumentPath
    /// The current version: the same on every device that has seen the same saves.
    public let current: DocumentVersion
    /// Unresolved conflict versions, newest first.
    public let conflicts: [DocumentVersion]
    /// The common base the competing versions started from, when there is one.
    public let base: DocumentVersion?
}

/// A conflict record: `version` of `path` lost to another version when devices integrated.
struct ConflictRecord: Codable, Hashable {
    var path: String
    var version: String
    var base: String?
}

struct VersionRecord: Codable, Hashable {
    var path: String
    var version: String
}

/// The conflict records reachable from one head: grow-only sets, so any two devices holding
/// the same history hold the same state, whatever order it arrived in.
struct ConflictState: Codable {
    var head: String?
    var conflicts: Set<ConflictRecord> = []
    var resolved: Set<VersionRecord> = []
    var removed: Set<VersionRecord> = []

    mutating func absorb(_ commit: Commit) {
        for trailer in commit.trailers where trailer.key == Trailer.conflict {
            let fields = trailer.value.split(separator: " ", maxSplits: 2).map(String.init)
            guard fields.count == 3, let path = TrailerPath.decode(fields[2]) else { continue }
            conflicts.insert(ConflictRecord(path: path, version: fields[0], base: fields[1] == "-" ? nil : fields[1]))
        }
        for record in commit.records(Trailer.resolved) { resolved.insert(VersionRecord(path: record.path, version: record.version)) }
        for record in commit.records(Trailer.removed) { removed.insert(VersionRecord(path: record.path, version: record.version)) }
    }

    /// Conflict records neither resolved nor removed, by document.
    func unresolvedByDocument() -> [DocumentPath: [ConflictRecord]] {
        Dictionary(grouping: conflicts.filter { record in
            let key = VersionRecord(path: record.path, version: record.version)
            return !resolved.contains(key) && !removed.contains(key)
        }, by: { DocumentPath(trusted: $0.path) })
    }

    /// Conflict records resolved but not removed, by document.
    func resolvedByDocument() -> [DocumentPath: [ConflictRecord]] {
        Dictionary(grouping: conflicts.filter { record in
            let key = VersionRecord(path: record.path, version: record.version)
            return resolved.contains(key) && !removed.contains(key)
        }, by: { DocumentPath(trusted: $0.path) })
    }
}

extension Container {
    private var conflictCachePath: String { metadataDirectory + "/conflicts.json" }

    /// The conflict state at this device's head.
    ///
    /// Kept in a cache keyed by the head commit, so it cannot disagree with the repository:
    /// when the head moved forward only the new commits are read; when it moved elsewhere (or
    /// the cache is missing) the cache is rebuilt from history. Listing conflicts therefore
    /// costs what the open conflicts cost, not what the history costs.
    func conflictState(in repository: Repository) throws -> ConflictState {
        guard let head = try headCommit(repository) else { return ConflictState() }
        var state = ConflictState()
        var hidden: [ObjectID] = []
        if let data = FileManager.default.contents(atPath: conflictCachePath),
           let cached = try? JSONDecoder().decode(ConflictState.self, from: data),
           let cachedHead = cached.head.flatMap(ObjectID.init(hex:)),
           try repository.objectExists(cachedHead),
           try repository.isAncestorOrSame(cachedHead, of: head) {
            if cachedHead == head { return cached }
            state = cached
            hidden = [cachedHead]
        }
        let walk = try repository.revwalk(from: [head], hiding: hidden, topological: false)
        while let id = try walk.next() {
            state.absorb(try repository.commit(id))
        }
        state.head = head.hex
        if let data = try? JSONEncoder().encode(state), let text = String(data: data, encoding: .utf8) {
            try? FileManager.default.createDirectory(atPath: metadataDirectory, withIntermediateDirectories: true)
            try? writeAtomically(text, to: conflictCachePath)
        }
        return state
    }

    /// Every document with unresolved conflict versions (or just `document`), sorted by path.
    public func conflicts(_ document: DocumentPath? = nil) throws -> [Conflict] {
        try withRepository { repository in try conflicts(document, in: repository) }
    }

    func conflicts(_ document: DocumentPath?, in repository: Repository) throws -> [Conflict] {
        let open = try conflictState(in: repository).unresolvedByDocument()
        let documents = document.map { open[$0] == nil ? [] : [$0] } ?? open.keys.sorted()
        return try documents.compactMap { document in
            guard let current = try currentVersion(of: document, in: repository) else { return nil }
            let records = open[document] ?? []
            let versions = try records.filter { $0.version != current.id }.compactMap { record in
                try ObjectID(hex: record.version).map { try makeVersion(of: document, at: $0, in: repository) }
            }.sorted(by: Self.newestFirst)
            guard !versions.isEmpty else { return nil }
            // Records from different integrations may name different bases: take the newest.
            let base = try Set(records.compactMap(\.base)).compactMap(ObjectID.init(hex:)).map {
                try makeVersion(of: document, at: $0, in: repository)
            }.sorted(by: Self.newestFirst).first
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
                try ObjectID(hex: record.version).map { try makeVersion(of: document, at: $0, in: repository) }
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
