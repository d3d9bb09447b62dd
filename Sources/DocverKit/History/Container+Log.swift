import Foundation

extension Container {
    /// Saves, integrations and resolutions on this device's branch, newest first; with a
    /// document, only those that changed it or recorded something about it.
    public func log(of document: DocumentPath? = nil, limit: Int? = nil) throws -> [LogEntry] {
        try withRepository { repository in
            guard let head = try headCommit(repository) else { return [] }
            // Time order streams; a topological sort would read all history before the first entry.
            let walk = try repository.revwalk(from: [head], topological: false)
            var result: [LogEntry] = []
            while limit.map({ result.count < $0 }) ?? true, let id = try walk.next() {
                let commit = try repository.commit(id)
                if let document, !(try touches(commit, document: document, in: repository)) { continue }
                result.append(try logEntry(commit, in: repository))
            }
            return result
        }
    }

    private func touches(_ commit: Commit, document: DocumentPath, in repository: Repository) throws -> Bool {
        let encoded = TrailerPath.encode(document.path)
        if commit.trailers.contains(where: { Trailer.documentRecords.contains($0.key) && $0.value.hasSuffix(" " + encoded) }) {
            return true
        }
        let parents = commit.parentIDs
        guard parents.count == 1 else {
            guard parents.isEmpty else { return false }
            return try repository.tree(commit.treeID).documentEntry(atPath: document.path) != nil
        }
        let components = document.path.split(separator: "/").map(String.init)
        return try !repository.sameEntry(components, commit.treeID, repository.commit(parents[0]).treeID)
    }

    private func logEntry(_ commit: Commit, in repository: Repository) throws -> LogEntry {
        let trailers = commit.trailers
        let kind: LogEntry.Kind = trailers.contains { $0.key == Trailer.integration } ? .integration
            : trailers.contains { [Trailer.resolved, Trailer.removed, Trailer.replaced].contains($0.key) } ? .resolution : .save
        var changes: [DocumentChange] = []
        if kind != .integration {
            let parentTree = try commit.parentIDs.first.map { try repository.commit($0).treeID }
            let parentTreeObject = try parentTree.map { try repository.tree($0) }
            let tree = try repository.tree(commit.treeID)
            let documents = Set(try repository.changedPaths(from: parentTree, to: commit.treeID)
                .map { DocumentPath.document(containingFile: $0) })
            changes = try documents.sorted().compactMap { document in
                let before = try parentTreeObject?.documentEntry(atPath: document.path) != nil
                let after = try tree.documentEntry(atPath: document.path) != nil
                return ChangeKind(existedBefore: before, existsAfter: after).map { DocumentChange(document: document, change: $0) }
            }
        }
        let subject = commit.message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        return LogEntry(id: commit.id.hex, kind: kind, device: commit.device, date: commit.author.time,
                        subject: subject, changes: changes, conflicts: commit.conflictRecords.count)
    }
}
