import Foundation

// `docver evict` (docs/ARCHITECTURE.md, "Evicting a document"): which contents may leave, the
// checks that refuse what would be lost, and the order of the writes. What an eviction leaves
// in the working tree, and how save and status read it, is Storage/Container+Evicted.swift.

/// What ``Container/evict(_:force:)`` did.
public struct EvictionReport: Sendable, Equatable {
    /// The documents evicted (or already evicted), in the order given.
    public var documents: [DocumentPath]
    /// The bytes the object database shrank by.
    public var freedBytes: Int64
    /// The documents whose unsaved changes were discarded (`force`).
    public var discardedEdits: [DocumentPath]
    /// Versions of these documents whose contents stay here because they are not on a remote
    /// yet (saves not synced).
    public var keptUnsyncedVersions: Int
}

extension Container {
    /// Frees the local contents of `documents` on a device that keeps documents on demand:
    /// each document's file is replaced by a placeholder that says how to bring it back
    /// (`<name>.evicted.txt`), and the contents of its versions that a promisor remote keeps
    /// leave the object database. Saves, syncs and resolutions go on as before; the document is
    /// listed with ``DownloadStatus/notDownloaded`` until ``download(_:)`` brings it back.
    ///
    /// Refuses (throws ``DocverError/cannotEvict(document:reason:)``, changing nothing) a
    /// document with unsaved changes or unresolved conflict versions unless `force` (its
    /// unsaved changes are then discarded, and said so), one whose current version is not on
    /// the remote yet (sync first), a symbolic link, and any document on a device that keeps
    /// every version's contents.
    /// (docs/MODEL.md: R34.)
    public func evict(_ documents: [DocumentPath], force: Bool = false) throws -> EvictionReport {
        try withWriteLock { repository in
            guard let remote = try repository.promisorRemotes().first else {
                throw DocverError.cannotEvict(
                    document: documents.first?.path ?? "",
                    reason:
                        "this device keeps every version's contents; only a device made with 'docver clone --on-demand' (or 'docver remote add --on-demand') can evict"
                )
            }
            guard let head = try headCommit(repository) else { throw DocverError.noSuchDocument(documents.first?.path ?? "") }
            let headTree = try repository.tree(repository.commit(head).treeID)
            var tips: [ObjectID] = []
            for name in try repository.promisorRemotes() {
                tips += try repository.references(matching: RefName.trackingPrefix(name) + "*").map(\.target)
            }
            var onRemote: [ObjectID: Bool] = [:]
            func isOnRemote(_ commit: ObjectID) throws -> Bool {
                if let known = onRemote[commit] { return known }
                let answer = try tips.contains { try repository.isAncestorOrSame(commit, of: $0) }
                onRemote[commit] = answer
                return answer
            }
            let headOnRemote = try isOnRemote(head)
            let conflicted = try conflictState(in: repository).unresolvedByDocument()
            let alreadyEvicted = evictedDocuments()
            var unique: [DocumentPath] = []
            for document in documents where !unique.contains(where: { $0.path.bytesEqual(document.path) }) { unique.append(document) }

            // Every check first: nothing changes unless every document can be evicted.
            var discarded: [DocumentPath] = []
            for document in unique {
                try checkInsideContainer(document)
                guard let entry = try headTree.documentEntry(atPath: document.path) else {
                    throw DocverError.noSuchDocument(document.path)
                }
                guard DocumentPath.document(containingFile: document.path).path.bytesEqual(document.path) else {
                    throw DocverError.cannotEvict(document: document.path, reason: "it is a file inside a package; evict the package")
                }
                if entry.mode == .link {
                    throw DocverError.cannotEvict(document: document.path, reason: "it is a symbolic link, whose contents are its target's name")
                }
                let evicted = alreadyEvicted[ByteString(document.path)] != nil
                if !evicted {
                    guard Placeholder.fits(document) else {
                        throw DocverError.cannotEvict(
                            document: document.path, reason: "its name is too long to take the placeholder's suffix '\(Placeholder.suffix)'")
                    }
                    let placeholder = Placeholder.path(of: document)
                    let saved = try headTree.entry(atPath: placeholder) != nil
                    if saved || FileStat(path: root.path + "/" + placeholder) != nil {
                        throw DocverError.cannotEvict(document: document.path, reason: "'\(placeholder)', where its placeholder goes, is taken")
                    }
                    let edited = try unsavedChanges(around: document, in: repository).contains { $0.document.path.bytesEqual(document.path) }
                    if edited {
                        guard force else {
                            throw DocverError.cannotEvict(
                                document: document.path, reason: "it has unsaved changes; save them (or pass --force to discard them)")
                        }
                        discarded.append(document)
                    }
                }
                if conflicted[document] != nil, !force {
                    throw DocverError.cannotEvict(
                        document: document.path, reason: "it has unresolved conflict versions; resolve them (or pass --force)")
                }
                if !headOnRemote {
                    let current = try currentVersion(of: document, in: repository)
                    if let current, try !isOnRemote(current.commitID) {
                        throw DocverError.cannotEvict(
                            document: document.path, reason: "its current version is not on '\(remote)' yet; run 'docver sync' first")
                    }
                }
            }

            // What leaves: the contents of every version here that a remote keeps, unless a
            // document still here holds the same contents; and the folders that name them,
            // which a promisor pack must hold before the contents go (docs/MODEL.md: R34).
            var contents = Set<ObjectID>()
            var namingTrees = Set<ObjectID>()
            var keptUnsynced = 0
            var seen = Set<ObjectID>()
            for document in unique {
                let versions = try self.versions(of: document, includingResolved: true)
                for version in versions.all {
                    guard let entryID = version.entryID else { continue }
                    guard try isOnRemote(version.commitID) else {
                        keptUnsynced += 1
                        continue
                    }
                    // A package's files are named by its own folders; a flat document by the
                    // folder it sits in, in the commit of that version.
                    for (file, folder) in try repository.contents(under: entryID, isFolder: version.kind == .package, seen: &seen).here {
                        contents.insert(file)
                        namingTrees.insert(try folder ?? repository.folder(holding: document.path, in: version.commitID))
                    }
                }
            }
            let leaving = Set(unique.map { ByteString($0.path) }).union(alreadyEvicted.keys)
            for (path, id) in try repository.index().paths(holding: contents) {
                let owner = ByteString(DocumentPath.document(containingFile: path).path)
                if !leaving.contains(owner) { contents.remove(id) }
            }

            // Then, in an order a kill at any point leaves safe: promised, listed, placeholder
            // written, file removed, contents dropped (a listed document whose file is still
            // there is simply here; evicting it again finishes the job).
            try repository.promise(trees: Array(namingTrees))
            try EvictedFile.write(Array(listedEvictions().values) + unique, to: files.evicted)
            let staging = StagingFolder(files.staging, sameFileSystemAs: root.path)
            for document in unique where alreadyEvicted[ByteString(document.path)] == nil {
                try DocverError.wrapping {
                    // The temporary file in the staging folder, not beside the placeholder: a kill
                    // before the rename leaves it where the next write sweeps it, not a stray file
                    // in the working tree that status would list and a save would keep.
                    try AtomicFile.write(
                        Data(Placeholder.text(of: document).utf8), to: root.path + "/" + Placeholder.path(of: document),
                        flush: false, staging: staging)
                    // A package goes at once (renamed away, then deleted): never half of it.
                    try AtomicFile.remove(root.path + "/" + document.path, staging: staging)
                }
            }
            AtomicFile.syncFileSystem(containing: root.path)
            let freed = try repository.dropContents(contents)
            return EvictionReport(documents: unique, freedBytes: freed, discardedEdits: discarded, keptUnsyncedVersions: keptUnsynced)
        }
    }
}
