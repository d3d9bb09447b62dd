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
    public init(
        glob: String? = nil, types: Set<String> = [], hasUnresolvedConflicts: Bool? = nil, modifiedSince: Date? = nil,
        savedBy: String? = nil, downloadStatus: DownloadStatus? = nil, sortKey: SortKey = .path, descending: Bool = false
    ) {
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

    /// Whether no filter is set: every item matches.
    var matchesEverything: Bool {
        glob == nil && types.isEmpty && hasUnresolvedConflicts == nil && modifiedSince == nil && savedBy == nil
            && downloadStatus == nil
    }

    /// `items` filtered and sorted for this query. A listing already in order (a cached one,
    /// sorted by path, for the default query) is checked in one pass instead of sorted again:
    /// sorting 10,000 items copied each one twice.
    func results(_ items: [MetadataItem]) -> [MetadataItem] {
        let matching = matchesEverything ? items : items.filter(matches)
        let inOrder = matching.indices.dropFirst().allSatisfy { !areInOrder(matching[$0], matching[$0 - 1]) }
        return inOrder ? matching : matching.sorted(by: areInOrder)
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

/// A document as ``Container/documents()`` lists it.
