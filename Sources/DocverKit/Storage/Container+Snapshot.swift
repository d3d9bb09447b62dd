import Foundation

/// A document's state read from the working tree, hashed into the object database.
struct DocumentSnapshot {
    var document: DocumentPath
    /// nil: the document does not exist in the working tree.
    var state: EntryState?
    /// Every file hashed, with the stat data read before hashing, for the index.
    var files: [SnapshotFile]
}

/// One file of a snapshot, with the stat data read before it was hashed.
struct SnapshotFile {
    var path: String
    var state: EntryState
    var stat: FileStat
}

extension Container {
    /// The documents a user-supplied name stands for: the enclosing package, the document
    /// itself, or every changed document in a plain folder.
    func expand(_ document: DocumentPath, headTree: ObjectID?, in repository: Repository) throws -> [DocumentPath] {
        try checkInsideContainer(document)
        let owner = DocumentPath.document(containingFile: document.path)
        if owner != document { return [owner] }
        // An evicted document's absence is no deletion, and its placeholder is no document.
        let listed = listedEvictions()
        if !listed.isEmpty {
            if evictedDocuments()[ByteString(document.path)] != nil { return [] }
            if let evicted = Placeholder.document(of: document.path), listed[ByteString(evicted.path)] != nil { return [] }
        }
        let fullPath = root.path + "/" + document.path
        if let stat = FileStat(path: fullPath), stat.isDirectory, !DocumentPath.isPackageName(document.name) {
            return try changedDocuments(since: headTree, in: repository, under: document.path).map(\.document)
        }
        if try workingTreeStat(of: document) != nil { return [document] }
        // Not in the working tree: a deletion of a saved document, or of a folder's documents.
        if let headTree, let entry = try repository.tree(headTree).entry(atPath: document.path) {
            if entry.mode.isTree && !DocumentPath.isPackageName(document.name) {
                return try changedDocuments(since: headTree, in: repository, under: document.path).map(\.document)
            }
            return [document]
        }
        throw DocverError.noSuchDocument(document.path)
    }

    /// Rejects a document whose path leaves the container through a symbolic link.
    func checkInsideContainer(_ document: DocumentPath) throws {
        let rootReal = FileSystem.realPath(root.path) ?? root.path
        var current = root.path
        let components = document.path.split(separator: "/")
        for (index, component) in components.enumerated() {
            current += "/" + component
            guard let stat = FileStat(path: current) else { return }
            if stat.isSymbolicLink {
                guard let target = FileSystem.realPath(current) else {
                    if index == components.count - 1 { return }  // a dangling link is stored as a link
                    throw DocverError.invalidDocumentName(document.path, reason: "a symbolic link on its path cannot be resolved")
                }
                guard target == rootReal || target.hasPrefix(rootReal + "/") else {
                    throw DocverError.invalidDocumentName(document.path, reason: "it resolves outside the container through a symbolic link")
                }
                if (target + "/").hasPrefix(rootReal + "/.git/") || target == rootReal + "/.git" {
                    throw DocverError.invalidDocumentName(document.path, reason: "it resolves inside .git through a symbolic link")
                }
                // As git refuses a path "beyond a symbolic link": the link is the document,
                // not the files it leads to (saving them stored a folder where a link is).
                if index < components.count - 1 {
                    throw DocverError.invalidDocumentName(
                        document.path,
                        reason:
                            "'\(components[...index].joined(separator: "/"))' is a symbolic link; save the link itself, or name the file by its real path"
                    )
                }
            }
        }
    }

    /// Hashes a document's working-tree state into the object database.
    func snapshot(_ document: DocumentPath, in repository: Repository) throws -> DocumentSnapshot {
        let fullPath = root.path + "/" + document.path
        guard let stat = try workingTreeStat(of: document) else {
            return DocumentSnapshot(document: document, state: nil, files: [])
        }
        try Self.refuseSpecialFile(stat, at: document.path)
        if stat.isDirectory {
            var files: [SnapshotFile] = []
            // (A package's tree is written as its files are hashed: they must be readable
            // then, so they are written loose.)
            let tree = try repository.writingLooseObjects {
                try snapshotDirectory(fullPath, relative: document.path, files: &files, in: repository)
            }
            return DocumentSnapshot(document: document, state: tree.map { EntryState($0, .tree) }, files: files)
        }
        let state = try hashFile(fullPath, stat: stat, document: document, in: repository)
        return DocumentSnapshot(document: document, state: state, files: [SnapshotFile(path: document.path, state: state, stat: stat)])
    }

