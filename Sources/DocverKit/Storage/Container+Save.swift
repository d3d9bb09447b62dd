import Foundation

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

    func save(
        _ documents: [DocumentPath]?, message: String?, in repository: Repository,
        records: [(key: String, value: String)] = []
    ) throws -> SaveResult? {
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
        // libgit2 reports a folder holding its own repository as one entry "folder/" and never
        // enters it; saving that entry stored its files one level too deep.
        if let nested = targets.first(where: { $0.path.hasSuffix("/") }) {
            throw DocverError.invalidDocumentName(
                String(nested.path.dropLast()),
                reason: "it is a folder holding its own git repository (.git); move it out of the container or remove its .git")
        }
        let all = try Set(targets).union(displacedDocuments(by: targets, headTree: headTree, in: repository))
        let ordered = all.sorted()
        let limit = ConfigKey.integer(ConfigKey.saveUnpackLimit, default: ConfigKey.defaultSaveUnpackLimit, in: repository)
        let snapshots =
            try ordered.count >= max(1, limit)
            ? repository.writingBlobsIntoOnePack { try ordered.map { try snapshot($0, in: repository) } }
            : ordered.map { try snapshot($0, in: repository) }
        return try commitSnapshots(snapshots, subject: message, in: repository, records: records)
    }

    /// Commits snapshots on top of the branch tip, retrying on a concurrent update.
    ///
    /// With `allowEmpty`, a commit is written even when no document changed (a resolution or
    /// a record is saved like a save). With `updateIndex`, the saved files' index entries are
    /// brought in line, so `git status` stays clean.
    func commitSnapshots(
        _ snapshots: [DocumentSnapshot], subject: String?, in repository: Repository,
        records: [(key: String, value: String)] = [],
        allowEmpty: Bool = false, updateIndex: Bool = true,
        intent: ((_ commit: ObjectID, _ parent: ObjectID?) throws -> WriteIntent)? = nil
    ) throws -> SaveResult? {
        let attempts = 1000
        for attempt in 0..<attempts {
            let parent = try repository.referenceTarget(device.branch)
            let parentTree = try parent.map { try repository.commit($0).treeID }
            let baseTree = try parentTree.map { try repository.tree($0) }
            var changes: [DocumentChange] = []
            var replacements: [TreeReplacement] = []
            for snapshot in snapshots {
                // A plain folder at the document's name is no document: the file replaces
                // nothing (the folder's documents are saved as deleted beside it).
                let old = try baseTree?.documentEntry(atPath: snapshot.document.path)
                    .flatMap { $0.mode.isTree && !DocumentPath.isPackageName($0.name) ? nil : EntryState($0) }
                guard old != snapshot.state,
                    let kind = ChangeKind(existedBefore: old != nil, existsAfter: snapshot.state != nil)
                else { continue }
                changes.append(DocumentChange(document: snapshot.document, change: kind))
                replacements.append(TreeReplacement(path: snapshot.document.path, old: old, new: snapshot.state))
            }
            guard !changes.isEmpty || allowEmpty else { return nil }
            let tree = try repository.writeTree(base: parentTree ?? ObjectID.emptyTree, replacing: replacements)
            let message = CommitMessage.save(
                subject: subject.flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultSubject(changes),
                changes: changes, device: device, records: records
            ).render()
            let identity = try CommitIdentity.device(device, at: commitClock.now(), after: parent.map { [$0] } ?? [], in: repository)
            let commit = try repository.createCommit(
                tree: tree, parents: parent.map { [$0] } ?? [],
                author: identity.author, committer: identity.committer, message: message,
                sign: commitSigner(in: repository))
            // Recorded before the branch moves, so that a crash before the index (or the
            // caller's working-tree update) follows is finished by the next command.
            if let intent {
                try writeIntent(intent(commit, parent))
            } else if updateIndex {
                try writeIntent(
                    WriteIntent(
                        operation: .save, from: parent, to: commit,
                        files: Self.indexFiles(of: snapshots, saved: Set(changes.map(\.document)))))
            }
            do {
                try repository.updateReference(
                    device.branch, to: commit, expected: parent,
                    message: "docver: " + (message.split(separator: "\n").first.map(String.init) ?? "save"))
            } catch let error as GitError where [.modified, .exists, .locked].contains(error.code) {
                // Another writer moved the branch: rebuild on the new tip.
                usleep(UInt32(min(attempt, 20)) * 500)
                continue
            } catch {
                try? FileSystem.remove(files.intent)
                throw error
            }
            if updateIndex {
                let saved = Set(changes.map(\.document))
                try recordInIndex(snapshots.filter { saved.contains($0.document) }, in: repository)
                try FileSystem.remove(files.intent)
            }
            return SaveResult(id: commit.hex, changes: changes)
        }
        throw DocverError.branchKeptChanging(attempts: attempts)
    }

    /// The index entries a save brings in line, as a ``WriteIntent``'s files: each saved
    /// document's path (cleared first) and every file hashed for it.
    private static func indexFiles(of snapshots: [DocumentSnapshot], saved: Set<DocumentPath>) -> [WriteIntent.File] {
        snapshots.filter { saved.contains($0.document) }.flatMap { snapshot in
            [WriteIntent.File(path: snapshot.document.path, old: nil, new: nil)]
                + snapshot.files.map { WriteIntent.File(path: $0.path, old: nil, new: $0.state) }
        }
    }

    /// Saved documents that a new state of `targets` pushes out of the tree: a document saved
    /// where a plain folder was displaces the folder's documents, and a document inside a
    /// folder saved where a file was displaces that file. They are saved with the targets
    /// (as deletions, unless they still exist), so no document leaves the tree unrecorded.
    func displacedDocuments(
        by targets: [DocumentPath], headTree: ObjectID?,
        in repository: Repository
    ) throws -> [DocumentPath] {
        guard let headTree else { return [] }
        let tree = try repository.tree(headTree)
        var displaced: [DocumentPath] = []
        for target in targets {
            if let entry = try tree.entry(atPath: target.path), entry.mode.isTree, !DocumentPath.isPackageName(entry.name) {
                displaced += try documentEntries(in: entry.id, repository: repository, prefix: target.path + "/").map(\.0)
            }
            let components = target.path.split(separator: "/")
            for depth in components.indices.dropLast() {
                let ancestor = components[...depth].joined(separator: "/")
                if let entry = try tree.entry(atPath: ancestor), !entry.mode.isTree { displaced.append(DocumentPath(trusted: ancestor)) }
            }
        }
        return displaced
    }

    private static func defaultSubject(_ changes: [DocumentChange]) -> String {
        switch changes.count {
        case 0: "Record resolution"
        case 1: "Save \(changes[0].document.path)"
        default: "Save \(changes.count) documents"
        }
    }

    /// Brings the index's entries (and their stat data) in line with what was saved, so that
    /// `git status` is clean and the next status check need not hash these files again.
    ///
    /// The save is already committed when this runs; if a plain git command holds the index
    /// lock past the retries, the index is left as it was (the next status refreshes it) and
    /// the caller learns it through ``DocverError/indexLocked``.
    func recordInIndex(_ snapshots: [DocumentSnapshot], in repository: Repository) throws {
        guard !snapshots.isEmpty else { return }
        let attempts = 50
        for attempt in 0..<attempts {
            do {
                let index = try repository.index()
                try index.reload()
                for snapshot in snapshots {
                    try index.remove(path: snapshot.document.path)
                    try index.removeDirectory(path: snapshot.document.path)
                    for file in snapshot.files {
                        try index.add(path: file.path, id: file.state.id, mode: file.state.mode, stat: file.stat)
                    }
                }
                try index.write()
                return
            } catch let error as GitError where error.code == .locked {
                // A plain git command holds index.lock; the commit is already safe, so wait a little.
                usleep(UInt32(2000 * (attempt + 1)))
            }
        }
        throw DocverError.indexLocked
    }
}

/// One document's entry changing from `old` to `new` (nil: absent) in a tree being written.
struct TreeReplacement {
    var path: String
    var old: EntryState?
    var new: EntryState?
}

extension Repository {
    /// Writes `base` with the replacements applied, in two passes: every removal first (a
    /// deleted document, or the old entry of a file that became a package or back), then
    /// every addition. libgit2 refuses to remove and add the same name in one update, and a
    /// file taking the place of a folder (or the reverse) is exactly that.
    func writeTree(base: ObjectID, replacing replacements: [TreeReplacement]) throws -> ObjectID {
        var tree = base
        let removals = replacements.filter { replacement in
            guard let old = replacement.old else { return false }
            return replacement.new == nil || old.mode.isTree != replacement.new!.mode.isTree
        }
        if !removals.isEmpty {
            tree = try writeTree(base: tree, updates: removals.map { .init(path: $0.path, action: .remove) })
        }
        let additions = replacements.compactMap { replacement in
            replacement.new.map { TreeUpdate(path: replacement.path, action: .upsert($0.id, $0.mode)) }
        }
        if !additions.isEmpty { tree = try writeTree(base: tree, updates: additions) }
        return tree
    }
}
