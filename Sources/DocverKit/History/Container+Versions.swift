import Foundation

/// One entry of ``Container/log(of:limit:)``: a save, an integration or a resolution.
public struct LogEntry: Sendable, Hashable {
    /// A save of documents, an integration of other devices' saves, or a resolution.
    public enum Kind: String, Sendable, Codable { case save, integration, resolution }
    /// The commit id.
    public let id: String
    /// What kind of entry this is.
    public let kind: Kind
    /// The device that made it (`docver` for integrations).
    public let device: Device
    /// When it was made.
    public let date: Date
    /// The first line of its message.
    public let subject: String
    /// The documents it changed (empty for integrations).
    public let changes: [DocumentChange]
    /// Versions that this integration recorded as conflict versions.
    public let conflicts: Int
}

extension Container {
    // MARK: Versions

    /// The commit that introduced the state (contents, or absence) a document has at `start`:
    /// walks back while a parent has the same state, preferring the first such parent, as
    /// git's history simplification does. Its cost is the distance to that commit.
    ///
    /// The absence of a document is the one state that several lines can hold for unrelated
    /// reasons: one line deleted the document, another never had it (a device that saved on
    /// from before the document existed). When an integration joins such lines, the first
    /// parent may be the one that never had it, and the walk would end at a root as if the
    /// document had never been saved, losing its deletion. So when the walk through an absence
    /// passed a commit with several parents lacking the document, every such line is searched,
    /// and the deletion no other deletion found descends from is the version.
    func versionCommit(of path: String, from start: ObjectID, in repository: Repository,
                       memo: VersionMemo? = nil) throws -> ObjectID {
        let components = path.split(separator: "/").map(String.init)
        var current = try repository.commit(start)
        // Absence needs the search below once the walk meets a commit with several parents
        // lacking the document (see SyncConflictTests.deletionIntegratedWithALineThatNeverHadTheDocumentIsKept).
        let absent = try repository.tree(current.treeID).entry(atPath: path) == nil
        var result: ObjectID?
        while result == nil {
            // Up to here the walk had a single way back, so the answer there is the answer here.
            if let known = memo?.version(of: path, at: current.id) { result = known; break }
            var next: Commit?
            var ambiguousAbsence = false
            for parentID in current.parentIDs {
                let parent = try repository.commit(parentID)
                if try repository.sameEntry(components, current.treeID, parent.treeID) {
                    if next == nil {
                        next = parent
                        if !absent { break }
                    } else {
                        ambiguousAbsence = true
                        break
                    }
                }
            }
            if ambiguousAbsence { result = try latestDeletion(of: path, from: current.id, in: repository); break }
            guard let next else { result = current.id; break }
            current = next
        }
        memo?.remember(result!, of: path, at: start)
        return result!
    }

    /// Where the absence of `path` at `start` comes from, searching every line lacking it:
    /// the first deletion (in first-parent-first order) that no other deletion found descends
    /// from; the first root reached when no line from `start` ever had the document.
    private func latestDeletion(of path: String, from start: ObjectID, in repository: Repository) throws -> ObjectID {
        var lacks: [ObjectID: Bool] = [:]
        func lacksDocument(_ id: ObjectID) throws -> Bool {
            if let known = lacks[id] { return known }
            let result = try repository.tree(repository.commit(id).treeID).entry(atPath: path) == nil
            lacks[id] = result
            return result
        }
        var deletions: [ObjectID] = []
        var firstRoot: ObjectID?
        var visited: Set<ObjectID> = []
        var stack = [start]
        while let id = stack.popLast() {
            guard visited.insert(id).inserted else { continue }
            let parents = try repository.commit(id).parentIDs
            let lacking = try parents.filter(lacksDocument)
            if lacking.isEmpty {
                if parents.isEmpty { firstRoot = firstRoot ?? id } else { deletions.append(id) }
            } else {
                stack.append(contentsOf: lacking.reversed())
            }
        }
        let latest = try deletions.first { deletion in
            try !deletions.contains { other in try other != deletion && repository.isDescendant(other, of: deletion) }
        }
        return latest ?? firstRoot ?? start
    }

