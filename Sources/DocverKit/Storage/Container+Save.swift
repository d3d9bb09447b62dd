import Foundation

/// How a document changed.
public enum ChangeKind: String, Sendable, Codable, Hashable {
    case added, modified, deleted
}

/// One document's change, in a save or in the working tree.
public struct DocumentChange: Sendable, Hashable, Codable {
    /// The document.
    public let document: DocumentPath
    /// Added, modified or deleted.
    public let change: ChangeKind
}

/// The outcome of a save.
public struct SaveResult: Sendable, Hashable {
    /// The id of the save (the new versions' id).
    public let id: String
    /// The documents it recorded.
    public let changes: [DocumentChange]
}

/// A document's state read from the working tree, hashed into the object database.
struct DocumentSnapshot {
    var document: DocumentPath
    /// nil: the document does not exist in the working tree.
    var entry: (id: ObjectID, mode: FileMode)?
    /// Every file hashed, with the stat data read before hashing, for the index.
    var files: [(path: String, id: ObjectID, mode: FileMode, stat: FileStat)]
}

extension Container {
    /// Records the working-tree state of `documents` (all changed documents when nil) as one
    /// new commit on this device's branch. Returns nil when nothing changed.
    ///
    /// Objects are written first; then the branch moves by compare-and-swap. A save that races
    /// another writer is rebuilt on the new tip and retried, so no save is ever lost.
    public func save(_ documents: [DocumentPath]? = nil, message: String? = nil) throws -> SaveResult? {
        if let message { try CommitMessage.validateUserMessage(message) }
        return try withWriteLock { repository in
            try save(documents, message: message, in: repository)
        }
    }

    func save(_ documents: [DocumentPath]?, message: String?, in repository: Repository,
              extraTrailers: [(key: String, value: String)] = []) throws -> SaveResult? {
        let head = try repository.referenceTarget(device.branch)
        let headTree = try head.map { try repository.commit($0).treeID }
        let targets: [DocumentPath]
        if let documents {
            targets = try documents.flatMap { try expand($0, headTree: headTree, in: repository) }
        } else {
            // Under the writer lock: let the check refresh the index's stat data.
            targets = try changedDocuments(since: headTree, in: repository, refreshIndex: true).map(\.document)
        }
        guard !targets.isEmpty else { return nil }
        // Documents found in the working tree obey the naming rules of names given by the user
        // (a file named with a newline would otherwise break the save's message lines).
        for target in targets { _ = try DocumentPath(target.path) }
        let snapshots = try Set(targets).sorted().map { try snapshot($0, in: repository) }
        return try commitSnapshots(snapshots, subject: message, in: repository, extraTrailers: extraTrailers)
    }

