import Foundation

extension Container {
    /// What moving this device's head from `old` to `new` changed for this device, document
    /// by document: the difference of the two trees (current versions that changed) and of
    /// the two conflict states (conflict versions recorded, resolutions made elsewhere).
    /// Its cost follows the change, not the history.
    ///
    /// Records the sync brought that docver does not honour (see ``RecordTrust``) add a warning.
    /// (docs/MODEL.md: R27.)
    func describeChanges(from old: ObjectID?, to new: ObjectID, in repository: Repository, into report: inout SyncReport) throws {
        guard old != new else { return }
        let cache = ConflictCache(files: files, repository: repository)
        let before = try old.map { try cache.state(at: $0) } ?? ConflictState()
        let after = try cache.state(at: new)
        if after.ignored.count > before.ignored.count {
            let count = after.ignored.subtracting(before.ignored).count
            report.warnings.append(
                "ignored \(count) conflict or resolution record\(count == 1 ? "" : "s") in commits docver does not honour them in "
                    + "(plain commits without device trailers, or naming versions that do not exist); see docs/FORMAT.md")
        }
        (report.documentChanges, report.receivedDocuments) = try documentChanges(
            from: old, to: new, before: before, after: after,
            in: repository)
        report.keyValueChanges = try keyValueChanges(from: old, to: new, in: repository)
    }