    /// ``versionCommit(of:from:in:memo:)`` for many documents at once: one pass down the
    /// head's history while it is a single line, comparing only the pending documents at each
    /// step, so each commit's trees are read once however many documents are asked about.
    func versionCommits(of paths: Set<String>, from head: ObjectID, in repository: Repository,
                        memo: VersionMemo? = nil) throws -> [String: ObjectID] {
        var pending = Dictionary(uniqueKeysWithValues: paths.map { ($0, $0.split(separator: "/").map(String.init)) })
        var result: [String: ObjectID] = [:]
        var current = try repository.commit(head)
        while !pending.isEmpty {
            for path in Array(pending.keys) {
                if let known = memo?.version(of: path, at: current.id) {
                    result[path] = known
                    pending[path] = nil
                }
            }
            let parents = current.parentIDs
            guard parents.count == 1 else {
                // A root commit introduced whatever is left; through a merge each document may
                // follow a different parent, so walk them one by one.
                for path in pending.keys {
                    result[path] = parents.isEmpty ? current.id
                        : try versionCommit(of: path, from: current.id, in: repository, memo: memo)
                }
                break
            }
            let parent = try repository.commit(parents[0])
            for (path, components) in pending where try !repository.sameEntry(components, current.treeID, parent.treeID) {
                result[path] = current.id
                pending[path] = nil
            }
            current = parent
        }
        for (path, version) in result { memo?.remember(version, of: path, at: head) }
        return result
    }

    /// The version a commit holds of a document.
    func makeVersion(of document: DocumentPath, at commitID: ObjectID, in repository: Repository) throws -> DocumentVersion {
        let commit = try repository.commit(commitID)
        let entry = try repository.tree(commit.treeID).entry(atPath: document.path)
        var kind = DocumentKind.flat
        var size: Int64 = 0
        if let entry {
            kind = entry.mode.isTree ? .package : .flat
            size = try entry.mode.isTree ? treeSize(entry.id, in: repository) : repository.blobSize(entry.id)
        } else if let parent = commit.parentIDs.first,
                  let previous = try repository.tree(repository.commit(parent).treeID).entry(atPath: document.path) {
            kind = previous.mode.isTree ? .package : .flat
        }
        return DocumentVersion(id: commitID.hex, document: document, device: commit.device,
                               modified: commit.author.time, size: size, kind: kind,
                               isDeletion: entry == nil, commitID: commitID, entryID: entry?.id)
    }

    private func treeSize(_ id: ObjectID, in repository: Repository) throws -> Int64 {
        try repository.tree(id).entries.reduce(0) { total, entry in
            try total + (entry.mode.isTree ? treeSize(entry.id, in: repository) : repository.blobSize(entry.id))
        }
    }

    func headCommit(_ repository: Repository) throws -> ObjectID? {
        try repository.referenceTarget(device.branch)
    }

    /// The current version of a document: the version this device's branch holds now.
    /// nil when the document has never been saved; a deletion version when it was deleted.
    public func currentVersion(of document: DocumentPath) throws -> DocumentVersion? {
        try withRepository { repository in try currentVersion(of: document, in: repository) }
    }

    func currentVersion(of document: DocumentPath, in repository: Repository,
                        memo: VersionMemo? = nil) throws -> DocumentVersion? {
        guard let head = try headCommit(repository) else { return nil }
        let version = try makeVersion(of: document, at: versionCommit(of: document.path, from: head, in: repository, memo: memo),
                                      in: repository)
        if version.isDeletion {
            // Absent since the first commit: the document was never saved.
            let isRoot = try repository.commit(version.commitID).parentIDs.isEmpty
            if isRoot { return nil }
        }
        return version
    }

    /// Older versions of a document that led to its current version, newest first.
    public func history(of document: DocumentPath, limit: Int? = nil) throws -> [DocumentVersion] {
        try withRepository { repository in
            guard let current = try currentVersion(of: document, in: repository) else {
                throw DocverError.noSuchDocument(document.path)
            }
            return try history(of: document, after: current, limit: limit, in: repository)
        }
    }

    func history(of document: DocumentPath, after current: DocumentVersion, limit: Int?,
                 in repository: Repository) throws -> [DocumentVersion] {
        var result: [DocumentVersion] = []
        var commit = try repository.commit(current.commitID)
        while limit.map({ result.count < $0 }) ?? true, let parent = commit.parentIDs.first {
            let versionID = try versionCommit(of: document.path, from: parent, in: repository)
            let version = try makeVersion(of: document, at: versionID, in: repository)
            let versionCommit = try repository.commit(versionID)
            // The root commit "introduces" the absence of a document that did not exist yet.
            if version.isDeletion && versionCommit.parentIDs.isEmpty { break }
            result.append(version)
            commit = versionCommit
        }
        return result
    }

