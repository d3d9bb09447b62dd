import Foundation

// An editor's save of contents held in memory: a save that may integrate, so it lives above
// Storage (which writes the contents) and beside the integration it calls.
extension Container {
    /// Saves contents held in memory (an editor's snapshot) as a new version of `document`.
    ///
    /// `basedOn` is the head the editor loaded the document from. If the document changed on
    /// this branch since then (another process, a sync), the contents are saved on top of that
    /// head and integrated with the current one, so they compete under the usual rules instead
    /// of silently replacing the newer version. The working-tree file is then replaced
    /// atomically (write to a temporary file, rename); if the working tree held unsaved edits
    /// of the document made by someone else, they are saved first, so none is lost.
    public func saveContents(
        _ contents: DocumentContents, of document: DocumentPath, basedOn: String?,
        message: String? = nil
    ) throws -> ContentsSaveResult {
        if let message { try CommitMessage.validateUserMessage(message) }
        try checkInsideContainer(document)
        return try withWriteLock { repository in
            do {
                _ = try save([document], message: "Save edits made outside the editor", in: repository)
            } catch let error as DocverError where error == .noSuchDocument(document.path) {
                // Neither in the working tree nor saved: a new document, nothing to save first.
            }
            let entry = try writeContents(contents, in: repository)
            let head = try headCommit(repository)
            let base = basedOn.flatMap(ObjectID.init(hex:))
            var parent = head
            if let base, let head, base != head, try repository.objectExists(base) {
                let atBase = try repository.tree(repository.commit(base).treeID).documentEntry(atPath: document.path)
                let atHead = try repository.tree(repository.commit(head).treeID).documentEntry(atPath: document.path)
                if atBase?.id != atHead?.id || atBase?.mode != atHead?.mode { parent = base }
            }
            let parentTree = try parent.map { try repository.commit($0).treeID }
            let old = try parentTree.flatMap { try repository.tree($0).documentEntry(atPath: document.path) }.map(EntryState.init)
            let tree = try repository.writeTree(
                base: parentTree ?? ObjectID.emptyTree,
                replacing: [TreeReplacement(path: document.path, old: old, new: entry)])
            let change = ChangeKind(existedBefore: old != nil, existsAfter: entry != nil) ?? .deleted
            let message = CommitMessage.save(
                subject: message ?? "Save \(document.path)",
                changes: [DocumentChange(document: document, change: change)], device: device)
            let identity = try CommitIdentity.device(device, at: commitClock.now(), after: parent.map { [$0] } ?? [], in: repository)
            let saved = try repository.createCommit(
                tree: tree, parents: parent.map { [$0] } ?? [], author: identity.author,
                committer: identity.committer, message: message.render(),
                sign: commitSigner(in: repository))
            var newHead = saved
            if parent != head, let head {
                newHead = try integrate([saved], into: head, in: repository).head ?? saved
            }
            try advanceDocument(document, to: newHead, from: head, in: repository)
            let graph = VersionGraph(repository: repository)
            let current = try graph.version(of: document, at: graph.introducingCommit(of: document.path, from: newHead))
            return ContentsSaveResult(save: saved.hex, head: newHead.hex, competed: parent != head, current: current)
        }
    }
}
