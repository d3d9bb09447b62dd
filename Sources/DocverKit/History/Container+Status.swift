import Foundation

extension Container {
    /// Documents changed since the last save, and documents in conflict.
    public func status() throws -> ContainerStatus {
        if hasInterruptedCheckout || hasEmptyIndex {
            try withWriteLock { _ in } // finishes the interrupted update before reading the tree
        }
        let changed = try withRepository { repository in
            let headTree = try headCommit(repository).map { try repository.commit($0).treeID }
            // As `git status` does: when no docver process is writing, files found unchanged
            // after hashing get fresh stat data in the index, so a copied, restored or touched
            // container is hashed once, not on every call. Busy lock: read only.
            if let lock = FileLock.ifFree(path: files.lock) {
                defer { lock.unlock() }
                if let changed = try? changedDocuments(since: headTree, in: repository, refreshIndex: true) { return changed }
            }
            return try changedDocuments(since: headTree, in: repository)
        }
        // The same listing `conflicts()` gives (cached per head), so the two never disagree.
        let counts = try conflicts().map { DocumentConflictCount(document: $0.document, conflicts: $0.conflicts.count) }
        return ContainerStatus(changed: changed, inConflict: counts)
    }
}
