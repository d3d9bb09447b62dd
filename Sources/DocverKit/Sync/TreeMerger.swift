import Foundation

/// The N-way, document-level merge of several heads against their common base.
///
/// Folders are merged entry by entry, skipping any subtree that is the same on every side or
/// changed on one side only, so the cost follows what changed, not the container's size.
/// A document (a file, or a package directory as one unit) changed on several sides is
/// decided by its versions: a version another side's version descends from is superseded;
/// if the remaining versions differ, a modification beats a deletion, then the latest
/// modification date wins (then device id, then version id), and the others are recorded as
/// conflict versions. (`LatestDateStrategy` applies the same rule.)
struct TreeMerger {
    let graph: VersionGraph
    var repository: Repository { graph.repository }
    let heads: [ObjectID]
    let base: ObjectID?
    var records: [ConflictRecord] = []
    /// One per head, in the order of `heads`.
    var sides: [Side]
    /// Documents a decision makes contested although the tree shortcuts would not see it:
    /// a side that kept the current version changed no tree, yet its decision counts.
    var disputed: Set<DocumentPath> = []
    /// Edits that follow a rename made on another side: new path → the path the edit was
    /// made at, its entry and its version.
    var renamedEdits: [DocumentPath: (from: String, state: EntryState, version: ObjectID)] = [:]
    private var renameCache: [Int: [ByteString: String]] = [:]

    /// One head taking part in the merge (docs/MODEL.md, "Sides"): what its line did since
    /// the base that its tree does not show, and what is known ahead about its versions.
    struct Side {
        let head: ObjectID
        /// The newest explicit decision (a resolution or a replace) its line made about each
        /// document since the base (R8): document → commit.
        var decisions: [DocumentPath: ObjectID] = [:]
        /// The documents its line created and deleted again since a base that never had them:
        /// a deletion its tree does not show (R18).
        var hiddenDeletions: Set<DocumentPath> = []
        /// The version commits (R4) of the contested documents it changed or decided, found in
        /// one pass; a document missing here is walked for when asked.
        var versions: [DocumentPath: ObjectID] = [:]
    }

    init(graph: VersionGraph, heads: [ObjectID], base: ObjectID?) {
        self.graph = graph
        self.heads = heads
        self.base = base
        sides = heads.map { Side(head: $0) }
    }

    /// A document's state on one side; nil: absent.
    private typealias Slot = EntryState?

    private static func same(_ a: Slot, _ b: Slot) -> Bool { a == b }

    /// Merges one plain folder; returns nil when the merged folder is empty.
    /// (docs/MODEL.md: R6, R20.)
    mutating func mergeFolder(base: ObjectID?, sides: [ObjectID?], prefix: String) throws -> ObjectID? {
        if let first = sides.first, sides.allSatisfy({ $0 == first }) { return first }
        let changed = Set(sides.filter { $0 != base }.map { $0?.hex ?? "" })
        if changed.count == 1, let side = sides.first(where: { $0 != base }), !isDisputed(under: prefix) { return side }

        let baseEntries = try entries(of: base)
        let sideEntries = try sides.map { try entries(of: $0) }
        // Names are bytes, as git sees them (docs/FORMAT.md, "Names").
        var names = Set(baseEntries.keys)
        for side in sideEntries { names.formUnion(side.keys) }

        var result: [(name: String, id: ObjectID, mode: FileMode)] = []
        for key in names.sorted() {
            let name = key.string
            let baseSlot: Slot = baseEntries[key].map(EntryState.init)
            let slots: [Slot] = sideEntries.map { $0[key].map(EntryState.init) }
            let merged: Slot
            if slots.allSatisfy({ Self.same($0, slots[0]) }) {
                merged = slots[0]
            } else if let only = Self.singleChange(base: baseSlot, slots: slots), !isDisputed(prefix + name) {
                merged = only.slot
            } else if !DocumentPath.isPackageName(name),
                baseSlot.map({ $0.mode.isTree }) ?? true,
                slots.allSatisfy({ $0.map { $0.mode.isTree } ?? true })
            {
                merged = try mergeFolder(base: baseSlot?.id, sides: slots.map { $0?.id }, prefix: prefix + name + "/")
                    .map { EntryState($0, .tree) }
            } else if !DocumentPath.isPackageName(name), ([baseSlot] + slots).contains(where: { $0?.mode.isTree == true }) {
                merged = try mergeFileAndFolder(prefix + name, base: baseSlot, slots: slots)
            } else {
                merged = try mergeDocument(prefix + name, base: baseSlot, slots: slots)
            }
            if let merged { result.append((name, merged.id, merged.mode)) }
        }
        guard !result.isEmpty else { return nil }
        return try repository.writeTree(entriesOfStoredTrees: result)
    }

