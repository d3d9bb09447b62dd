import Foundation

/// What a strategy decided for one document in conflict.
public enum Resolution: Sendable, Hashable {
    /// Make this version (the current one or a conflict version) current.
    case keep(DocumentVersion)
    /// Save these contents (a merge of the versions) as the current version.
    case merged(DocumentContents)
    /// Save these contents, which still hold conflict markers, and leave the conflict open.
    case mergedWithMarkers(DocumentContents)
}

/// A way to resolve a conflict: latest date, merge, user choice, or an editor's own.
public protocol ResolutionStrategy: Sendable {
    /// The name recorded in history (`Docver-Strategy`).
    var name: String { get }
    /// Decides the resolution of one conflict. Throwing leaves the container unchanged.
    func resolve(_ conflict: Conflict, in container: Container) async throws -> Resolution
}

/// What resolving one document did, or would do with a dry run.
public struct ResolutionOutcome: Sendable, Hashable {
    /// The document resolved.
    public let document: DocumentPath
    /// The strategy's name.
    public let strategy: String
    /// What the strategy decided.
    public let resolution: Resolution
    /// Conflict versions marked resolved.
    public let resolved: [String]
    /// Conflict versions removed from the version store.
    public let removed: [String]
    /// The save that recorded it; nil for a dry run.
    public let save: String?
    /// One line saying what happened, for people.
    public var summary: String {
        let verb = save == nil ? "would " : ""
        switch resolution {
        case let .keep(version):
            return "\(document): \(verb)keep version \(version.shortID) from \(version.device.name) as current"
        case .merged:
            return "\(document): \(verb)save the merge of \(resolved.count + 1) versions as current"
        case .mergedWithMarkers:
            return "\(document): \(verb)save the merge with conflict markers; the conflict stays open"
        }
    }
}

extension Container {
    /// Makes a version's contents current, as a new save on this device's branch
    /// (NSFileVersion's `replaceItemAtURL`). Unsaved edits of the document are saved first.
    @discardableResult
    public func replace(_ document: DocumentPath, with versionID: String) throws -> SaveResult {
        try withWriteLock { repository in
            guard try currentVersion(of: document, in: repository) != nil else { throw DocverError.noSuchDocument(document.path) }
            let version = try version(versionID, of: document, in: repository)
            return try writeVersion(version, of: document, subject: "Replace \(document) with version \(version.shortID)",
                                    trailers: [(Trailer.replaced, "\(version.id) \(TrailerPath.encode(document.path))")],
                                    in: repository)
        }
    }

    /// Marks conflict versions resolved (all unresolved ones when `versionIDs` is empty).
    /// One-way, as in Apple's API: the versions stay readable but no device raises them again.
    @discardableResult
    public func markResolved(_ document: DocumentPath, versions versionIDs: [String] = []) throws -> SaveResult {
        try withWriteLock { repository in
            let conflict = try openConflict(document, in: repository)
            let targets = try versionIDs.isEmpty ? conflict.conflicts : versionIDs.map { id in
                let version = try version(id, of: document, in: repository)
                guard conflict.conflicts.contains(where: { $0.id == version.id }) else {
                    throw DocverError.notAConflictVersion(version: id, document: document.path)
                }
                return version
            }
            let trailers = targets.map { (Trailer.resolved, "\($0.id) \(TrailerPath.encode(document.path))") }
            return try recordOnly(subject: "Mark \(targets.count) conflict version\(targets.count == 1 ? "" : "s") of \(document) resolved",
                                  trailers: trailers, in: repository)
        }
    }

    /// Removes every conflict version of a document, resolved or not, from the version store;
    /// the current version and its history stay. (Their saves stay in git history.)
    @discardableResult
    public func removeOtherVersions(of document: DocumentPath) throws -> SaveResult {
        try withWriteLock { repository in
            let state = try conflictState(in: repository)
            let unresolved = state.unresolvedByDocument()[document] ?? []
            let resolved = state.resolvedByDocument()[document] ?? []
            guard !(unresolved.isEmpty && resolved.isEmpty) else { throw DocverError.noOtherVersions(document: document.path) }
            let path = TrailerPath.encode(document.path)
            let trailers = unresolved.map { (Trailer.resolved, "\($0.version) \(path)") }
                + (unresolved + resolved).map { (Trailer.removed, "\($0.version) \(path)") }
            return try recordOnly(subject: "Remove other versions of \(document)", trailers: trailers, in: repository)
        }
    }

