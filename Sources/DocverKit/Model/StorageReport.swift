import Foundation

/// What a container's history costs, and what `gc` could reclaim (`docver du`).
///
/// Sizes are the objects' uncompressed sizes as git stores them before compression and
/// delta packing, so they compare documents and devices with each other; the bytes on disk
/// are in ``diskBytes``.
public struct StorageReport: Sendable, Equatable {
    /// One document's or one device's share of the history.
    public struct Usage: Sendable, Equatable {
        /// The document's path, or the device's id.
        public let name: String
        /// The device's display name (nil for documents).
        public let displayName: String?
        /// Distinct file contents (blobs) counted.
        public let objects: Int
        /// Their bytes, each distinct content counted once.
        public let bytes: Int64
    }

    /// Per document: every distinct content any version of it held (its files, for a
    /// package), in any commit any reference reaches. Largest first, then by path. The
    /// key-value store's files count as one entry, `.docver`.
    public let documents: [Usage]
    /// Per device: the distinct contents its saves (and resolutions) added, compared with
    /// each commit's first parent. Largest first, then by id. Integrations add none.
    public let devices: [Usage]
    /// Commits reachable from the references.
    public let commits: Int
    /// Objects (commits, trees, contents, tags) reachable from the references and their
    /// reflogs: what gc keeps.
    public let reachableObjects: Int
    /// Their bytes, uncompressed.
    public let reachableBytes: Int64
    /// Objects nothing reaches: what gc prunes.
    public let unreachableObjects: Int
    /// Their bytes, uncompressed.
    public let unreachableBytes: Int64
    /// Bytes the object database takes on disk now (loose objects and packs).
    public let diskBytes: Int64
}

/// What `gc` did (or, with a dry run, would do).
public struct GarbageCollection: Sendable, Equatable {
    /// The state before: what was reachable and what was pruned (or would be).
    public let before: StorageReport
    /// Bytes the object database takes on disk afterwards (equal to `before.diskBytes` for
    /// a dry run).
    public let diskBytesAfter: Int64
    /// True when nothing was changed.
    public let dryRun: Bool
}
