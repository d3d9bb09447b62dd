import Foundation

// What an eviction leaves in the working tree (docs/ARCHITECTURE.md, "Evicting a document"),
// and bringing documents back. The working tree is the user's view of it, as in iCloud: an
// evicted document's file is replaced by a placeholder (``Placeholder``); the document is
// listed in `.git/docver/evicted` (``EvictedFile``), and while its file is absent and its
// placeholder there, its absence is no deletion. The eviction itself is
// Sync/Container+Evict.swift.

extension Container {
    /// True when `document` is evicted from this device: a placeholder stands in its place
    /// (``evict(_:force:)``), and ``download(_:progress:)`` brings it back.
    public func isEvicted(_ document: DocumentPath) -> Bool {
        evictedDocuments()[ByteString(document.path)] != nil
    }

    /// The documents evicted now, by their path's bytes: listed in `.git/docver/evicted`, their
    /// file absent and their placeholder there (docs/MODEL.md: R32). Cheap when nothing is
    /// evicted (one failed open).
    func evictedDocuments() -> [ByteString: DocumentPath] {
        var result: [ByteString: DocumentPath] = [:]
        for document in EvictedFile.read(files.evicted) {
            let fullPath = root.path + "/" + document.path
            guard FileStat(path: fullPath) == nil, FileStat.failure(path: fullPath) == ENOENT,
                FileStat(path: root.path + "/" + Placeholder.path(of: document))?.isRegularFile == true
            else { continue }
            result[ByteString(document.path)] = document
        }
        return result
    }

    /// The documents listed as evicted, whether or not they still are.
    func listedEvictions() -> [ByteString: DocumentPath] {
        Dictionary(EvictedFile.read(files.evicted).map { (ByteString($0.path), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Forgets the listed documents that are no longer evicted: a file at the name (written by
    /// the user, or brought back) is the document again, and its placeholder goes; with
    /// neither file nor placeholder, the document was deleted; a document that left the tree
    /// (deleted or renamed on another device) leaves its placeholder (docs/MODEL.md: R33).
    /// Under the writer lock.
    func forgetFinishedEvictions(in repository: Repository) throws {
        let listed = listedEvictions()
        guard !listed.isEmpty else { return }
        let evicted = evictedDocuments()
        let head = try headCommit(repository).map { try repository.tree(repository.commit($0).treeID) }
        var kept: [DocumentPath] = []
        for (key, document) in listed {
            let saved = try head?.documentEntry(atPath: document.path) != nil
            if saved, evicted[key] != nil {
                kept.append(document)
                continue
            }
            let placeholder = Placeholder.path(of: document)
            // (A placeholder that was saved as a document is one now, and stays.)
            if FileStat(path: root.path + "/" + document.path) != nil || !saved, try head?.entry(atPath: placeholder) == nil {
                try DocverError.wrapping { try FileSystem.remove(root.path + "/" + placeholder) }
            }
        }
        if kept.count < listed.count { try EvictedFile.write(kept, to: files.evicted) }
    }

    /// Writes the current version of each evicted document among `documents` (every evicted
    /// document when nil) into the working tree, fetching its contents, then removes its
    /// placeholder and forgets the eviction. Returns the documents brought back.
    ///
    /// Every content is fetched first, then the files are written under a write intent, as an
    /// integration writes them: a kill while a package is half written is finished by the
    /// next command (without the remote), never read as the package's other files deleted.
    @discardableResult
    func bringBack(_ documents: [DocumentPath]?, in repository: Repository) throws -> [DocumentPath] {
        let evicted = evictedDocuments()
        guard !evicted.isEmpty, let head = try headCommit(repository) else { return [] }
        let wanted = documents.map { $0.compactMap { evicted[ByteString($0.path)] } } ?? evicted.values.sorted()
        guard !wanted.isEmpty else { return [] }
        let tree = try repository.tree(repository.commit(head).treeID)
        var files: [WriteIntent.File] = []
        for document in wanted {
            guard let entry = try tree.documentEntry(atPath: document.path) else { continue }
            try repository.fetchMissingContents(under: entry.id, isFolder: entry.mode.isTree)
            if entry.mode.isTree {
                files += try plannedFiles(from: nil, to: entry.id, in: repository).map { file in
                    WriteIntent.File(path: document.path + "/" + file.path, old: nil, new: file.new)
                }
            } else {
                files.append(WriteIntent.File(path: document.path, old: nil, new: EntryState(entry)))
            }
        }
        let intent = WriteIntent(operation: .download, from: head, to: head, files: files)
        try writeIntent(intent)
        try carryOut(intent, in: repository)
        return wanted
    }
}