    /// A name that is a plain folder on some sides and a file on others: two things that are
    /// not versions of each other. The folder's documents merge as in any folder (a side
    /// holding the file holds none of them); the document of that name merges as a document
    /// (a side holding the folder does not hold it). When both survive, the folder stays, and
    /// the file is kept as a conflict version of its document, whose current state is then
    /// its absence: a fixed rule, so every order of integration ends the same way, and
    /// nothing either side saved leaves the listings (docs/FORMAT.md, "Integration").
    /// (docs/MODEL.md: R21, R22.)
    private mutating func mergeFileAndFolder(_ path: String, base baseSlot: Slot, slots: [Slot]) throws -> Slot {
        func folder(_ slot: Slot) -> Slot { slot?.mode.isTree == true ? slot : nil }
        func file(_ slot: Slot) -> Slot { slot?.mode.isTree == true ? nil : slot }
        let folderMerged = try mergeFolder(base: folder(baseSlot)?.id, sides: slots.map { folder($0)?.id }, prefix: path + "/")
            .map { EntryState($0, .tree) }
        let fileBase = file(baseSlot), fileSlots = slots.map(file)
        let fileMerged: Slot
        if fileSlots.allSatisfy({ Self.same($0, fileSlots[0]) }) {
            fileMerged = fileSlots[0]
        } else if let only = Self.singleChange(base: fileBase, slots: fileSlots), !isDisputed(path) {
            fileMerged = only.slot
        } else {
            let recorded = records.count
            fileMerged = try mergeDocument(path, base: fileBase, slots: fileSlots)
            if folderMerged != nil {
                // The folder stays, so the document's current state is its absence: a deletion
                // that lost to the file holds that very state and is no other version.
                let added = records[recorded...]
                records.removeSubrange(recorded...)
                for record in added {
                    guard let version = ObjectID(hex: record.version),
                        try repository.tree(repository.commit(version).treeID).documentEntry(atPath: path) != nil
                    else { continue }
                    records.append(record)
                }
            }
        }
        guard let folderMerged else { return fileMerged }
        // A file unchanged since the base was replaced by the folder on purpose, as a save
        // that replaces a file with a folder does; a file some side saved is kept, and so is
        // one a side decided to keep (a resolution that kept it changed no tree).
        if let fileMerged {
            let holders = fileSlots.indices.filter { Self.same(fileSlots[$0], fileMerged) }
            let deciders = holders.filter { sides[$0].decisions[DocumentPath(trusted: path)] != nil }
            if let index = Self.same(fileMerged, fileBase) ? deciders.first : holders.first {
                let known = sides[index].versions[DocumentPath(trusted: path)]
                let introduced = try known ?? graph.introducingCommit(of: path, from: heads[index])
                var version = introduced
                if let decision = sides[index].decisions[DocumentPath(trusted: path)],
                    try standsForSide(decision, introduced: introduced, state: fileMerged, path: path)
                {
                    version = decision
                }
                records.append(ConflictRecord(path: path, version: version.hex, base: fileBase == nil ? nil : base?.hex))
            }
        }
        return folderMerged
    }

    /// True when `path` is a disputed document or a folder holding one.
    private func isDisputed(_ path: String) -> Bool {
        !disputed.isEmpty && disputed.contains { $0.path.bytesEqual(path) || $0.path.bytesHavePrefix(path + "/") }
    }

    /// True when a disputed document lies below the folder `prefix` ("" is the top).
    private func isDisputed(under prefix: String) -> Bool {
        !disputed.isEmpty && (prefix.isEmpty || disputed.contains { $0.path.bytesHavePrefix(prefix) })
    }

    /// The one state all changed sides agree on, if they agree.
    private static func singleChange(base: Slot, slots: [Slot]) -> (slot: Slot, Void)? {
        let changed = slots.filter { !same($0, base) }
        guard let first = changed.first else { return (base, ()) }
        return changed.allSatisfy({ same($0, first) }) ? (first, ()) : nil
    }

    private func entries(of tree: ObjectID?) throws -> [ByteString: TreeEntry] {
        guard let tree else { return [:] }
        return Dictionary(uniqueKeysWithValues: try repository.tree(tree).entries.map { (ByteString($0.name), $0) })
    }

