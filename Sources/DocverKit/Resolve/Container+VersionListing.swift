import Foundation

// The listing of every version of a document: its history (History) together with its
// conflict versions, unresolved and resolved (this room).
extension Container {
    /// Every version of a document a listing shows (`docver versions`), read in one repository:
    /// each repository opened reads the head again, and after a long offline join that is an
    /// integration of hundreds of kilobytes.
    ///
    /// Throws ``DocverError/noSuchDocument(_:)`` for a document never saved.
    public func versions(of document: DocumentPath, includingResolved: Bool = false) throws -> DocumentVersions {
        try withRepository { repository in
            guard let current = try currentVersion(of: document, in: repository) else {
                throw DocverError.noSuchDocument(document.path)
            }
            let unresolved = try unresolvedConflicts(of: document, in: repository)
            let resolved = includingResolved ? try resolvedConflictVersions(of: document, in: repository) : []
            let graph = VersionGraph(repository: repository, index: versionIndex(in: repository, for: document))
            let history = try graph.history(of: document, after: current, limit: nil)
            // The versions merge resolutions were made from, besides the line the history
            // follows: a conflict version a merge took in (and removed) is history too.
            let listed = Set(([current] + unresolved + resolved + history).map(\.id))
            var merged: [DocumentVersion] = []
            for version in [current] + history where !version.isDeletion {
                guard try graph.isMergeResolution(repository.commit(version.commitID)) else { continue }
                for id in try graph.predecessors(of: version.commitID, path: document.path)
                where !listed.contains(id.hex) && !merged.contains(where: { $0.id == id.hex }) {
                    merged.append(try graph.version(of: document, at: id))
                }
            }
            return DocumentVersions(
                current: current, unresolvedConflicts: unresolved, resolvedConflicts: resolved, history: history,
                merged: merged.sorted(by: Self.newestFirst))
        }
    }
}