    /// Finds a version by a unique prefix of its id (at least four digits).
    ///
    /// With a document, the version must be a version of that document; without one, the
    /// save must have recorded exactly one document.
    public func version(_ id: String, of document: DocumentPath? = nil) throws -> DocumentVersion {
        try withRepository { repository in try version(id, of: document, in: repository) }
    }

    func version(_ id: String, of document: DocumentPath?, in repository: Repository) throws -> DocumentVersion {
        let lowered = id.lowercased()
        guard (4...40).contains(lowered.count), lowered.allSatisfy(\.isHexDigit) else {
            throw DocverError.noSuchVersion(id)
        }
        let commitID: ObjectID
        do {
            commitID = try repository.resolveCommitPrefix(lowered)
        } catch let error as GitError where error.code == .ambiguous {
            throw DocverError.ambiguousVersion(id)
        } catch let error as GitError where error.code == .notFound || error.code == .invalid {
            throw DocverError.noSuchVersion(id)
        }
        if let document {
            guard try versionCommit(of: document.path, from: commitID, in: repository) == commitID else {
                throw DocverError.versionOfAnotherDocument(version: id, document: document.path)
            }
            let version = try makeVersion(of: document, at: commitID, in: repository)
            // A first commit without the document does not record its deletion (as in currentVersion).
            if version.isDeletion, try repository.commit(commitID).parentIDs.isEmpty {
                throw DocverError.versionOfAnotherDocument(version: id, document: document.path)
            }
            return version
        }
        let commit = try repository.commit(commitID)
        let parentTree = try commit.parentIDs.first.map { try repository.commit($0).treeID }
        let documents = Set(try repository.changedPaths(from: parentTree, to: commit.treeID)
            .map { DocumentPath.document(containingFile: $0) })
        guard documents.count == 1, let only = documents.first else {
            if documents.isEmpty { throw DocverError.noSuchVersion(id) }
            throw DocverError.versionNeedsDocument(version: id)
        }
        return try makeVersion(of: only, at: commitID, in: repository)
    }

    /// The contents of a version.
    public func contents(of version: DocumentVersion) throws -> DocumentContents {
        try withRepository { repository in try contents(of: version, in: repository) }
    }

    func contents(of version: DocumentVersion, in repository: Repository) throws -> DocumentContents {
        guard let entryID = version.entryID else { return .deleted }
        if version.kind == .flat { return .flat(try repository.blob(entryID).data) }
        var files: [String: Data] = [:]
        func collect(_ tree: ObjectID, prefix: String) throws {
            for entry in try repository.tree(tree).entries {
                if entry.mode.isTree {
                    try collect(entry.id, prefix: prefix + entry.name + "/")
                } else if entry.mode.isBlob {
                    files[prefix + entry.name] = try repository.blob(entry.id).data
                }
            }
        }
        try collect(entryID, prefix: "")
        return .package(FilePackage(files: files))
    }

    /// Makes an old version current again, as a new save on this device's branch.
    @discardableResult
    public func restore(_ document: DocumentPath, to versionID: String) throws -> SaveResult {
        try withWriteLock { repository in
            let version = try version(versionID, of: document, in: repository)
            let trailer = (Trailer.restored, "\(version.id) \(TrailerPath.encode(document.path))")
            return try writeVersion(version, of: document, subject: "Restore \(document.path) to version \(version.shortID)",
                                    trailers: [trailer], in: repository)
        }
    }

    /// Saves a stored version's state of a document as the new current version and updates
    /// the working tree. Unsaved edits of that document are saved first, so none is lost.
    func writeVersion(_ version: DocumentVersion, of document: DocumentPath, subject: String,
                      trailers: [(key: String, value: String)], in repository: Repository) throws -> SaveResult {
        let mode: FileMode? = try version.entryID.map { _ in
            try repository.tree(repository.commit(version.commitID).treeID).entry(atPath: document.path)?.mode
                ?? (version.kind == .package ? .tree : .blob)
        }
        let entry = version.entryID.map { ($0, mode!) }
        return try writeDocumentState(entry, of: document, subject: subject, trailers: trailers, in: repository)
    }

