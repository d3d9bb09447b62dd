import Foundation

extension Container {
    /// Makes a version's contents current, as a new save on this device's branch
    /// (NSFileVersion's `replaceItemAtURL`). Unsaved edits of the document are saved first.
    @discardableResult
    public func replace(_ document: DocumentPath, with versionID: String) throws -> SaveResult {
        try withWriteLock { repository in
            // (A document in conflict may have no current version on this line: a plain folder
            // of its name stands there.)
            guard try currentVersion(of: document, in: repository) != nil || !conflicts(document, in: repository).isEmpty else {
                throw DocverError.noSuchDocument(document.path)
            }
            let version = try version(versionID, of: document, in: repository)
            // The version being replaced may be named by an open conflict record (integrations
            // on two devices that saw different sides each recorded the other's winner): the
            // listing leaves it out while it is current. Replacing it is a decision against
            // it, so it is marked resolved, and does not turn into a new conflict version.
            let replaced = try conflicts(document, in: repository).first.map { try openRecordNamingCurrent($0, in: repository) } ?? []
            let records =
                [VersionRecord(path: document.path, version: version.id).trailer(Trailer.replaced)]
                + replaced.filter { $0 != version.id }.map { VersionRecord(path: document.path, version: $0).trailer(Trailer.resolved) }
            return try writeVersion(
                version, of: document, subject: "Replace \(document) with version \(version.shortID)",
                records: records, in: repository)
        }
    }

    /// Marks conflict versions resolved (all unresolved ones when `versionIDs` is empty).
    /// One-way, as in Apple's API: the versions stay readable but no device raises them again.
    ///
    /// Refuses, changing nothing, while the document still holds conflict markers (a merge
    /// saved with markers that was not edited yet): it throws
    /// ``DocverError/conflictMarkersRemain(document:lines:)`` unless `force` is true. The
    /// document is checked as it is in the working tree: its saved contents, or its unsaved
    /// edits if it has any, since those are what the next save (or sync) records. Unsaved
    /// edits are not saved by this call. Every text file of a package is checked; binary files
    /// are not.
    @discardableResult
    public func markResolved(
        _ document: DocumentPath, versions versionIDs: [String] = [],
        force: Bool = false
    ) throws -> SaveResult {
        try withWriteLock { repository in
            let conflict = try openConflict(document, in: repository)
            let targets =
                try versionIDs.isEmpty
                ? conflict.conflicts
                : versionIDs.map { id in
                    let version = try version(id, of: document, in: repository)
                    guard conflict.conflicts.contains(where: { $0.id == version.id }) else {
                        throw DocverError.notAConflictVersion(version: id, document: document.path)
                    }
                    return version
                }
            if !force { try refuseConflictMarkers(in: document) }
            let currentRecorded = versionIDs.isEmpty ? try openRecordNamingCurrent(conflict, in: repository) : []
            let records = (targets.map(\.id) + currentRecorded).map { VersionRecord(path: document.path, version: $0).trailer(Trailer.resolved) }
            return try recordOnly(
                subject: "Mark \(targets.count) conflict version\(targets.count == 1 ? "" : "s") of \(document) resolved",
                records: records, in: repository)
        }
    }

    /// Removes every conflict version of a document, resolved or not, from the version store;
    /// the current version and its history stay. (Their saves stay in git history.)
    ///
    /// Unresolved versions are marked resolved on the way, so, as ``markResolved(_:versions:force:)``
    /// does, it refuses while the document still holds conflict markers unless `force` is
    /// true. Removing only versions already resolved is never refused.
    @discardableResult
    public func removeOtherVersions(of document: DocumentPath, force: Bool = false) throws -> SaveResult {
        try withWriteLock { repository in
            let state = try conflictState(in: repository)
            let unresolved = state.unresolvedByDocument()[document] ?? []
            let resolved = state.resolvedByDocument()[document] ?? []
            guard !(unresolved.isEmpty && resolved.isEmpty) else {
                if try currentVersion(of: document, in: repository) == nil { throw DocverError.noSuchDocument(document.path) }
                throw DocverError.noOtherVersions(document: document.path)
            }
            if !unresolved.isEmpty && !force { try refuseConflictMarkers(in: document) }
            let records =
                unresolved.map { $0.versionRecord.trailer(Trailer.resolved) }
                + (unresolved + resolved).map { $0.versionRecord.trailer(Trailer.removed) }
            return try recordOnly(subject: "Remove other versions of \(document)", records: records, in: repository)
        }
    }

