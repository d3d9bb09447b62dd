import Foundation

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