    /// (docs/MODEL.md: R1, R2, R3, R7, R10, R11, R16, R18, R19, R23, R35.)
    private mutating func mergeDocument(_ path: String, base baseSlot: Slot, slots: [Slot]) throws -> Slot {
        // The versions each changed side holds, minus those another version descends from.
        // A side's explicit decision about the document (a resolution, even one that kept the
        // current version and changed no tree) is its version, unless it edited on since.
        var versions: [ObjectID: Slot] = [:]
        var decisionIDs: Set<ObjectID> = []
        // Versions a side holds again although the base had moved on from them (R35).
        var broughtBack: Set<ObjectID> = []
        for (index, slot) in slots.enumerated() {
            let decision = sides[index].decisions[DocumentPath(trusted: path)]
            let hiddenDeletion = sides[index].hiddenDeletions.contains(DocumentPath(trusted: path))
            guard !Self.same(slot, baseSlot) || decision != nil || hiddenDeletion else { continue }
            let known = sides[index].versions[DocumentPath(trusted: path)]
            var introduced = try known ?? graph.introducingCommit(of: path, from: heads[index])
            // A side that holds the base's state and takes part through its decision may have
            // saved that state again since the base (an undo, a copy): the version walk names
            // the base's own version when the first parent is a line that kept it all along,
            // but the side's version is its own save of that state (docs/MODEL.md, R9).
            if !hiddenDeletion, let base, slot != nil, Self.same(slot, baseSlot), try graph.isAncestorOrSame(introduced, of: base) {
                let holding = try graph.introducingCommits(ofStateOf: path, at: heads[index])
                if let own = try holding.first(where: { try !graph.isAncestorOrSame($0, of: base) }) { introduced = own }
            }
            if let decision, try standsForSide(decision, introduced: introduced, state: slot, path: path) {
                versions[decision] = slot
                decisionIDs.insert(decision)
            } else {
                versions[introduced] = slot
                // The side changed the document since the base, yet its version is older than
                // the base: the base's line moved on from it, and an integration or a plain merge
                // on this side's line brought it back. Every other side descends from it by
                // commit; only a version made on top of it supersedes it (docs/MODEL.md, R35).
                if let base, !Self.same(slot, baseSlot), try graph.isAncestorOrSame(introduced, of: base) {
                    broughtBack.insert(introduced)
                }
            }
            // The side's state came from a line that never had the base's version: the change
            // the side's own line made to that version meets the others too.
            if let base, baseSlot != nil, !Self.same(slot, baseSlot),
                try !graph.isAncestorOrSame(base, of: introduced)
            {
                for change in try graph.baseLineChanges(of: path, from: heads[index], base: base) where versions.index(forKey: change) == nil {
                    versions.updateValue(try graph.state(of: path, at: change), forKey: change)
                }
            }
        }
        let ids = Array(versions.keys)
        let remaining = try ids.filter { id in
            try !ids.contains { other in
                guard other != id else { return false }
                if broughtBack.contains(id) {
                    if try graph.isMadeOnTop(of: id, other, path: path) { return true }
                } else if try graph.isDescendant(other, of: id) {
                    return true
                }
                // An ordinary edit made on top of the state a decision kept supersedes the
                // decision; another decision never does: two decisions that disagree conflict.
                guard decisionIDs.contains(id), !decisionIDs.contains(other) else { return false }
                // The state the decision kept, or any version it was made after, is no edit
                // on top of it (else each would drop the other and no version would be left).
                if try graph.isDescendant(id, of: other) { return false }
                return try isEdit(other, onTopOf: graph.introducingCommit(of: path, from: id), decidedAt: id, path: path)
            }
        }
        let states = remaining.map { versions[$0]! }
        if let first = states.first, states.allSatisfy({ Self.same($0, first) }) { return first }

        let present = remaining.filter { versions[$0]! != nil }
        let deleting = remaining.filter { versions[$0]! == nil }

        // Modify on one side, rename on another: the edit follows the rename.
        if present.count == 1, !deleting.isEmpty, baseSlot != nil,
            let newPath = try renameTarget(of: path, deletedIn: deleting, baseSlot: baseSlot)
        {
            renamedEdits[DocumentPath(trusted: newPath)] = (path, versions[present[0]]!!, present[0])
            return nil
        }

        let ranked = try (present.isEmpty ? remaining : present).map { id -> (ObjectID, Date, String) in
            let commit = try repository.commit(id)
            return (id, commit.author.time, commit.device.id)
        }.sorted { ($0.1, $0.2, $0.0.hex) > ($1.1, $1.2, $1.0.hex) }
        let winner = ranked[0].0
        // The record names the common ancestor; the base version is found from it when needed,
        // so integrating never walks back through old history.
        let baseVersion = baseSlot == nil ? nil : base?.hex
        for loser in remaining where loser != winner {
            records.append(ConflictRecord(path: path, version: loser.hex, base: baseVersion))
        }
        return versions[winner]!
    }

