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
    /// The common ancestor commit of the integration that recorded it (nil: the document did
    /// not exist there). Records written before version 0.2 name the base version itself,
    /// which reads the same: a version commit is its own version.
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
        try withRepository { repository in
            guard let head = try headCommit(repository) else { return [] }
            // The listing is a function of the head commit: cache it under that id.
            let cache = metadataDirectory + "/conflict-listing.json"
            if let data = FileManager.default.contents(atPath: cache),
               let listing = try? JSONDecoder().decode(ConflictListing.self, from: data), listing.head == head.hex {
                let all = listing.conflicts.compactMap(\.conflict)
                return document.map { document in all.filter { $0.document == document } } ?? all
            }
            let all = try conflicts(nil, in: repository)
            if let data = try? JSONEncoder().encode(ConflictListing(head: head.hex, conflicts: all.map(ConflictListing.Item.init))),
               let text = String(data: data, encoding: .utf8) {
                try? writeAtomically(text, to: cache)
            }
            return document.map { document in all.filter { $0.document == document } } ?? all
        }
    }

    func conflicts(_ document: DocumentPath?, in repository: Repository) throws -> [Conflict] {
        let open = try conflictState(in: repository).unresolvedByDocument()
        let documents = document.map { open[$0] == nil ? [] : [$0] } ?? open.keys.sorted()
        let memo = VersionMemo(directory: metadataDirectory)
        defer { memo.save() }
        return try documents.compactMap { document in
            guard let current = try currentVersion(of: document, in: repository, memo: memo) else { return nil }
            let records = open[document] ?? []
            let versions = try records.filter { $0.version != current.id }.compactMap { record in
                try ObjectID(hex: record.version).map { try makeVersion(of: document, at: $0, in: repository) }
            }.sorted(by: Self.newestFirst)
            guard !versions.isEmpty else { return nil }
            // A record names the integration's common ancestor; the base version is the
            // document's version there. Records from several integrations: take the newest.
            let base = try Set(records.compactMap(\.base)).compactMap(ObjectID.init(hex:)).map {
                try makeVersion(of: document, at: versionCommit(of: document.path, from: $0, in: repository, memo: memo),
                                in: repository)
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

/// The conflict listing of one head, as cached in `.git/docver/conflict-listing.json`.
private struct ConflictListing: Codable {
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
        var document: String, current: Version, conflicts: [Version], base: Version?

        init(_ conflict: Conflict) {
            document = conflict.document.path
            current = Version(conflict.current)
            conflicts = conflict.conflicts.map(Version.init)
            base = conflict.base.map(Version.init)
        }

        var conflict: Conflict? {
            guard let current = current.version else { return nil }
            return Conflict(document: DocumentPath(trusted: document), current: current,
                            conflicts: conflicts.compactMap(\.version), base: base?.version)
        }
    }

    var head: String
    var conflicts: [Item]
}