    /// Commits a document's new state (nil: deleted) on this device's branch, even when the
    /// state is unchanged (a resolution is recorded like a save), then updates that document
    /// in the working tree. Unsaved edits of the document are saved first.
    func writeDocumentState(_ entry: (id: ObjectID, mode: FileMode)?, of document: DocumentPath, subject: String,
                            trailers: [(key: String, value: String)], in repository: Repository) throws -> SaveResult {
        do {
            _ = try save([document], message: nil, in: repository)
        } catch DocverError.noSuchDocument {
            // Neither in the working tree nor in the last save (its deletion is saved): no edits to keep.
        }
        let old = try headCommit(repository)
        let snapshot = DocumentSnapshot(document: document, entry: entry, files: [])
        guard let result = try commitSnapshots([snapshot], subject: subject, in: repository, extraTrailers: trailers,
                                               allowEmpty: true, updateIndex: false) else {
            throw DocverError.noSuchDocument(document.path)
        }
        let oldTree = try old.map { try repository.commit($0).treeID }
        try repository.checkout(tree: repository.commit(ObjectID(hex: result.id)!).treeID, baseline: oldTree,
                                paths: [document.path, document.path + "/*"])
        return result
    }

    // MARK: Listings

    /// The documents of a tree: files, and directories with an extension (packages), below
    /// plain folders.
    func documentEntries(in tree: ObjectID, repository: Repository, prefix: String = "") throws -> [(DocumentPath, TreeEntry)] {
        var result: [(DocumentPath, TreeEntry)] = []
        for entry in try repository.tree(tree).entries {
            let path = prefix + entry.name
            if entry.mode.isTree && !DocumentPath.isPackageName(entry.name) {
                result += try documentEntries(in: entry.id, repository: repository, prefix: path + "/")
            } else if entry.mode.isTree || entry.mode.isBlob {
                result.append((DocumentPath(trusted: path), entry))
            }
        }
        return result
    }

    /// Saves, integrations and resolutions on this device's branch, newest first; with a
    /// document, only those that changed it or recorded something about it.
    public func log(of document: DocumentPath? = nil, limit: Int? = nil) throws -> [LogEntry] {
        try withRepository { repository in
            guard let head = try headCommit(repository) else { return [] }
            // Time order streams; a topological sort would read all history before the first entry.
            let walk = try repository.revwalk(from: [head], topological: false)
            var result: [LogEntry] = []
            while limit.map({ result.count < $0 }) ?? true, let id = try walk.next() {
                let commit = try repository.commit(id)
                if let document, !(try touches(commit, document: document, in: repository)) { continue }
                result.append(try logEntry(commit, in: repository))
            }
            return result
        }
    }

    private func touches(_ commit: Commit, document: DocumentPath, in repository: Repository) throws -> Bool {
        let encoded = TrailerPath.encode(document.path)
        let recordKeys = [Trailer.conflict, Trailer.resolved, Trailer.removed, Trailer.replaced, Trailer.restored]
        if commit.trailers.contains(where: { recordKeys.contains($0.key) && $0.value.hasSuffix(" " + encoded) }) {
            return true
        }
        let parents = commit.parentIDs
        guard parents.count == 1 else {
            guard parents.isEmpty else { return false }
            return try repository.tree(commit.treeID).entry(atPath: document.path) != nil
        }
        let components = document.path.split(separator: "/").map(String.init)
        return try !repository.sameEntry(components, commit.treeID, repository.commit(parents[0]).treeID)
    }

    private func logEntry(_ commit: Commit, in repository: Repository) throws -> LogEntry {
        let trailers = commit.trailers
        let kind: LogEntry.Kind = trailers.contains { $0.key == Trailer.integration } ? .integration
            : trailers.contains { [Trailer.resolved, Trailer.removed, Trailer.replaced].contains($0.key) } ? .resolution : .save
        var changes: [DocumentChange] = []
        if kind != .integration {
            let parentTree = try commit.parentIDs.first.map { try repository.commit($0).treeID }
            let parentTreeObject = try parentTree.map { try repository.tree($0) }
            let tree = try repository.tree(commit.treeID)
            let documents = Set(try repository.changedPaths(from: parentTree, to: commit.treeID)
                .map { DocumentPath.document(containingFile: $0) })
            changes = try documents.sorted().map { document in
                let before = try parentTreeObject?.entry(atPath: document.path) != nil
                let after = try tree.entry(atPath: document.path) != nil
                return DocumentChange(document: document, change: !before ? .added : after ? .modified : .deleted)
            }
        }
        let subject = commit.message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        return LogEntry(id: commit.id.hex, kind: kind, device: commit.device, date: commit.author.time,
                        subject: subject, changes: changes, conflicts: commit.records(Trailer.conflict).count)
    }
}