    /// This device's key-value store values that another device's concurrent write replaced:
    /// the value current here before is this device's, the one current now is another's and
    /// was not written on top of it. (Updates made on top of this device's values, and other
    /// devices' values replacing each other, are the store's business: `kv watch`.)
    private func keyValueChanges(from old: ObjectID?, to new: ObjectID, in repository: Repository) throws -> [KeyValueSyncChange] {
        guard let old else { return [] }
        let paths = try repository.changedPaths(from: repository.commit(old).treeID, to: repository.commit(new).treeID)
            .filter { $0.hasPrefix(KeyValueFiles.folder + "/") }
        guard !paths.isEmpty else { return [] }
        let graph = VersionGraph(repository: repository, index: versionIndex(in: repository))
        var result: [KeyValueSyncChange] = []
        for path in paths {
            let file = DocumentPath(trusted: path)
            guard let previous = try graph.currentVersion(of: file, at: old), !previous.isDeletion, previous.device.id == device.id,
                let current = try graph.currentVersion(of: file, at: new), current.device.id != device.id,
                try !graph.isMadeOnTop(of: previous.commitID, current.commitID, path: path),
                case let .flat(data) = try contents(of: previous, in: repository),
                let key = KeyValueFiles.parse(data)?.key
            else { continue }
            result.append(
                KeyValueSyncChange(
                    key: key, kind: .keyValueReplaced, replacedVersion: previous.id, currentVersion: current.id,
                    device: current.device, removed: current.isDeletion))
        }
        return result.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// Another device's rename that met this device's rename of the same document to another
    /// name, as git's rename/rename: both names are kept, and the `updated` entry of the other
    /// name says so (`renamedDifferently`; when the other name arrived in conflict, an entry
    /// beside its conflict entry). A rename is read as git reads an exact one: the
    /// save removed a document and added one of the same contents. Both renames start from
    /// a merge base of this device's head and the other's rename (one as a rule, several after
    /// criss-cross integrations): the base holds the name renamed, and this device's name for
    /// it is one it added since the base, in a save of its own. (A device that never had the
    /// name, such as one that missed an earlier rename by the same device, did not rename it.)
    private func markRenamesMet(
        _ changes: inout [DocumentSyncChange], from old: ObjectID?, graph: VersionGraph,
        in repository: Repository
    ) throws {
        guard let old else { return }
        let oldTreeID = try repository.commit(old).treeID
        // Every tree is read once, and every save's changes once, however many documents the
        // save brought: a save adding a folder of 200,000 documents made 200,000 diffs of that
        // folder, and as many lookups in it from the root (issue 26).
        var readers: [ObjectID: DocumentEntryReader] = [:]
        func reader(_ tree: ObjectID) throws -> DocumentEntryReader {
            if let known = readers[tree] { return known }
            let made = try DocumentEntryReader(repository: repository, tree: tree)
            readers[tree] = made
            return made
        }
        let oldTree = try reader(oldTreeID)
        // This device's rename, not one it integrated: a save of this device made the name's
        // state here (another device's rename that reached this device first, through an
        // integration, is no rename "here": `aRenameThatArrivedFromAnotherDeviceIsNotARenameMadeHere`).
        // A name the base held already (another document there then) was this device's name
        // for it only when one save of this device renamed `from` onto it
        // (`aRenameOntoANameTheBaseHeldIsARenameMet`). A decision of this device that kept or
        // copied a version of that state (a replace, a choice) stands for the version it kept:
        // bringing its own rename back over another device's document of that name is still
        // its rename (`aRenameBroughtBackByAReplaceIsARenameMet`).
        func isSavedHere(_ document: DocumentPath, renaming from: DocumentPath?, entry: ObjectID) throws -> Bool {
            guard let from else {
                return try graph.introducingCommits(ofStateOf: document.path, at: old).contains { commit in
                    try repository.commit(commit).parentIDs.count == 1 && graph.version(of: document, at: commit).device.id == device.id
                }
            }
            return try renamingSave(of: document, from: from, entry: entry) != nil
        }
        // The save of this device that renamed `from` (holding `entry`) onto `document`, and
        // whose state `document` still has here; a decision that kept or copied a version of
        // that state stands for the version.
        func renamingSave(of document: DocumentPath, from: DocumentPath, entry: ObjectID) throws -> ObjectID? {
            func search(_ commit: ObjectID, depth: Int) throws -> ObjectID? {
                let save = try repository.commit(commit)
                guard save.parentIDs.count == 1, try graph.version(of: document, at: commit).device.id == device.id else { return nil }
                let before = try reader(repository.commit(save.parentIDs[0]).treeID)
                if try before.documentEntry(atPath: document.path) == nil && before.documentEntry(atPath: from.path)?.id == entry {
                    return commit
                }
                guard depth < 8 else { return nil }
                for kept in try graph.predecessors(of: commit, path: document.path) where kept != commit {
                    guard try reader(repository.commit(kept).treeID).documentEntry(atPath: document.path)?.id == entry else { continue }
                    if let found = try search(kept, depth: depth + 1) { return found }
                }
                return nil
            }
            for commit in try graph.introducingCommits(ofStateOf: document.path, at: old) {
                if let found = try search(commit, depth: 0) { return found }
            }
            return nil
        }
        // Per renaming save: the documents it removed, by the entry they had before it (the
        // first name in order for each entry).
        var removedBySave: [ObjectID: [ObjectID: DocumentPath]] = [:]
        // Per renaming save: the merge bases of this device's head and that save.
        var mergeBasesBySave: [ObjectID: [ObjectID]] = [:]
        // Per merge-base tree: the documents this device changed or added since that base, by
        // their entry here, in order, and whether the base held the name.
        var addedHere: [ObjectID: [ObjectID: [(document: DocumentPath, inBase: Bool)]]] = [:]
        // The other name's entry: its update, or, when the rename arrived in conflict with
        // another version of that name, its conflict entry, which stays, the rename told
        // beside it (once per name).
        var told: Set<DocumentPath> = []
        var added: [DocumentSyncChange] = []
        for index in changes.indices where changes[index].kind != .renamedDifferently {
            let change = changes[index]
            guard change.kind == .updated || !told.contains(change.document) else { continue }
            guard let current = change.current, !current.isDeletion, current.device.id != device.id,
                try oldTree.documentEntry(atPath: change.document.path) == nil
            else { continue }
            let commit = try repository.commit(current.commitID)
            guard commit.parentIDs.count == 1 else { continue }
            let savedTreeID = commit.treeID, baseTreeID = try repository.commit(commit.parentIDs[0]).treeID
            let saved = try reader(savedTreeID), base = try reader(baseTreeID)
            guard let moved = try saved.documentEntry(atPath: change.document.path),
                try base.documentEntry(atPath: change.document.path) == nil
            else { continue }
            // The name it came from: a document of the same contents that the save removed,
            // and that is gone here too.
            if removedBySave[commit.id] == nil {
                var removed: [ObjectID: DocumentPath] = [:]
                let changedThere = Set(
                    try repository.changedPaths(from: baseTreeID, to: savedTreeID).map { DocumentPath.document(containingFile: $0) })
                for candidate in changedThere.sorted() where try saved.documentEntry(atPath: candidate.path) == nil {
                    guard let entry = try base.documentEntry(atPath: candidate.path), removed[entry.id] == nil else { continue }
                    removed[entry.id] = candidate
                }
                removedBySave[commit.id] = removed
            }
            guard let from = removedBySave[commit.id]?[moved.id], try oldTree.documentEntry(atPath: from.path) == nil else { continue }
            // This device renamed it too: a merge base of the two lines (several after
            // criss-cross merges) holds the name, and this device's name for it is a document
            // of the same contents it added since.
            if mergeBasesBySave[commit.id] == nil { mergeBasesBySave[commit.id] = try repository.mergeBases(old, commit.id) }
            var renamedHere: DocumentPath?
            for mergeBase in mergeBasesBySave[commit.id] ?? [] where renamedHere == nil {
                let sharedTreeID = try repository.commit(mergeBase).treeID
                let shared = try reader(sharedTreeID)
                guard try shared.documentEntry(atPath: from.path) != nil else { continue }
                if addedHere[sharedTreeID] == nil {
                    var added: [ObjectID: [(document: DocumentPath, inBase: Bool)]] = [:]
                    let changedHere = Set(
                        try repository.changedPaths(from: sharedTreeID, to: oldTreeID).map { DocumentPath.document(containingFile: $0) })
                    for candidate in changedHere.sorted() {
                        guard let entry = try oldTree.documentEntry(atPath: candidate.path) else { continue }
                        added[entry.id, default: []].append((candidate, try shared.documentEntry(atPath: candidate.path) != nil))
                    }
                    addedHere[sharedTreeID] = added
                }
                renamedHere = try addedHere[sharedTreeID]?[moved.id]?.first { candidate in
                    try candidate.document != change.document
                        && isSavedHere(candidate.document, renaming: candidate.inBase ? from : nil, entry: moved.id)
                }?.document
            }
            // No merge base holds the old name when, on the other line, a plain merge kept it
            // after this device's rename had reached that line (setting the rename aside, R14),
            // and the other device then renamed it. The renames met all the same: this
            // device's renaming save started from a state the other device's save descends
            // from (MODEL.md, rename/rename). Read only then: the save that removed `<old>`
            // here, and what it changed.
            if renamedHere == nil,
                try !(mergeBasesBySave[commit.id] ?? []).contains(where: {
                    try reader(repository.commit($0).treeID).documentEntry(atPath: from.path) != nil
                })
            {
                // The save that removed `<old>` here, if it renamed it: its parent held `<old>`
                // with this entry and is an ancestor of the other device's rename.
                for removal in try graph.introducingCommits(ofStateOf: from.path, at: old) where renamedHere == nil {
                    let save = try repository.commit(removal)
                    guard save.parentIDs.count == 1 else { continue }
                    let parentTreeID = try repository.commit(save.parentIDs[0]).treeID
                    guard try reader(parentTreeID).documentEntry(atPath: from.path)?.id == moved.id,
                        try repository.isAncestorOrSame(save.parentIDs[0], of: commit.id)
                    else { continue }
                    let savedThere = try reader(save.treeID)
                    let named = Set(
                        try repository.changedPaths(from: parentTreeID, to: save.treeID).map { DocumentPath.document(containingFile: $0) })
                    for candidate in named.sorted() where candidate != change.document {
                        guard try savedThere.documentEntry(atPath: candidate.path)?.id == moved.id,
                            try oldTree.documentEntry(atPath: candidate.path)?.id == moved.id,
                            try renamingSave(of: candidate, from: from, entry: moved.id) != nil
                        else { continue }
                        renamedHere = candidate
                        break
                    }
                }
            }
            guard let here = renamedHere else { continue }
            var renamed = DocumentSyncChange(document: change.document, kind: .renamedDifferently, current: current, version: nil)
            renamed.renamedFrom = from
            renamed.renamedHere = here
            told.insert(change.document)
            if change.kind == .updated { changes[index] = renamed } else { added.append(renamed) }
        }
        changes += added
    }

    /// Whether conflict markers remain in a version; a big flat one is searched a piece at a
    /// time (``Repository/pieceByPieceSize``), not held whole.
    private func containsConflictMarkers(_ version: DocumentVersion, in repository: Repository) throws -> Bool {
        if version.kind == .flat, let blob = version.entryID, version.size ?? .max >= Repository.pieceByPieceSize {
            return try ConflictMarkers.hasRegions { piece in try repository.readBlob(blob, into: piece) }
        }
        return try !ConflictMarkers.locations(in: contents(of: version, in: repository)).isEmpty
    }

    /// The changes, and the documents received by a device that had no head (`old` nil): those
    /// are counted, not walked for their versions one by one (a clone of 100,000 documents
    /// reported 100,000 `updated` rows, each a version walk, then sorted); only those holding
    /// conflict markers are listed.
    private func documentChanges(
        from old: ObjectID?, to new: ObjectID, before: ConflictState, after: ConflictState,
        in repository: Repository
    ) throws -> (changes: [DocumentSyncChange], received: Int) {
        let graph = VersionGraph(
            repository: repository, memo: VersionMemo(file: files.versionMemo),
            index: versionIndex(in: repository))
        defer { graph.memo?.save() }
        // Each head's folders are read once for all the documents asked about (a join brings
        // thousands), and a present document's entry there is its version's.
        let newTree = try DocumentEntryReader(repository: repository, tree: repository.commit(new).treeID)
        let oldHead = try old.map { (id: $0, tree: try DocumentEntryReader(repository: repository, tree: repository.commit($0).treeID)) }
        var currents: [DocumentPath: DocumentVersion?] = [:]
        // The introducing commits of the changed documents, found in one walk per head (filled
        // below, once the changed documents are known).
        var introducedAtNew: [DocumentPath: ObjectID] = [:], introducedAtOld: [DocumentPath: ObjectID] = [:]
        func current(_ document: DocumentPath) throws -> DocumentVersion? {
            if let known = currents[document] { return known }
            let version = try graph.currentVersion(of: document, at: new, reading: newTree, introduced: introducedAtNew[document])
            currents[document] = version
            return version
        }
        func version(_ id: String, of document: DocumentPath) throws -> DocumentVersion? {
            guard let commit = ObjectID(hex: id), try repository.objectExists(commit) else { return nil }
            return try graph.version(of: document, at: commit)
        }

        var changes: [DocumentSyncChange] = []
        // (document, version) pairs already listed: a set, since a join may bring thousands.
        var listed = Set<ByteString>()  // bytes: two spellings of a name are two documents
        var explained: Set<DocumentPath> = []
        let openBefore = Set(before.unresolvedByDocument().values.joined().map(\.versionRecord))
        for record in after.conflicts.subtracting(before.conflicts) {
            let document = DocumentPath(trusted: record.path)
            guard !openBefore.contains(record.versionRecord),
                !after.resolved.contains(record.versionRecord), !after.removed.contains(record.versionRecord),
                let loser = try version(record.version, of: document)
            else { continue }
            // (No current version: a folder of the document's name won over it.)
            let current = try current(document)
            guard current?.id != loser.id,
                let kind = SyncTransition.entry(from: .notListed, to: .open, isOwn: loser.device.id == device.id)
            else { continue }
            if listed.insert(ByteString(document.path + "\u{0}" + loser.id)).inserted {
                changes.append(DocumentSyncChange(document: document, kind: kind, current: current, version: loser))
            }
            explained.insert(document)
        }
        // A version whose record was closed by this sync (a decision, or a plain merge's
        // setting aside), listed once.
        func listClosed(_ record: VersionRecord, from status: SyncTransition.Status) throws {
            let document = DocumentPath(trusted: record.path)
            guard let closed = try version(record.version, of: document),
                let kind = SyncTransition.entry(
                    from: status, to: .closed(setAside: after.setAside.contains(record)), isOwn: closed.device.id == device.id),
                listed.insert(ByteString(document.path + "\u{0}" + closed.id)).inserted
            else { return }
            changes.append(DocumentSyncChange(document: document, kind: kind, current: try current(document), version: closed))
            explained.insert(document)
        }
        for record in after.resolved.union(after.removed).subtracting(before.resolved.union(before.removed))
        where openBefore.contains(record) {
            try listClosed(record, from: .open)
        }
        // Versions recorded and resolved at once, as far as this device saw: set aside by a
        // merge made with plain git, or recorded by another device's integration and resolved
        // there before this device synced. Not for a device with no head: it had no version
        // of anything, so a conflict settled before it joined is history, not news (it is
        // told of the documents that arrived in conflict, above, and holding markers, below).
        for record in after.resolved.subtracting(before.resolved) where old != nil && !openBefore.contains(record) {
            guard after.conflicts.contains(where: { $0.versionRecord == record }),
                !before.conflicts.contains(where: { $0.versionRecord == record })
            else { continue }
            try listClosed(record, from: .notListed)
        }
        let oldTreeID = try old.map { try repository.commit($0).treeID }
        let documents = Set(
            try repository.changedPaths(from: oldTreeID, to: repository.commit(new).treeID)
                .map { DocumentPath.document(containingFile: $0) })
        let openAfter = after.unresolvedByDocument()
        // A device with no head had no current version of anything: it received each document,
        // and is told one by one only of those that arrived holding conflict markers.
        let received = old == nil ? documents.count { !DocumentPath.isReserved($0.path) } : 0
        let asked = documents.subtracting(explained).filter { !DocumentPath.isReserved($0.path) }
        if let oldHead {
            introducedAtNew = try graph.introducingCommits(of: asked, from: new)
            introducedAtOld = try graph.introducingCommits(of: asked, from: oldHead.id)
        }
        for document in asked {
            if old == nil {
                guard let entry = try newTree.documentEntry(atPath: document.path),
                    try containsConflictMarkers(
                        graph.version(of: document, at: new, device: device, modified: .distantPast, entry: entry),
                        in: repository),
                    let current = try current(document),
                    let kind = SyncTransition.entry(from: .notListed, to: .current, isOwn: current.device.id == device.id)
                else { continue }
                var change = DocumentSyncChange(document: document, kind: kind, current: current, version: nil)
                change.containsConflictMarkers = true
                changes.append(change)
                continue
            }
            // (nil: absent because a folder of the document's name won over it.)
            let current = try current(document)
            // (Before the skip of this device's own versions: a plain merge can bring back a
            // state this device saved once, over another device's version current here.)
            let previous = try oldHead.flatMap {
                try graph.currentVersion(of: document, at: $0.id, reading: $0.tree, introduced: introducedAtOld[document])
            }
            if let previous, previous.id != current?.id {
                let record = VersionRecord(path: document.path, version: previous.id)
                // The version current here before may be named by a record that was open all
                // along (it lost once, then won again): now that another is current, it is a
                // listed conflict version again, and that is what happened to it, not a plain update.
                if openAfter[document]?.contains(where: { $0.version == previous.id }) == true,
                    let kind = SyncTransition.entry(from: .current, to: .open, isOwn: previous.device.id == device.id)
                {
                    changes.append(DocumentSyncChange(document: document, kind: kind, current: current, version: previous))
                    continue
                }
                // Or a decision had set it aside already, and it was current here all the same
                // (the two merges of a criss-cross disagreed, and integration kept it). Replaced
                // now by a version not made on top of it, it lost again and stays set aside
                // (`versions --all` lists it): no update. "Made on top of" is read in the
                // document's version graph: the new version's commit may hold this one all the
                // same, its line having recorded it or set it aside
                // (`aSetAsideVersionReplacedByAnEditWhoseCommitHoldsItIsNotCalledUpdated`).
                if after.resolved.contains(record) || after.removed.contains(record),
                    try current.map({ try !graph.isMadeOnTop(of: previous.commitID, $0.commitID, path: document.path) }) ?? true,
                    let kind = SyncTransition.entry(
                        from: .current, to: .closed(setAside: after.setAside.contains(record)),
                        isOwn: previous.device.id == device.id)
                {
                    changes.append(DocumentSyncChange(document: document, kind: kind, current: current, version: previous))
                    continue
                }
            }
            guard let current,
                let kind = SyncTransition.entry(
                    from: previous == nil ? .notListed : .current, to: .current,
                    isOwn: current.device.id == device.id)
            else { continue }
            var change = DocumentSyncChange(document: document, kind: kind, current: current, version: nil)
            // (Every text file of a package is looked at, as mark-resolved does.)
            if current.entryID != nil {
                change.containsConflictMarkers = try containsConflictMarkers(current, in: repository)
            }
            changes.append(change)
        }
        // A plain merge whose result still holds conflict markers (committed unfinished) sets
        // versions aside and is current: say so, as for a plain commit.
        for index in changes.indices where changes[index].kind == .setAsideByPlainMerge {
            if let current = changes[index].current, current.entryID != nil {
                changes[index].containsConflictMarkers = try containsConflictMarkers(current, in: repository)
            }
        }
        try markRenamesMet(&changes, from: old, graph: graph, in: repository)
        // By document, then kind, then version. The order of indices is sorted, not the changes
        // themselves: moving 200,000 changes through a merge sort was a twentieth of a wide
        // folder's arrival.
        let paths = changes.map(\.document.path)
        let order = changes.indices.sorted { a, b in
            let byDocument = paths[a].compareBytes(paths[b])
            if byDocument != 0 { return byDocument < 0 }
            if changes[a].kind != changes[b].kind { return changes[a].kind.rawValue < changes[b].kind.rawValue }
            return (changes[a].version?.id ?? "") < (changes[b].version?.id ?? "")
        }
        return (order.map { changes[$0] }, received)
    }
}
