import Foundation

/// The result of integrating other devices' saves.
struct Integration {
    /// The new head (unchanged when there was nothing to integrate).
    var head: ObjectID?
    /// Conflict versions recorded by this integration.
    var conflicts: [ConflictRecord] = []
}

/// Integrates device heads into one commit: the deterministic join that makes devices
/// converge. A pure function of the heads and the repository's objects.
struct Integrator {
    let repository: Repository
    /// The version index, when available: versions and ancestry are then read from it.
    var index: VersionIndex? = nil

    /// Integrates the given heads with this device's head into one commit.
    ///
    /// Heads already contained in another are dropped; if one head contains all the others the
    /// result is that head (a fast-forward). Otherwise the result is an integration commit
    /// that is a pure function of the heads: parents sorted by id, a fixed identity, the
    /// newest parent's date, a tree and message computed from the heads alone. Every device
    /// that integrates the same heads therefore writes the very same commit, which is what
    /// makes devices converge.
    /// (docs/MODEL.md: R6, R24, R30, R31.)
    func integrate(_ heads: [ObjectID], into ours: ObjectID?) throws -> Integration {
        var graph = VersionGraph(repository: repository, index: index)
        var candidates = Array(Set(heads + (ours.map { [$0] } ?? [])))
        candidates = try candidates.filter { candidate in
            try !candidates.contains { other in try other != candidate && graph.isDescendant(other, of: candidate) }
        }.sorted()
        guard candidates.count > 1 else { return Integration(head: candidates.first ?? ours) }

        let base = try repository.mergeBase(of: candidates)
        // Each side's own line, walked once: ancestry between versions of different lines is
        // then a set lookup, not a search.
        if index != nil {
            graph.lines = try candidates.map { head in
                var line = Set<ObjectID>()
                let walk = try repository.revwalk(from: [head], hiding: base.map { [$0] } ?? [], topological: false)
                while let id = try walk.next() { line.insert(id) }
                return line
            }
        }
        var merger = TreeMerger(graph: graph, heads: candidates, base: base)
        let baseTree = try base.map { try repository.commit($0).treeID }
        let sideTrees = try candidates.map { try repository.commit($0).treeID }
        // Documents changed on two or more sides are the only ones whose versions matter:
        // find them by tree diffs, then each side's versions of them in one pass per side.
        let changedBySide = try sideTrees.map { tree in
            Set(try repository.changedPaths(from: baseTree, to: tree).map { DocumentPath.document(containingFile: $0) })
        }
        // (Documents are keys by their bytes: two spellings of one name are two documents.)
        var changedOn: [DocumentPath: Int] = [:]
        for documents in changedBySide { for document in documents { changedOn[document, default: 0] += 1 } }
        // Explicit decisions (resolutions, replacements) count as changes of the document
        // they name: two sides that decided differently must meet, not override in silence.
        let decisions = try candidates.map { try graph.decisions(from: $0, since: base) }
        var involved: [DocumentPath: Int] = [:]
        for index in candidates.indices {
            for document in changedBySide[index].union(decisions[index].keys) { involved[document, default: 0] += 1 }
        }
        // A side whose line created and deleted again a document the base never had shows no
        // change of it in tree terms, yet its deletion is a version: it must meet another
        // side's creation of that document, or it is absorbed unrecorded.
        let hidden = try hiddenDeletions(
            candidates: candidates, base: base, baseTree: baseTree,
            changedBySide: changedBySide, graph: graph)
        let disputed = Set(decisions.flatMap(\.keys).filter { (involved[$0] ?? 0) > 1 }).union(hidden.joined())
        if !disputed.isEmpty {
            merger.disputed = disputed
            for index in candidates.indices {
                merger.sides[index].decisions = decisions[index]
                merger.sides[index].hiddenDeletions = hidden[index]
            }
        }
        let contested = Set(changedOn.filter { $0.value > 1 }.keys).union(disputed)
        if !contested.isEmpty {
            // A side's version of a document it did not change is never asked for: skip it.
            for index in candidates.indices {
                merger.sides[index].versions = try graph.introducingCommits(
                    of: contested.intersection(changedBySide[index].union(decisions[index].keys).union(hidden[index])),
                    from: candidates[index])
            }
        }
        // An empty result is written like any tree (docs/MODEL.md: R31).
        var tree = try merger.mergeFolder(base: baseTree, sides: sideTrees, prefix: "") ?? repository.writeTree(entries: [])
        // An edit follows a rename onto its new name, unless the merged tree has something in
        // the way there (a folder of that name, or a file where one of its folders would be):
        // then it stays at its old name, or, if that is taken too, it is kept as a conflict
        // version of the document it edited.
        for (newDocument, edit) in merger.renamedEdits.sorted(by: { $0.key < $1.key }) {
            let newPath = newDocument.path
            // (At the new name the merged tree holds the renamed, unedited file: the edit replaces it.)
            let path =
                try !isBlocked(newPath, in: tree, replacingFile: true)
                ? newPath
                : !isBlocked(edit.from, in: tree, replacingFile: false) ? edit.from : nil
            guard let path else {
                merger.records.append(ConflictRecord(path: edit.from, version: edit.version.hex, base: base?.hex))
                continue
            }
            tree = try repository.writeTree(base: tree, updates: [.init(path: path, action: .upsert(edit.state.id, edit.state.mode))])
        }

        // The key-value store's files (the reserved area) are decided by the same rule, but the
        // store resolves by itself: its losing values stay in history, not as open conflicts.
        let records = merger.records.filter { !DocumentPath.isReserved($0.path) }
            .sorted { $0.path.bytesEqual($1.path) ? $0.version < $1.version : $0.path.bytesPrecede($1.path) }
        var message = CommitMessage(subject: "Integrate saves from \(candidates.count) heads")
        message.body = records.map { "conflict: \($0.path) (version \($0.version.prefix(12)) kept as a conflict version)" }
        message.trailers = [(Trailer.integration, "1")] + records.map(\.trailer)
        let identity = try CommitIdentity.integration(of: candidates, in: repository)
        let commit = try repository.createCommit(
            tree: tree, parents: candidates, author: identity.author,
            committer: identity.committer, message: message.render())
        return Integration(head: commit, conflicts: records)
    }
}

