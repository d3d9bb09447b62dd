import Foundation

/// The outcome of saving in-memory contents (``Container/saveContents(_:of:basedOn:message:)``).
public struct ContentsSaveResult: Sendable, Hashable {
    /// The save that recorded the contents.
    public let save: String
    /// The head the branch moved to: the save itself, or an integration when the document had
    /// changed underneath (then the contents take part in the conflict rules).
    public let head: String
    /// True when the document had changed since `basedOn` and the save became a competing version.
    public let competed: Bool
    /// The document's current version after the save (the saved one, unless another won).
    public let current: DocumentVersion
}

extension Container {
    /// The id of this device's head, or nil before the first save. Cheap: one reference read.
    public func headID() throws -> String? {
        try withRepository { try headCommit($0)?.hex }
    }

    /// Saves contents held in memory (an editor's snapshot) as a new version of `document`.
    ///
    /// `basedOn` is the head the editor loaded the document from. If the document changed on
    /// this branch since then (another process, a sync), the contents are saved on top of that
    /// head and integrated with the current one, so they compete under the usual rules instead
    /// of silently replacing the newer version. The working-tree file is then replaced
    /// atomically (write to a temporary file, rename); if the working tree held unsaved edits
    /// of the document made by someone else, they are saved first, so none is lost.
    public func saveContents(_ contents: DocumentContents, of document: DocumentPath, basedOn: String?,
                             message: String? = nil) throws -> ContentsSaveResult {
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
                let atBase = try repository.tree(repository.commit(base).treeID).entry(atPath: document.path)
                let atHead = try repository.tree(repository.commit(head).treeID).entry(atPath: document.path)
                if atBase?.id != atHead?.id || atBase?.mode != atHead?.mode { parent = base }
            }
            let parentTree = try parent.map { try repository.commit($0).treeID }
            var tree = parentTree ?? ObjectID.emptyTree
            if let existing = try parentTree.flatMap({ try repository.tree($0).entry(atPath: document.path) }),
               existing.mode.isTree != (entry?.mode.isTree ?? existing.mode.isTree) {
                tree = try repository.writeTree(base: tree, updates: [.init(path: document.path, action: .remove)])
            }
            tree = try repository.writeTree(base: tree, updates: [
                .init(path: document.path, action: entry.map { .upsert($0.id, $0.mode) } ?? .remove),
            ])
            let change: ChangeKind = entry == nil ? .deleted
                : (try parentTree.flatMap { try repository.tree($0).entry(atPath: document.path) } == nil ? .added : .modified)
            let now = Date()
            let identity = Repository.Identity(name: device.name, email: "\(device.id)@docver", time: now,
                                               offsetMinutes: Int32(TimeZone.current.secondsFromGMT(for: now) / 60))
            var commitMessage = CommitMessage(subject: message ?? "Save \(document.path)")
            commitMessage.body = ["\(change.rawValue): \(document.path)"]
            commitMessage.trailers = [(Trailer.device, device.id), (Trailer.deviceName, device.name)]
            let saved = try repository.createCommit(tree: tree, parents: parent.map { [$0] } ?? [], author: identity,
                                                    committer: identity, message: commitMessage.render())
            var newHead = saved
            if parent != head, let head {
                newHead = try integrate([saved], into: head, in: repository).head ?? saved
            }
            try advanceDocument(document, to: newHead, from: head, in: repository)
            let current = try makeVersion(of: document, at: versionCommit(of: document.path, from: newHead, in: repository),
                                          in: repository)
            return ContentsSaveResult(save: saved.hex, head: newHead.hex, competed: parent != head, current: current)
        }
    }

    /// Writes contents into the object database; nil for a deletion.
    func writeContents(_ contents: DocumentContents, in repository: Repository) throws -> (id: ObjectID, mode: FileMode)? {
        switch contents {
        case .deleted: return nil
        case let .flat(data): return (try repository.writeBlob(data), .blob)
        case let .package(package): return (try writePackage(package.files, in: repository), .tree)
        }
    }

    func writePackage(_ files: [String: Data], in repository: Repository) throws -> ObjectID {
        var direct: [(name: String, id: ObjectID, mode: FileMode)] = []
        var nested: [String: [String: Data]] = [:]
        for (path, data) in files {
            if let slash = path.firstIndex(of: "/") {
                nested[String(path[..<slash]), default: [:]][String(path[path.index(after: slash)...])] = data
            } else {
                direct.append((path, try repository.writeBlob(data), .blob))
            }
        }
        for (name, children) in nested {
            direct.append((name, try writePackage(children, in: repository), .tree))
        }
        return try repository.writeTree(entries: direct)
    }

    /// Moves the branch to `new` when only `document` differs from `old`, writing the
    /// document's files atomically (temporary file + rename) rather than through a checkout.
    private func advanceDocument(_ document: DocumentPath, to new: ObjectID, from old: ObjectID?,
                                 in repository: Repository) throws {
        let marker = metadataDirectory + "/checkout-pending"
        let oldTree = try old.map { try repository.commit($0).treeID }
        try FileManager.default.createDirectory(atPath: metadataDirectory, withIntermediateDirectories: true)
        try writeAtomically((oldTree?.hex ?? "none") + "\n", to: marker)
        do {
            try repository.updateReference(device.branch, to: new, expected: old, message: "docver: save \(document.path)")
        } catch {
            try? FileManager.default.removeItem(atPath: marker)
            throw error
        }
        let newTree = try repository.commit(new).treeID
        let entry = try repository.tree(newTree).entry(atPath: document.path)
        let fullPath = root.path + "/" + document.path
        var files: [(path: String, id: ObjectID, mode: FileMode, stat: FileStat)] = []
        try materialize(entry, at: fullPath, relative: document.path, files: &files, in: repository)
        try recordInIndex([DocumentSnapshot(document: document, entry: entry.map { ($0.id, $0.mode) }, files: files)],
                          in: repository)
        try FileManager.default.removeItem(atPath: marker)
    }

    /// Makes the working tree hold `entry` at `fullPath`; every file is replaced atomically.
    private func materialize(_ entry: TreeEntry?, at fullPath: String, relative: String,
                             files: inout [(path: String, id: ObjectID, mode: FileMode, stat: FileStat)],
                             in repository: Repository) throws {
        let manager = FileManager.default
        guard let entry else {
            if manager.fileExists(atPath: fullPath) { try manager.removeItem(atPath: fullPath) }
            return
        }
        if entry.mode.isTree {
            if let stat = FileStat(path: fullPath), !stat.isDirectory { try manager.removeItem(atPath: fullPath) }
            try manager.createDirectory(atPath: fullPath, withIntermediateDirectories: true)
            let children = try repository.tree(entry.id).entries
            let names = Set(children.map(\.name))
            for existing in (try? manager.contentsOfDirectory(atPath: fullPath)) ?? [] where !names.contains(existing) {
                try manager.removeItem(atPath: fullPath + "/" + existing)
            }
            for child in children {
                try materialize(child, at: fullPath + "/" + child.name, relative: relative + "/" + child.name,
                                files: &files, in: repository)
            }
            return
        }
        if let stat = FileStat(path: fullPath), stat.isDirectory { try manager.removeItem(atPath: fullPath) }
        try manager.createDirectory(atPath: (fullPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let temporary = fullPath + ".docver-tmp-\(getpid())"
        try repository.blob(entry.id).data.write(to: URL(fileURLWithPath: temporary))
        if entry.mode == .executable { chmod(temporary, 0o755) }
        guard rename(temporary, fullPath) == 0 else {
            unlink(temporary)
            throw DocverError.git(GitError(code: .other(-1), message: "cannot replace \(relative)", function: #function))
        }
        if let stat = FileStat(path: fullPath) { files.append((relative, entry.id, entry.mode, stat)) }
    }
}