    /// A document's contents as they are in the working tree, read without hashing: its saved
    /// contents, or its unsaved edits if it has any. A package's components are its regular
    /// files (symbolic links are left out); `.deleted` when the document is not there.
    func workingTreeContents(of document: DocumentPath) throws -> DocumentContents {
        let fullPath = root.path + "/" + document.path
        func read(_ path: String) throws(SystemError) -> Data {
            do {
                return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
            } catch {
                throw .wrapping("read", path, error)
            }
        }
        guard let stat = try workingTreeStat(of: document) else { return .deleted }
        if stat.isRegularFile { return .flat(try read(fullPath)) }
        guard stat.isDirectory else { return .flat(Data(try FileSystem.linkTarget(fullPath).utf8)) }  // a link, as git stores it
        var files: [String: Data] = [:]
        func collect(_ folder: String, prefix: String) throws {
            for name in try FileSystem.contentsOfDirectory(folder) where name != ".git" {
                let path = folder + "/" + name
                guard let child = FileStat(path: path) else { continue }
                if child.isDirectory {
                    try collect(path, prefix: prefix + name + "/")
                } else if child.isRegularFile {
                    files[prefix + name] = try read(path)
                }
            }
        }
        try collect(fullPath, prefix: "")
        return .package(FilePackage(files: files))
    }

    private func snapshotDirectory(
        _ fullPath: String, relative: String,
        files: inout [SnapshotFile],
        in repository: Repository
    ) throws -> ObjectID? {
        var entries: [(name: String, id: ObjectID, mode: FileMode)] = []
        for name in try FileSystem.contentsOfDirectory(fullPath).sorted() where name != ".git" {
            let childPath = fullPath + "/" + name
            let childRelative = relative + "/" + name
            guard let stat = FileStat(path: childPath) else { continue }
            try Self.refuseSpecialFile(stat, at: childRelative)
            if stat.isDirectory {
                if let tree = try snapshotDirectory(childPath, relative: childRelative, files: &files, in: repository) {
                    entries.append((name, tree, .tree))
                }
            } else if stat.isRegularFile || stat.isSymbolicLink {
                let state = try hashFile(childPath, stat: stat, document: DocumentPath(trusted: childRelative), in: repository)
                entries.append((name, state.id, state.mode))
                files.append(SnapshotFile(path: childRelative, state: state, stat: stat))
            }
        }
        guard !entries.isEmpty else { return nil }
        return try repository.writeTree(entries: entries)
    }

    /// A FIFO, socket or device cannot be versioned, and opening one may block forever (a
    /// FIFO waits for a writer while the writer lock is held): refused from its stat data alone.
    static func refuseSpecialFile(_ stat: FileStat, at path: String) throws {
        guard !(stat.isRegularFile || stat.isDirectory || stat.isSymbolicLink) else { return }
        throw DocverError.invalidDocumentName(path, reason: "it is a FIFO, socket or device; only files, folders and links are versioned")
    }

    private func hashFile(
        _ path: String, stat: FileStat, document: DocumentPath,
        in repository: Repository
    ) throws -> EntryState {
        if stat.isSymbolicLink {
            try checkInsideContainer(document)
            let target = try FileSystem.linkTarget(path)
            return EntryState(try repository.writeBlob(Data(target.utf8)), .link)
        }
        do {
            let id = try repository.writeBlob(streamingFileAt: path, expectedSize: stat.size)
            return EntryState(id, stat.isExecutable ? .executable : .blob)
        } catch let error as GitError where error.code == .modified {
            throw DocverError.documentChangedDuringSave(document.path)
        }
    }

