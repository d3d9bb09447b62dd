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
    /// Only documents in this download status (documents on demand).
    public var downloadStatus: DownloadStatus?
    /// The sort key (ties are broken by path).
    public var sortKey: SortKey
    /// Sort from the largest or latest down.
    public var descending: Bool

    /// A query; every filter left nil or empty matches everything.
    public init(glob: String? = nil, types: Set<String> = [], hasUnresolvedConflicts: Bool? = nil, modifiedSince: Date? = nil,
                savedBy: String? = nil, downloadStatus: DownloadStatus? = nil, sortKey: SortKey = .path, descending: Bool = false) {
        self.glob = glob
        self.types = Set(types.map { $0.lowercased() })
        self.hasUnresolvedConflicts = hasUnresolvedConflicts
        self.modifiedSince = modifiedSince
        self.savedBy = savedBy
        self.downloadStatus = downloadStatus
        self.sortKey = sortKey
        self.descending = descending
    }

    func matches(_ item: MetadataItem) -> Bool {
        if let glob, fnmatch(glob, item.path.path, 0) != 0, fnmatch(glob, item.name, 0) != 0 { return false }
        if !types.isEmpty, !types.contains(item.type) { return false }
        if let hasUnresolvedConflicts, item.hasUnresolvedConflicts != hasUnresolvedConflicts { return false }
        if let modifiedSince, item.contentChanged < modifiedSince { return false }
        if let savedBy, item.device.id != savedBy { return false }
        if let downloadStatus, item.downloadStatus != downloadStatus { return false }
        return true
    }

    func areInOrder(_ a: MetadataItem, _ b: MetadataItem) -> Bool {
        let ascending: Bool
        switch sortKey {
        case .path: ascending = a.path < b.path
        // (Ties go by the path's bytes, as git orders names: two spellings of one name differ.)
        case .name: ascending = (a.name, a.path) < (b.name, b.path)
        case .modified: ascending = (a.contentChanged, a.path) < (b.contentChanged, b.path)
        case .size: ascending = (a.size ?? -1, a.path) < (b.size ?? -1, b.path)
        case .type: ascending = (a.type, a.path) < (b.type, b.path)
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
    /// The current version's size in bytes; nil when its contents are not on this device
    /// (documents on demand).
    public var size: Int64? { current.size }
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
    /// True when the document was evicted from this device (``Container/evict(_:force:)``): a
    /// placeholder stands in its place.
    public internal(set) var isEvicted = false
    /// True while a `download` of the document runs.
    public internal(set) var isDownloading = false
    /// How much of a running download has arrived, 0 to 100; 100 for a document that is
    /// here, 0 for an evicted one.
    public internal(set) var percentDownloaded: Double = 100
    /// Whether the document's contents are here, as iCloud's downloading status tells it.
    public var downloadStatus: DownloadStatus {
        isEvicted ? .notDownloaded : syncStatus.hasRemoteChanges ? .downloaded : .current
    }
}

/// A document as ``Container/documents()`` lists it.
