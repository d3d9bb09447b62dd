import Foundation

extension Container {
    /// Saves, integrations and resolutions on this device's branch, newest first; with a
    /// document, only those that changed it or recorded something about it.
    public func log(of document: DocumentPath? = nil, limit: Int? = nil) throws -> [LogEntry] {
        var result: [LogEntry] = []
        try log(of: document, limit: limit) { result.append($0) }
        return result
    }

    /// ``log(of:limit:)`` streamed: `body` receives each entry as soon as it is found, so the
    /// first entry costs what one entry costs, however long the history.
    ///
    /// With a document, the version index says which commits concern it, so only those are
    /// read; without one, each entry's changes come from its own tree difference.
    public func log(of document: DocumentPath? = nil, limit: Int? = nil, each body: (LogEntry) throws -> Void) throws {
        try withRepository { repository in try log(of: document, limit: limit, in: repository, each: body) }
    }

    /// ``log(of:limit:each:)`` of a document that must exist: throws
    /// ``DocverError/noSuchDocument(_:)`` for one with neither a current version nor conflict
    /// versions, asked in the repository the log then reads (one repository per command: each
    /// one opened reads the head again, which after a long offline join is an integration of
    /// hundreds of kilobytes).
    public func log(ofExisting document: DocumentPath, limit: Int? = nil, each body: (LogEntry) throws -> Void) throws {
        try withRepository { repository in
            if try currentVersion(of: document, in: repository) == nil,
                try unresolvedConflicts(of: document, in: repository).isEmpty
            {
                throw DocverError.noSuchDocument(document.path)
            }
            try log(of: document, limit: limit, in: repository, each: body)
        }
    }

    func log(of document: DocumentPath?, limit: Int?, in repository: Repository, each body: (LogEntry) throws -> Void) throws {
        guard let head = try headCommit(repository) else { return }
        let index = document.flatMap { versionIndex(in: repository, for: $0) }
        // Time order streams; a topological sort would read all history before the first entry.
        // With a document, the index knows the order and which commits concern it: only
        // those commits are read.
        var order = index?.revwalkOrder(from: head)
        let walk = order == nil ? try repository.revwalk(from: [head], topological: false) : nil
        var count = 0
        while limit.map({ count < $0 }) ?? true, let id = try order?.next() ?? walk?.next() {
            if let document {
                if let known = index?.touches(id, document: document.path) {
                    if !known { continue }
                } else if !(try touches(repository.commit(id), document: document, in: repository)) {
                    continue
                }
            }
            try body(logEntry(repository.commit(id), index: index, in: repository))
            count += 1
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

    private func logEntry(_ commit: Commit, index: VersionIndex?, in repository: Repository) throws -> LogEntry {
        // The message and its trailers read once: an integration's can hold thousands of records.
        let message = commit.message
        let trailers = CommitMessage.trailers(of: message)
        let kind: LogEntry.Kind =
            trailers.contains { $0.key == Trailer.integration }
            ? .integration
            : trailers.contains { [Trailer.resolved, Trailer.removed, Trailer.replaced].contains($0.key) } ? .resolution : .save
        var changes: [DocumentChange] = []
        if kind != .integration, let indexed = index?.changes(of: commit.id) {
            changes = indexed.map { change in
                DocumentChange(document: DocumentPath(trusted: change.document), change: change.kind.change)
            }.sorted { $0.document < $1.document }
        } else if kind != .integration {
            let parentTree = try commit.parentIDs.first.map { try repository.commit($0).treeID }
            let parentTreeObject = try parentTree.map { try repository.tree($0) }
            let tree = try repository.tree(commit.treeID)
            let documents = Set(
                try repository.changedPaths(from: parentTree, to: commit.treeID)
                    .map { DocumentPath.document(containingFile: $0) })
            changes = try documents.filter { !DocumentPath.isReserved($0.path) }.sorted().compactMap { document in
                let before = try parentTreeObject?.documentEntry(atPath: document.path) != nil
                let after = try tree.documentEntry(atPath: document.path) != nil
                return ChangeKind(existedBefore: before, existsAfter: after).map { DocumentChange(document: document, change: $0) }
            }
        }
        let subject = message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        return LogEntry(
            id: commit.id.hex, kind: kind, device: commit.device(trailers: trailers), date: commit.author.time,
            subject: subject, changes: changes, conflicts: trailers.conflictRecordCount)
    }
}