    /// Resolves a document's conflict with a strategy.
    ///
    /// The strategy may take its time (an editor may ask the user); the result is applied
    /// only if the conflict is still the one it saw, so a resolution never discards a version
    /// that arrived meanwhile. With `dryRun`, nothing changes.
    public func resolve(_ document: DocumentPath, using strategy: some ResolutionStrategy,
                        keepVersions: Bool = false, dryRun: Bool = false) async throws -> ResolutionOutcome {
        if !dryRun, try status().changed.contains(where: { $0.document == document }) {
            _ = try save([document], message: "Save before resolving")
        }
        guard let conflict = try conflicts(document).first else { throw DocverError.notInConflict(document.path) }
        let resolution = try await strategy.resolve(conflict, in: self)
        let isFinal: Bool
        if case .mergedWithMarkers = resolution { isFinal = false } else { isFinal = true }
        let resolved = isFinal ? conflict.conflicts.map(\.id) : []
        let removed = isFinal && !keepVersions ? conflict.conflicts.map(\.id) : []
        if dryRun {
            return ResolutionOutcome(document: document, strategy: strategy.name, resolution: resolution,
                                     resolved: resolved, removed: removed, save: nil)
        }
        let save = try withWriteLock { repository -> SaveResult in
            guard let now = try conflicts(document, in: repository).first, now == conflict else {
                throw DocverError.conflictChanged(document: document.path)
            }
            let entry = try entry(for: resolution, of: document, in: repository)
            let path = TrailerPath.encode(document.path)
            let trailers = [(Trailer.strategy, strategy.name)]
                + resolved.map { (Trailer.resolved, "\($0) \(path)") }
                + removed.map { (Trailer.removed, "\($0) \(path)") }
            let subject = isFinal ? "Resolve conflict in \(document) (\(strategy.name))"
                : "Save \(document) merged with conflict markers"
            return try writeDocumentState(entry, of: document, subject: subject, trailers: trailers, in: repository)
        }
        return ResolutionOutcome(document: document, strategy: strategy.name, resolution: resolution,
                                 resolved: resolved, removed: removed, save: save.id)
    }

    private func openConflict(_ document: DocumentPath, in repository: Repository) throws -> Conflict {
        guard try currentVersion(of: document, in: repository) != nil else { throw DocverError.noSuchDocument(document.path) }
        guard let conflict = try conflicts(document, in: repository).first else { throw DocverError.notInConflict(document.path) }
        return conflict
    }

    /// A commit that changes no document and only records trailers.
    private func recordOnly(subject: String, trailers: [(key: String, value: String)], in repository: Repository) throws -> SaveResult {
        guard let result = try commitSnapshots([], subject: subject, in: repository, extraTrailers: trailers,
                                               allowEmpty: true, updateIndex: false) else {
            throw DocverError.git(GitError(code: .other(-1), message: "could not record the resolution", function: #function))
        }
        return result
    }

    /// The tree entry a resolution makes current.
    private func entry(for resolution: Resolution, of document: DocumentPath,
                       in repository: Repository) throws -> (id: ObjectID, mode: FileMode)? {
        let contents: DocumentContents
        switch resolution {
        case let .keep(version):
            guard let id = version.entryID else { return nil }
            let mode = try repository.tree(repository.commit(version.commitID).treeID).entry(atPath: document.path)?.mode
            return (id, mode ?? (version.kind == .package ? .tree : .blob))
        case let .merged(merged), let .mergedWithMarkers(merged):
            contents = merged
        }
        return try writeContents(contents, in: repository)
    }
}