extension Integrator {
    /// True when writing a document at `path` in `tree` would replace something: a folder (or,
    /// unless `replacingFile`, anything) at that name, or a file where one of its folders would be.
    /// (docs/MODEL.md: R24.)
    func isBlocked(_ path: String, in tree: ObjectID, replacingFile: Bool) throws -> Bool {
        let root = try repository.tree(tree)
        if let entry = try root.entry(atPath: path), entry.mode.isTree || !replacingFile { return true }
        let components = path.split(separator: "/")
        for depth in components.indices.dropLast() {
            if let entry = try root.entry(atPath: components[...depth].joined(separator: "/")), !entry.mode.isTree { return true }
        }
        return false
    }

    /// Per side, the documents the base never had, that another side created, and that this
    /// side's line created and deleted again since the base (its head lacks them as the base
    /// does). Cost: the commits since the base (their changes, from the version index or tree
    /// diffs), plus one version lookup per document both touched.
    /// (docs/MODEL.md: R18.)
    func hiddenDeletions(
        candidates: [ObjectID], base: ObjectID?, baseTree: ObjectID?, changedBySide: [Set<DocumentPath>],
        graph: VersionGraph
    ) throws -> [Set<DocumentPath>] {
        var result = candidates.map { _ in Set<DocumentPath>() }
        guard let base, let baseTree else { return result }
        // Documents created since the base on some side (the base lacks them).
        let root = try repository.tree(baseTree)
        var created = Set<DocumentPath>()
        for document in Set(changedBySide.joined()) where !DocumentPath.isReserved(document.path) {
            if try root.documentEntry(atPath: document.path) == nil { created.insert(document) }
        }
        guard !created.isEmpty else { return result }
        for (index, head) in candidates.enumerated() {
            let candidates = created.subtracting(changedBySide[index])
            guard !candidates.isEmpty else { continue }
            // The documents this side's line touched since the base.
            var touched = Set<DocumentPath>()
            let walk = try repository.revwalk(from: [head], hiding: [base], topological: false)
            while let id = try walk.next() {
                if let changes = self.index?.changes(of: id) {
                    for change in changes where candidates.contains(DocumentPath(trusted: change.document)) {
                        touched.insert(DocumentPath(trusted: change.document))
                    }
                } else {
                    let commit = try repository.commit(id)
                    let parentTree = try commit.parentIDs.first.map { try repository.commit($0).treeID }
                    for path in try repository.changedPaths(from: parentTree, to: commit.treeID) {
                        let document = DocumentPath.document(containingFile: path)
                        if candidates.contains(document) { touched.insert(document) }
                    }
                }
            }
            for document in touched.sorted() {
                let version = try graph.introducingCommit(of: document.path, from: head)
                // A deletion made since the base: the commit lacks the document, a parent had it.
                guard try !repository.isAncestorOrSame(version, of: base) else { continue }
                let commit = try repository.commit(version)
                guard try repository.tree(commit.treeID).documentEntry(atPath: document.path) == nil else { continue }
                let deleted = try commit.parentIDs.contains { parent in
                    try repository.tree(repository.commit(parent).treeID).documentEntry(atPath: document.path) != nil
                }
                if deleted { result[index].insert(document) }
            }
        }
        return result
    }
}

extension Container {
    /// Integrates `heads` into this device's head `ours` (see ``Integrator``).
    func integrate(_ heads: [ObjectID], into ours: ObjectID?, in repository: Repository) throws -> Integration {
        try Integrator(repository: repository, index: versionIndex(in: repository)).integrate(heads, into: ours)
    }
}