    /// True when a side's decision about `path` stands for the side's version, whose state is
    /// `state` and which `introduced` introduced: the decision is the side's newest state of
    /// the document (docs/FORMAT.md, "Integration"). It is made after that version and keeps
    /// that very state. A decision whose own state the side no longer holds was set aside on
    /// its line since (a plain merge that kept the version the decision replaced;
    /// `aDecisionAPlainMergeSetAsideDoesNotStandForTheMergesSide`): taking it for the side
    /// would record it, already set aside, as the conflict version, and leave the state the
    /// side holds, if it loses, neither current nor listed.
    /// (docs/MODEL.md: R9.)
    private func standsForSide(_ decision: ObjectID, introduced: ObjectID, state: Slot, path: String) throws -> Bool {
        guard try decision == introduced || graph.isDescendant(decision, of: introduced) else { return false }
        return Self.same(try graph.keptState(by: decision, of: path), state)
    }

    /// True when `version` is an ordinary save made on top of the state `kept` introduced:
    /// its chain of predecessors in the document's version graph reaches `kept` without going
    /// through a decision about the document. An edit made on top of another device's
    /// decision (one that replaced the kept state) is no edit of the kept state, although
    /// its commit descends from it: it must meet a decision that kept that state, not
    /// supersede it in silence. So is an edit of a later version that the decision's own line
    /// holds (`decidedAt` descends from it) and left for the kept state (a plain merge set it
    /// aside, or it lost and was decided against): the decision was made after that version,
    /// and an edit of it made without seeing the decision must meet it (a deletion of such a
    /// version deleted the document everywhere:
    /// `deletingAnEditThatTheDecidingLineSetAsideDoesNotOverrideTheDecision`).
    /// (docs/MODEL.md: R10.)
    private func isEdit(_ version: ObjectID, onTopOf kept: ObjectID, decidedAt decision: ObjectID, path: String) throws -> Bool {
        if version == kept { return true }
        // A side's version may be a decision other than the one taken for the side (several
        // devices made the same choice, and their lines met before this one): a decision is
        // never an ordinary edit.
        guard try graph.isDescendant(version, of: kept), try !isDecision(version, about: path) else { return false }
        var visited: Set<ObjectID> = [version]
        var stack = [version]
        while let next = stack.popLast() {
            for predecessor in try graph.predecessors(of: next, path: path) where visited.insert(predecessor).inserted {
                if predecessor == kept { return true }
                guard try graph.isDescendant(predecessor, of: kept), try !isDecision(predecessor, about: path),
                    try !graph.isDescendant(decision, of: predecessor)
                else { continue }
                stack.append(predecessor)
            }
        }
        return false
    }

    private func isDecision(_ commitID: ObjectID, about path: String) throws -> Bool {
        try repository.commit(commitID).decision.isAbout(path)
    }

    /// Where a document went on a side that removed it, if libgit2 sees a pure rename there.
    private mutating func renameTarget(of path: String, deletedIn versions: [ObjectID], baseSlot: Slot) throws -> String? {
        guard let base, let baseSlot, !baseSlot.mode.isTree else { return nil }
        let baseTree = try repository.commit(base).treeID
        for (index, head) in heads.enumerated() {
            guard let headTree = try? repository.commit(head).treeID,
                try repository.tree(headTree).documentEntry(atPath: path) == nil
            else { continue }
            if renameCache[index] == nil {
                renameCache[index] = Dictionary(try repository.renames(from: baseTree, to: headTree).map { (ByteString($0.old), $0.new) }) {
                    first, _ in first
                }
            }
            if let target = renameCache[index]?[ByteString(path)],
                let moved = try repository.tree(headTree).documentEntry(atPath: target), moved.id == baseSlot.id
            {
                _ = versions
                // Follow only onto a free name: if another side put something else there, the
                // edit would overwrite it unrecorded. Then the edit stays where it was, against
                // the deletion, and the two documents at the new name meet as usual.
                let free = try heads.allSatisfy { other in
                    let entry = try repository.tree(repository.commit(other).treeID).entry(atPath: target)
                    return entry == nil || (entry?.id == baseSlot.id && entry?.mode == baseSlot.mode)
                }
                return free ? target : nil
            }
        }
        return nil
    }
}
