import Foundation

extension Container {
    /// Documents changed since the last save, and documents in conflict.
    public func status() throws -> ContainerStatus {
        if hasInterruptedCheckout || hasEmptyIndex {
            try withWriteLock { _ in } // finishes the interrupted update before reading the tree
        }
        let changed = try withRepository { repository in
            let headTree = try headCommit(repository).map { try repository.commit($0).treeID }
            return try changedDocuments(since: headTree, in: repository)
        }
        // The same listing `conflicts()` gives (cached per head), so the two never disagree.
        let counts = try conflicts().map { DocumentConflictCount(document: $0.document, conflicts: $0.conflicts.count) }
        return ContainerStatus(changed: changed, inConflict: counts)
    }
}
