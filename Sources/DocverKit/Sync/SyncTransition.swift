/// The sync report's transition table (docs/MODEL.md, section 5): what a sync did to one
/// version of one document, read from the version's status before and after it, says which
/// entry the report gives it. `Container.documentChanges` finds the versions whose status
/// moved (records made or closed, the current version replaced); this table alone names
/// what that was.
enum SyncTransition {
    /// A version's status on this device, on one side of a sync.
    enum Status: Hashable {
        /// Neither listed as a conflict version nor current.
        case notListed
        /// An unresolved conflict version.
        case open
        /// A conflict version resolved or removed; `setAside`: by a merge made with plain
        /// git (R14, R15), which lists it under `versions --all`.
        case closed(setAside: Bool)
        /// The document's current version.
        case current
    }

    /// The report's entry for a version whose status went from `before` to `after`; nil when
    /// the move is nothing to tell. `isOwn`: the version is this device's (for a version
    /// that became current: the current version is).
    ///
    /// | before | after | entry |
    /// |---|---|---|
    /// | not open | open | `yoursIsConflictVersion` (own), `conflictVersionKept` |
    /// | open | closed | `resolvedElsewhere` |
    /// | not open | closed by a plain merge | `setAsideByPlainMerge` |
    /// | not open | closed otherwise | `resolvedElsewhere` |
    /// | any | current, another device's | `updated` |
    /// | any | current, this device's | — |
    /// | the same | the same, or not listed | — |
    static func entry(from before: Status, to after: Status, isOwn: Bool) -> DocumentSyncChange.Kind? {
        switch (before, after) {
        case (.open, .open), (_, .notListed): nil
        case (_, .open): isOwn ? .yoursIsConflictVersion : .conflictVersionKept
        case (.open, .closed): .resolvedElsewhere
        case (.closed, .closed): nil
        case (_, .closed(let setAside)): setAside ? .setAsideByPlainMerge : .resolvedElsewhere
        case (_, .current): isOwn ? nil : .updated
        }
    }
}