    /// Commits snapshots on top of the branch tip, retrying on a concurrent update.
    func commitSnapshots(_ snapshots: [DocumentSnapshot], subject: String?, in repository: Repository,
                         extraTrailers: [(key: String, value: String)] = [],
                         allowEmpty: Bool = false, updateIndex: Bool = true) throws -> SaveResult? {
        for attempt in 0..<1000 {
            let parent = try repository.referenceTarget(device.branch)
            let parentTree = try parent.map { try repository.commit($0).treeID }
            let baseTree = try parentTree.map { try repository.tree($0) }
            var changes: [DocumentChange] = []
            var updates: [Repository.TreeUpdate] = []
            var typeChanges: [Repository.TreeUpdate] = []
            for snapshot in snapshots {
                let old = try baseTree?.entry(atPath: snapshot.document.path)
                switch (old, snapshot.entry) {
                case (nil, nil): continue
                case let (old?, new?) where old.id == new.id && old.mode == new.mode: continue
                case (nil, let new?):
                    changes.append(.init(document: snapshot.document, change: .added))
                    updates.append(.init(path: snapshot.document.path, action: .upsert(new.id, new.mode)))
                case (_?, let new?):
                    changes.append(.init(document: snapshot.document, change: .modified))
                    if old?.mode.isTree != new.mode.isTree {
                        // A flat document replacing a package (or back) drops the old entry first.
                        typeChanges.append(.init(path: snapshot.document.path, action: .remove))
                    }
                    updates.append(.init(path: snapshot.document.path, action: .upsert(new.id, new.mode)))
                case (_?, nil):
                    changes.append(.init(document: snapshot.document, change: .deleted))
                    updates.append(.init(path: snapshot.document.path, action: .remove))
                }
            }
            guard !changes.isEmpty || allowEmpty else { return nil }
            var tree = parentTree ?? ObjectID.emptyTree
            if !typeChanges.isEmpty { tree = try repository.writeTree(base: tree, updates: typeChanges) }
            if !updates.isEmpty { tree = try repository.writeTree(base: tree, updates: updates) }
            let message = saveMessage(subject: subject, changes: changes, extraTrailers: extraTrailers)
            let now = Date()
            let identity = Repository.Identity(name: device.name, email: "\(device.id)@docver", time: now,
                                               offsetMinutes: Int32(TimeZone.current.secondsFromGMT(for: now) / 60))
            let commit = try repository.createCommit(tree: tree, parents: parent.map { [$0] } ?? [],
                                                     author: identity, committer: identity, message: message)
            do {
                try repository.updateReference(device.branch, to: commit, expected: parent,
                                               message: "docver: " + (message.split(separator: "\n").first.map(String.init) ?? "save"))
            } catch let error as GitError where [.modified, .exists, .locked].contains(error.code) {
                // Another writer moved the branch: rebuild on the new tip.
                usleep(UInt32(min(attempt, 20)) * 500)
                continue
            }
            if updateIndex { try recordInIndex(snapshots.filter { snapshot in changes.contains { $0.document == snapshot.document } },
                              in: repository) }
            return SaveResult(id: commit.hex, changes: changes)
        }
        throw DocverError.git(GitError(code: .locked, message: "the device branch kept changing; save abandoned", function: #function))
    }

    private func saveMessage(subject: String?, changes: [DocumentChange],
                             extraTrailers: [(key: String, value: String)]) -> String {
        let names = changes.map(\.document.path)
        let defaultSubject = names.count == 1 ? "Save \(names[0])"
            : names.isEmpty ? "Record resolution" : "Save \(names.count) documents"
        var message = CommitMessage(subject: subject.flatMap { $0.isEmpty ? nil : $0 } ?? defaultSubject)
        if let subject, subject.contains("\n") {
            let lines = subject.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            message.subject = lines[0]
            message.body = Array(lines.dropFirst().drop(while: \.isEmpty))
            if !message.body.isEmpty { message.body.append("") }
        }
        message.body += changes.map { "\($0.change.rawValue): \($0.document.path)" }
        message.trailers = [(Trailer.device, device.id), (Trailer.deviceName, device.name)] + extraTrailers
        return message.render()
    }

    /// Brings the index's entries (and their stat data) in line with what was saved, so that
    /// `git status` is clean and the next status check need not hash these files again.
    func recordInIndex(_ snapshots: [DocumentSnapshot], in repository: Repository) throws {
        guard !snapshots.isEmpty else { return }
        for attempt in 0..<50 {
            do {
                let index = try repository.index()
                try index.reload()
                for snapshot in snapshots {
                    try index.remove(path: snapshot.document.path)
                    try index.removeDirectory(path: snapshot.document.path)
                    for file in snapshot.files {
                        try index.add(path: file.path, id: file.id, mode: file.mode, stat: file.stat)
                    }
                }
                try index.write()
                return
            } catch let error as GitError where error.code == .locked {
                // A plain git command holds index.lock; the commit is already safe, so wait a little.
                usleep(UInt32(2000 * (attempt + 1)))
            }
        }
    }

    /// The documents a user-supplied name stands for: the enclosing package, the document
    /// itself, or every changed document in a plain folder.
    func expand(_ document: DocumentPath, headTree: ObjectID?, in repository: Repository) throws -> [DocumentPath] {
        try checkInsideContainer(document)
        let owner = DocumentPath.document(containingFile: document.path)
        if owner != document { return [owner] }
        let fullPath = root.path + "/" + document.path
        if let stat = FileStat(path: fullPath), stat.isDirectory, !DocumentPath.isPackageName(document.name) {
            return try changedDocuments(since: headTree, in: repository, under: document.path).map(\.document)
        }
        if FileStat(path: fullPath) != nil { return [document] }
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
        let rootReal = realPath(root.path) ?? root.path
        var current = root.path
        let components = document.path.split(separator: "/")
        for (index, component) in components.enumerated() {
            current += "/" + component
            guard let stat = FileStat(path: current) else { return }
            if stat.isSymbolicLink {
                guard let target = realPath(current) else {
                    if index == components.count - 1 { return } // a dangling link is stored as a link
                    throw DocverError.invalidDocumentName(document.path, reason: "a symbolic link on its path cannot be resolved")
                }
                guard target == rootReal || target.hasPrefix(rootReal + "/") else {
                    throw DocverError.invalidDocumentName(document.path, reason: "it resolves outside the container through a symbolic link")
                }
                if (target + "/").hasPrefix(rootReal + "/.git/") || target == rootReal + "/.git" {
                    throw DocverError.invalidDocumentName(document.path, reason: "it resolves inside .git through a symbolic link")
                }
            }
        }
    }

    /// Hashes a document's working-tree state into the object database.
    func snapshot(_ document: DocumentPath, in repository: Repository) throws -> DocumentSnapshot {
        let fullPath = root.path + "/" + document.path
        guard let stat = FileStat(path: fullPath) else {
            return DocumentSnapshot(document: document, entry: nil, files: [])
        }
        if stat.isDirectory {
            var files: [(String, ObjectID, FileMode, FileStat)] = []
            let tree = try snapshotDirectory(fullPath, relative: document.path, files: &files, in: repository)
            return DocumentSnapshot(document: document, entry: tree.map { ($0, .tree) }, files: files)
        }
        let (id, mode) = try hashFile(fullPath, stat: stat, document: document, in: repository)
        return DocumentSnapshot(document: document, entry: (id, mode), files: [(document.path, id, mode, stat)])
    }

    private func snapshotDirectory(_ fullPath: String, relative: String,
                                   files: inout [(String, ObjectID, FileMode, FileStat)],
                                   in repository: Repository) throws -> ObjectID? {
        var entries: [(name: String, id: ObjectID, mode: FileMode)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: fullPath).sorted() where name != ".git" {
            let childPath = fullPath + "/" + name
            let childRelative = relative + "/" + name
            guard let stat = FileStat(path: childPath) else { continue }
            if stat.isDirectory {
                if let tree = try snapshotDirectory(childPath, relative: childRelative, files: &files, in: repository) {
                    entries.append((name, tree, .tree))
                }
            } else if stat.isRegularFile || stat.isSymbolicLink {
                let (id, mode) = try hashFile(childPath, stat: stat, document: DocumentPath(trusted: childRelative), in: repository)
                entries.append((name, id, mode))
                files.append((childRelative, id, mode, stat))
            }
        }
        guard !entries.isEmpty else { return nil }
        return try repository.writeTree(entries: entries)
    }

    private func hashFile(_ path: String, stat: FileStat, document: DocumentPath,
                          in repository: Repository) throws -> (ObjectID, FileMode) {
        if stat.isSymbolicLink {
            try checkInsideContainer(document)
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: path)
            return (try repository.writeBlob(Data(target.utf8)), .link)
        }
        do {
            let id = try repository.writeBlob(streamingFileAt: path, expectedSize: stat.size)
            return (id, stat.isExecutable ? .executable : .blob)
        } catch let error as GitError where error.code == .modified {
            throw DocverError.documentChangedDuringSave(document.path)
        }
    }

    /// Documents whose working-tree state differs from `tree`.
    func changedDocuments(since tree: ObjectID?, in repository: Repository, under folder: String? = nil,
                          refreshIndex: Bool = false) throws -> [DocumentChange] {
        let fileChanges = try repository.changesFromTreeToWorkdir(tree, paths: folder.map { [$0 + "/"] } ?? [],
                                                                  refreshIndex: refreshIndex)
        var byDocument: [DocumentPath: Set<Repository.WorkdirChange.Kind>] = [:]
        for change in fileChanges {
            let document = DocumentPath.document(containingFile: change.path)
            if document.path.split(separator: "/").first == Substring(DocumentPath.reservedArea) { continue }
            byDocument[document, default: []].insert(change.kind)
        }
        let baseTree = try tree.map { try repository.tree($0) }
        return try byDocument.keys.sorted().map { document in
            let existedBefore = try baseTree?.entry(atPath: document.path) != nil
            let existsNow = FileStat(path: root.path + "/" + document.path) != nil
            let kind: ChangeKind = !existedBefore ? .added : existsNow ? .modified : .deleted
            return DocumentChange(document: document, change: kind)
        }
    }
}

func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}
