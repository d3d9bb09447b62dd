import Foundation

extension Container {
    /// The current version of a document: the version this device's branch holds now.
    /// nil when the document has never been saved; a deletion version when it was deleted.
    public func currentVersion(of document: DocumentPath) throws -> DocumentVersion? {
        try withRepository { repository in try currentVersion(of: document, in: repository) }
    }

    func currentVersion(
        of document: DocumentPath, in repository: Repository,
        memo: VersionMemo? = nil
    ) throws -> DocumentVersion? {
        guard let head = try headCommit(repository) else { return nil }
        return try VersionGraph(repository: repository, memo: memo, index: versionIndex(in: repository, for: document))
            .currentVersion(of: document, at: head)
    }

    /// Older versions of a document that led to its current version, newest first.
    public func history(of document: DocumentPath, limit: Int? = nil) throws -> [DocumentVersion] {
        try withRepository { repository in
            guard let current = try currentVersion(of: document, in: repository) else {
                throw DocverError.noSuchDocument(document.path)
            }
            return try VersionGraph(repository: repository, index: versionIndex(in: repository, for: document))
                .history(of: document, after: current, limit: limit)
        }
    }

    /// Finds a version by a unique prefix of its id (at least four digits).
    ///
    /// With a document, the version must be a version of that document; without one, the
    /// save must have recorded exactly one document.
    public func version(_ id: String, of document: DocumentPath? = nil) throws -> DocumentVersion {
        try withRepository { repository in try version(id, of: document, in: repository) }
    }

    func version(_ id: String, of document: DocumentPath?, in repository: Repository) throws -> DocumentVersion {
        let commitID = try saveID(id, in: repository)
        let graph = VersionGraph(repository: repository, index: versionIndex(in: repository, for: document))
        if let document {
            // A version introduces the document's state, or is a device's explicit decision
            // about it (a resolution that kept a state: it is listed when another device's
            // decision disagreed).
            // (Only an honoured decision, R26: records typed into a plain commit decide nothing.)
            let isDecision = try repository.commit(commitID).decision.isAbout(document.path)
            guard try isDecision || graph.introducingCommit(of: document.path, from: commitID) == commitID else {
                try refuseMissing(document, in: repository)
                throw DocverError.versionOfAnotherDocument(version: id, document: document.path)
            }
            if try graph.isNeverSaved(document.path, at: commitID) {
                try refuseMissing(document, in: repository)
                throw DocverError.versionOfAnotherDocument(version: id, document: document.path)
            }
            return try graph.version(of: document, at: commitID)
        }
        let commit = try repository.commit(commitID)
        let parentTree = try commit.parentIDs.first.map { try repository.commit($0).treeID }
        let documents = Set(
            try repository.changedPaths(from: parentTree, to: commit.treeID)
                .map { DocumentPath.document(containingFile: $0) })
        guard documents.count == 1, let only = documents.first else {
            if documents.isEmpty { throw DocverError.noSuchVersion(id) }
            throw DocverError.versionNeedsDocument(version: id)
        }
        return try graph.version(of: only, at: commitID)
    }

    /// Throws ``DocverError/noSuchDocument(_:)`` for a document with neither a current version
    /// nor conflict versions: one never saved here.
    /// Whether `document` existed in the save `id` names (a unique prefix of any save, not
    /// only one that changed the document): false before its first save and after its
    /// deletion. Throws as ``version(_:of:)-(String,_)`` for an id that names no save.
    public func documentExists(_ document: DocumentPath, inSave id: String) throws -> Bool {
        try withRepository { repository in
            let commitID = try saveID(id, in: repository)
            return try repository.tree(repository.commit(commitID).treeID).documentEntry(atPath: document.path) != nil
        }
    }

    func refuseMissing(_ document: DocumentPath, in repository: Repository) throws {
        guard try currentVersion(of: document, in: repository) == nil else { return }
        let state = try conflictState(in: repository)
        guard state.unresolvedByDocument()[document] == nil, state.resolvedByDocument()[document] == nil else { return }
        throw DocverError.noSuchDocument(document.path)
    }

    /// A flat version's bytes, passed to `piece` in order, a piece at a time (1 MiB) for a big
    /// one: memory stays flat whatever the version's size (issue 29). False, passing nothing,
    /// for a package or a deletion (``contents(of:)`` reads those).
    @discardableResult
    public func readFlatContents(of version: DocumentVersion, _ piece: (Data) throws -> Void) throws -> Bool {
        guard version.kind == .flat, let blob = version.entryID else { return false }
        try withRepository { repository in
            try repository.readBlob(blob) { bytes in try piece(Data(bytes)) }
        }
        return true
    }

    /// The contents of a version.
    public func contents(of version: DocumentVersion) throws -> DocumentContents {
        try withRepository { repository in try contents(of: version, in: repository) }
    }

    func contents(of version: DocumentVersion, in repository: Repository) throws -> DocumentContents {
        try Self.contents(of: version, in: repository)
    }

    static func contents(of version: DocumentVersion, in repository: Repository) throws -> DocumentContents {
        guard let entryID = version.entryID else { return .deleted }
        if version.kind == .flat { return .flat(try repository.blob(entryID).data) }
        var files: [String: Data] = [:]
        func collect(_ tree: ObjectID, prefix: String) throws {
            try Repository.checkTreeDepth(prefix)
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

    /// The save a version id (4 to 40 hexadecimal digits, any case) names: one error for an id
    /// that is no id or names no save, another for a prefix several saves share.
    private func saveID(_ id: String, in repository: Repository) throws -> ObjectID {
        let lowered = id.lowercased()
        guard (4...40).contains(lowered.count), lowered.allSatisfy(\.isHexDigit) else { throw DocverError.noSuchVersion(id) }
        do {
            return try repository.resolveCommitPrefix(lowered)
        } catch let error as GitError where error.code == .ambiguous {
            throw DocverError.ambiguousVersion(id)
        } catch let error as GitError where error.code == .notFound || error.code == .invalid {
            throw DocverError.noSuchVersion(id)
        }
    }
}

/// A document's versions as ``Container/versions(of:includingResolved:)`` lists them.
public struct DocumentVersions: Sendable {
    /// The version this device's branch holds now.
    public var current: DocumentVersion
    /// Conflict versions not yet resolved, newest first.
    public var unresolvedConflicts: [DocumentVersion]
    /// Conflict versions marked resolved but not removed, newest first (empty unless asked for).
    public var resolvedConflicts: [DocumentVersion]
    /// The older versions that led to the current one, newest first.
    public var history: [DocumentVersion]
    /// The versions a merge resolution (the current version or one in ``history``) was made
    /// from that are not listed otherwise, newest first: conflict versions the merge took in.
    public var merged: [DocumentVersion] = []

    /// Every version listed: the current one, the conflict versions, the history and the
    /// merged-in ones (what `evict` frees and `download` brings back).
    public var all: [DocumentVersion] { [current] + unresolvedConflicts + resolvedConflicts + history + merged }
}
