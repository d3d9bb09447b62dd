import Foundation

/// What differs from the last save, and what is in conflict.
public struct ContainerStatus: Sendable, Hashable {
    /// Documents changed in the working tree since the last save.
    public let changed: [DocumentChange]
    /// Documents with unresolved conflict versions, and how many each has.
    public let inConflict: [DocumentConflictCount]
}

/// A document and its number of unresolved conflict versions.
public struct DocumentConflictCount: Sendable, Hashable {
    /// The document in conflict.
    public let document: DocumentPath
    /// How many unresolved conflict versions it has.
    public let conflicts: Int
}

extension Container {
    /// Documents changed since the last save, and documents in conflict.
    public func status() throws -> ContainerStatus {
        if FileManager.default.fileExists(atPath: metadataDirectory + "/checkout-pending") {
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