    /// Resolves a document's conflict with a strategy.
    ///
    /// The strategy may take its time (an editor may ask the user); the result is applied
    /// only if the conflict is still the one it saw, so a resolution never discards a version
    /// that arrived meanwhile. With `dryRun`, nothing changes.
    public func resolve(
        _ document: DocumentPath, using strategy: some ResolutionStrategy,
        keepVersions: Bool = false, dryRun: Bool = false
    ) async throws -> ResolutionOutcome {
        let container = self
        // Refused before anything is written: a document not in conflict keeps its unsaved edits unsaved.
        _ = try await offCooperativePool { try container.withRepository { try container.openConflict(document, in: $0) } }
        // The resolution writes the document: an unsaved edit in its way is refused before
        // anything is saved. (Only the paths around the document are read, so resolving many
        // documents costs what they cost, not the container's size each time.)
        let nearby = try await offCooperativePool { try container.withRepository { try container.unsavedChanges(around: document, in: $0) } }
        try container.refuseEditsInTheWay(of: document, changes: nearby)
        if !dryRun, nearby.contains(where: { $0.document == document }) {
            try await offCooperativePool { _ = try container.save([document], message: "Save before resolving") }
        }
        // This document's conflict alone (the listing of all of them changes with every resolution).
        guard let conflict = try await offCooperativePool({ try container.withRepository { try container.conflicts(document, in: $0).first } }) else {
            if try await offCooperativePool({ try container.currentVersion(of: document) }) == nil {
                throw DocverError.noSuchDocument(document.path)
            }
            throw DocverError.notInConflict(document.path)
        }
        let resolution = try await strategy.resolve(conflict, in: self)
        let isFinal: Bool
        if case .mergedWithMarkers = resolution { isFinal = false } else { isFinal = true }
        let resolved = isFinal ? conflict.conflicts.map(\.id) : []
        let removed = isFinal && !keepVersions ? conflict.conflicts.map(\.id) : []
        if dryRun {
            return ResolutionOutcome(
                document: document, strategy: strategy.name, resolution: resolution,
                resolved: resolved, removed: removed, save: nil)
        }
        let strategyName = strategy.name
        let save = try await offCooperativePool {
            try container.withWriteLock { repository -> SaveResult in
                guard let now = try container.conflicts(document, in: repository).first, now == conflict else {
                    throw DocverError.conflictChanged(document: document.path)
                }
                let state = try container.entryState(for: resolution, of: conflict, in: repository)
                // A record may name the version that is current (it lost once and won later):
                // it is not listed as another version, but once this resolution makes another
                // state current it would be; the resolution decides about it too.
                let currentRecorded = isFinal ? try container.openRecordNamingCurrent(conflict, in: repository) : []
                let records =
                    [(Trailer.strategy, strategyName)]
                    + (resolved + currentRecorded).map { VersionRecord(path: document.path, version: $0).trailer(Trailer.resolved) }
                    + (removed + (keepVersions ? [] : currentRecorded)).map {
                        VersionRecord(path: document.path, version: $0).trailer(Trailer.removed)
                    }
                let subject =
                    isFinal
                    ? "Resolve conflict in \(document) (\(strategyName))"
                    : "Save \(document) merged with conflict markers"
                return try container.writeDocumentState(state, of: document, subject: subject, records: records, in: repository)
            }
        }
        return ResolutionOutcome(
            document: document, strategy: strategy.name, resolution: resolution,
            resolved: resolved, removed: removed, save: save.id)
    }

    /// The current version's id when an open conflict record names it, else nothing.
    func openRecordNamingCurrent(_ conflict: Conflict, in repository: Repository) throws -> [String] {
        let open = try conflictState(in: repository).unresolvedByDocument()[conflict.document] ?? []
        return open.contains { $0.version == conflict.current.id } ? [conflict.current.id] : []
    }

    private func openConflict(_ document: DocumentPath, in repository: Repository) throws -> Conflict {
        // A document in conflict may have no current version on this line (a plain folder of
        // its name stands there): the conflict is what counts.
        if let conflict = try conflicts(document, in: repository).first { return conflict }
        guard try currentVersion(of: document, in: repository) != nil else { throw DocverError.noSuchDocument(document.path) }
        throw DocverError.notInConflict(document.path)
    }

    /// Throws ``DocverError/conflictMarkersRemain(document:lines:)`` when the document, as it
    /// is in the working tree, still holds conflict markers.
    private func refuseConflictMarkers(in document: DocumentPath) throws {
        let lines = try ConflictMarkers.locations(in: workingTreeContents(of: document))
        guard lines.isEmpty else { throw DocverError.conflictMarkersRemain(document: document.path, lines: lines) }
    }

    /// The tree entry a resolution makes current. Merged contents keep the file modes the
    /// versions agree on, and a mode changed on one side only (docs/RESOLVING.md, "File modes").
    private func entryState(
        for resolution: Resolution, of conflict: Conflict,
        in repository: Repository
    ) throws -> EntryState? {
        switch resolution {
        case let .keep(version):
            return try entryState(of: version, in: repository)
        case let .merged(contents), let .mergedWithMarkers(contents):
            return try writeContents(contents, modes: mergedModes(of: conflict, refusing: false, in: repository), in: repository)
        }
    }
}