    /// Documents whose working-tree state differs from `tree`.
    func changedDocuments(
        since tree: ObjectID?, in repository: Repository, under folder: String? = nil,
        paths: [String] = [], refreshIndex: Bool = false
    ) throws -> [DocumentChange] {
        let fileChanges = try repository.changesFromTreeToWorkdir(
            tree, paths: folder.map { [$0 + "/"] } ?? paths,
            refreshIndex: refreshIndex)
        var byDocument: [DocumentPath: Set<Repository.WorkdirChange.Kind>] = [:]
        // An evicted document's absence is no deletion, and a listed document's placeholder
        // is no document (one failed open when nothing is evicted).
        let listed = listedEvictions()
        let evicted = listed.isEmpty ? [:] : evictedDocuments()
        for change in fileChanges {
            // A name that is not UTF-8 cannot be a document name; a save names it, escaped,
            // instead of listing it and then finding nothing to save.
            if let bytes = change.invalidName, refreshIndex {
                throw DocverError.nameNotUTF8(escaped: DocumentPath.escaped(bytes))
            }
            let document = DocumentPath.document(containingFile: change.path)
            if document.path.split(separator: "/").first == Substring(DocumentPath.reservedArea) { continue }
            if !listed.isEmpty {
                if evicted[ByteString(document.path)] != nil { continue }
                if change.kind == .added, let owner = Placeholder.document(of: change.path), listed[ByteString(owner.path)] != nil { continue }
            }
            byDocument[document, default: []].insert(change.kind)
        }
        let baseTree = try tree.map { try repository.tree($0) }
        try dropStaleIndexChanges(
            &byDocument, files: fileChanges.filter { $0.invalidName == nil }.map(\.path),
            baseTree: baseTree, since: tree, in: repository, refreshIndex: refreshIndex)
        return try byDocument.keys.sorted().compactMap { document -> DocumentChange? in
            let existedBefore = try baseTree?.documentEntry(atPath: document.path) != nil
            // (libgit2 takes the files of a folder it cannot open for deleted.)
            let existsNow = try workingTreeStat(of: document) != nil
            // A change where no document existed before is an addition (as git sees it).
            return ChangeKind(existedBefore: existedBefore, existsAfter: existsNow || !existedBefore)
                .map { DocumentChange(document: document, change: $0) }
        }
    }

    /// Where the index is not the saved state (older or newer than the branch: restored from
    /// a backup, `git reset --soft`, another git tool that crashed), the diff compares a
    /// stat-clean file with the index's blob and lists a document that `save` finds
    /// unchanged. Such documents are compared the way `save` compares them (their working-tree
    /// state against the tree's entry), so `status` stays `save`'s dry run; with
    /// `refreshIndex` (writer lock held), their index entries are brought back in line.
    private func dropStaleIndexChanges(
        _ byDocument: inout [DocumentPath: Set<Repository.WorkdirChange.Kind>], files: [String],
        baseTree: Tree?, since tree: ObjectID?, in repository: Repository, refreshIndex: Bool
    ) throws {
        let staged = try repository.pathsStaged(against: tree, paths: files.filter { !$0.hasPrefix(DocumentPath.reservedArea + "/") })
        guard !staged.isEmpty else { return }
        let documents = Set(staged.map { DocumentPath.document(containingFile: $0) }).intersection(byDocument.keys)
        var unchanged: [DocumentSnapshot] = []
        for document in documents.sorted() {
            let snapshot = try snapshot(document, in: repository)
            let saved = try baseTree?.documentEntry(atPath: document.path).map(EntryState.init)
            guard saved == snapshot.state else { continue }
            byDocument[document] = nil
            unchanged.append(snapshot)
        }
        if refreshIndex { try recordInIndex(unchanged, in: repository) }
    }

    /// Unsaved changes that concern `document`: its own, and those of the documents that
    /// stand in its way (a file where one of its folders belongs, documents in a folder at its
    /// name). Reads only those paths of the working tree, so its cost does not grow with the
    /// container (``status()`` reads everything).
    func unsavedChanges(around document: DocumentPath, in repository: Repository) throws -> [DocumentChange] {
        let components = document.path.split(separator: "/")
        // A pathspec also matches what is below a folder of that name; a name with pathspec
        // wildcards may match more, which the filter below drops.
        let paths = (1...components.count).map { components.prefix($0).joined(separator: "/") }
        let headTree = try headCommit(repository).map { try repository.commit($0).treeID }
        let below = document.path + "/"
        return try changedDocuments(since: headTree, in: repository, paths: paths).filter { change in
            let other = change.document.path
            return other.bytesEqual(document.path) || below.bytesHavePrefix(other + "/") || other.bytesHavePrefix(below)
        }
    }

    /// The document's entry in the working tree; nil only when it is certainly not there
    /// (`ENOENT`, or a file where a folder of its path should be). A name docver cannot look
    /// at (a folder on its path it may not open) throws ``DocverError/unreadable(document:reason:)``:
    /// taking it for absent would save a deletion nobody made.
    func workingTreeStat(of document: DocumentPath) throws -> FileStat? {
        let fullPath = root.path + "/" + document.path
        if let stat = FileStat(path: fullPath) { return stat }
        if let code = FileStat.failure(path: fullPath), code != ENOENT, code != ENOTDIR {
            throw DocverError.unreadable(document: document.path, reason: String(cString: strerror(code)))
        }
        return nil
    }
}
