import Foundation

/// A predicate and sort over a container's documents: the NSMetadataQuery role.
public struct DocumentQuery: Sendable, Hashable {
    /// What results are sorted by.
    public enum SortKey: String, Sendable, CaseIterable, Codable {
        case path, name, modified, size, type
    }

    /// A shell glob matched against the document's path or its name (`*.txt`, `notes/*`).
    public var glob: String?
    /// Document types (extensions) to include; empty: all.
    public var types: Set<String>
    /// Only documents with (true) or without (false) unresolved conflicts.
    public var hasUnresolvedConflicts: Bool?
    /// Only documents whose current version was saved at or after this date.
    public var modifiedSince: Date?
    /// Only documents whose current version was saved by this device id.
    public var savedBy: String?
    /// The sort key (ties are broken by path).
    public var sortKey: SortKey
    /// Sort from the largest or latest down.
    public var descending: Bool

    /// A query; every filter left nil or empty matches everything.
    public init(glob: String? = nil, types: Set<String> = [], hasUnresolvedConflicts: Bool? = nil, modifiedSince: Date? = nil,
                savedBy: String? = nil, sortKey: SortKey = .path, descending: Bool = false) {
        self.glob = glob
        self.types = Set(types.map { $0.lowercased() })
        self.hasUnresolvedConflicts = hasUnresolvedConflicts
        self.modifiedSince = modifiedSince
        self.savedBy = savedBy
        self.sortKey = sortKey
        self.descending = descending
    }

    func matches(_ item: MetadataItem) -> Bool {
        if let glob, fnmatch(glob, item.path.path, 0) != 0, fnmatch(glob, item.name, 0) != 0 { return false }
        if !types.isEmpty, !types.contains(item.type) { return false }
        if let hasUnresolvedConflicts, item.hasUnresolvedConflicts != hasUnresolvedConflicts { return false }
        if let modifiedSince, item.contentChanged < modifiedSince { return false }
        if let savedBy, item.device.id != savedBy { return false }
        return true
    }

    func areInOrder(_ a: MetadataItem, _ b: MetadataItem) -> Bool {
        let ascending: Bool
        switch sortKey {
        case .path: ascending = a.path < b.path
        case .name: ascending = (a.name, a.path.path) < (b.name, b.path.path)
        case .modified: ascending = (a.contentChanged, a.path.path) < (b.contentChanged, b.path.path)
        case .size: ascending = (a.size, a.path.path) < (b.size, b.path.path)
        case .type: ascending = (a.type, a.path.path) < (b.type, b.path.path)
        }
        return descending ? !ascending && a != b : ascending
    }
}

/// Whether a document's saves have travelled, as far as the last fetch knows.
public struct SyncStatus: Sendable, Hashable, Codable {
    /// The current version is on a remote (it is in a fetched device branch).
    public let isUploaded: Bool
    /// A fetched device branch holds saves of this document not yet integrated here.
    public let hasRemoteChanges: Bool
}

/// One result of a ``DocumentQuery``, with the attributes NSMetadataItem offers.
public struct MetadataItem: Sendable, Hashable {
    /// The document's path in the container.
    public let document: DocumentPath
    /// The document's path (the same as ``document``).
    public var path: DocumentPath { document }
    /// The file name.
    public var name: String { document.name }
    /// The file name without extension.
    public var displayName: String { document.displayName }
    /// The document type: its extension.
    public var type: String { document.type }
    /// Flat file or package.
    public var kind: DocumentKind { current.kind }
    /// The current version's size in bytes.
    public var size: Int64 { current.size }
    /// When the document's first version was saved.
    public let created: Date
    /// The current version (its date is the content-change date, its device the last saver).
    public let current: DocumentVersion
    /// When its current version was saved.
    public var contentChanged: Date { current.modified }
    /// The device that saved the current version.
    public var device: Device { current.device }
    /// The current version's id.
    public var version: String { current.id }
    /// True when unresolved conflict versions exist.
    public let hasUnresolvedConflicts: Bool
    /// Whether the current version has travelled, and whether more is waiting.
    public let syncStatus: SyncStatus
}

/// A document as ``Container/documents()`` lists it.
public typealias DocumentInfo = MetadataItem

extension Container {
    /// Every saved document with its current version, sorted by path.
    public func documents() throws -> [MetadataItem] { try query() }

    /// Runs a query once.
    public func query(_ query: DocumentQuery = DocumentQuery()) throws -> [MetadataItem] {
        try withRepository { repository in
            guard let head = try headCommit(repository) else { return [] }
            let conflicted = Set(try conflictState(in: repository).unresolvedByDocument().keys)
            let tracking = try repository.references(matching: "refs/remotes/*/docver/*").map(\.target)
            var remoteChanged = Set<DocumentPath>()
            for tip in tracking where try !repository.isAncestorOrSame(tip, of: head) {
                let base = try repository.mergeBase(tip, head)
                let baseTree = try base.map { try repository.commit($0).treeID }
                for path in try repository.changedPaths(from: baseTree, to: repository.commit(tip).treeID) {
                    remoteChanged.insert(DocumentPath.document(containingFile: path))
                }
            }
            var items: [MetadataItem] = []
            for (document, _) in try documentEntries(in: repository.commit(head).treeID, repository: repository) {
                let current = try makeVersion(of: document, at: versionCommit(of: document.path, from: head, in: repository),
                                              in: repository)
                let uploaded = try tracking.contains { try repository.isAncestorOrSame(current.commitID, of: $0) }
                let oldest = try history(of: document, after: current, limit: nil, in: repository).last ?? current
                let item = MetadataItem(document: document, created: oldest.modified, current: current,
                                        hasUnresolvedConflicts: conflicted.contains(document),
                                        syncStatus: SyncStatus(isUploaded: uploaded, hasRemoteChanges: remoteChanged.contains(document)))
                if query.matches(item) { items.append(item) }
            }
            return items.sorted(by: query.areInOrder)
        }
    }

    /// Runs a query live: yields the gathered results first, then the new results each time
    /// they change, as saves and syncs happen in this process or another one. Changes are
    /// noticed by polling the container's references every `pollInterval`.
    public func liveQuery(_ query: DocumentQuery = DocumentQuery(), pollInterval: Duration = .seconds(1),
                          clock: any Clock<Duration> = ContinuousClock()) -> AsyncThrowingStream<[MetadataItem], any Error> {
        let container = self
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var signature = try container.referenceSignature()
                    var last = try container.query(query)
                    continuation.yield(last)
                    while !Task.isCancelled {
                        try await clock.sleep(for: pollInterval)
                        let now = try container.referenceSignature()
                        guard now != signature else { continue }
                        signature = now
                        let results = try container.query(query)
                        if results != last {
                            last = results
                            continuation.yield(results)
                        }
                    }
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Every docver reference and its target: it changes whenever a save, sync or resolution does.
    func referenceSignature() throws -> String {
        try withRepository { repository in
            let references = try repository.references(matching: "refs/heads/docver/*")
                + repository.references(matching: "refs/remotes/*/docver/*")
            return references.map { "\($0.name) \($0.target.hex)" }.sorted().joined(separator: "\n")
        }
    }
}
