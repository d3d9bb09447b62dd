import Foundation

extension Container {
    /// Documents changed since the last save, and documents in conflict.
    public func status() throws -> ContainerStatus {
        if hasInterruptedCheckout || hasEmptyIndex {
            try withWriteLock { _ in }  // finishes the interrupted update before reading the tree
        }
        let served = servedConflicts()
        return try withRepository { repository in
            let head = try headCommit(repository)
            let headTree = try head.map { try repository.commit($0).treeID }
            // As `git status` does: when no docver process is writing, files found unchanged
            // after hashing get fresh stat data in the index, so a copied, restored or touched
            // container is hashed once, not on every call. Busy lock: read only.
            var changed: [DocumentChange]?
            if let lock = FileLock.ifFree(path: files.lock) {
                defer { lock.unlock() }
                // What a killed sync leaves before any write intent, which plain git trips on:
                // an index lock would keep this refresh, and git's own commands, from writing
                // the index.
                if StaleLock.removeIfStale(gitDirectory + "/index.lock") {
                    onRepair?("removed a stale lock file that no process held: .git/index.lock")
                }
                // Likewise a fetched branch a killed sync named but never received.
                try? repairDanglingTrackingBranches(repository)
                changed = try? changedDocuments(since: headTree, in: repository, refreshIndex: true)
            }
            let changes = try changed ?? changedDocuments(since: headTree, in: repository)
            // The same listing `conflicts()` gives (the agent's, or the one cached per head), so
            // the two never disagree; from the cache, only the counts are read.
            let counts =
                try served.map(Self.counts)
                ?? head.flatMap { ConflictCache(files: files, repository: repository).counts(at: $0) }
                ?? Self.counts(computeConflicts(in: repository))
            return ContainerStatus(changed: changes, inConflict: counts)
        }
    }

    private static func counts(_ conflicts: [Conflict]) -> [DocumentConflictCount] {
        conflicts.map { DocumentConflictCount(document: $0.document, conflicts: $0.conflicts.count) }
    }
}
