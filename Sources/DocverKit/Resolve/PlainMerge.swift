import Foundation

/// What a merge made with plain git (`git merge`, `git merge -X ours`, a hand-resolved
/// merge) means to docver: a resolution by the git user who made it.
///
/// docver's integrator records every version it does not make current; a plain merge records
/// nothing, so without this reading a side it dropped would vanish from every listing once a
/// device fast-forwards to it. For each document whose versions in the merge's parents
/// differ, a parent's version is *set aside* when the merge kept another parent's version
/// unchanged and does not descend from this one (the two were concurrent, and the merge took
/// one whole). It is then recorded as a conflict version and resolved at once: `versions
/// --all` lists it, it can be restored or replaced like any resolved conflict version, and
/// the sync that brings the merge reports it. A merge whose result is new content (a real
/// merge of both sides, `git merge -X ours`, a hand-resolved conflict) sets aside a side only
/// when some of that side's changes are not in the result; a merge that holds both sides
/// sets nothing aside. docs/FORMAT.md, "Merges made with plain git".
struct PlainMerge {
    let graph: VersionGraph
    var repository: Repository { graph.repository }

    /// True for a commit with several parents that docver's integrator did not write.
    /// (docs/MODEL.md: R13.)
    static func isPlainMerge(_ commit: Commit) -> Bool {
        commit.parentIDs.count > 1 && !commit.trailers.contains { $0.key == Trailer.integration }
    }

    /// The versions the merge `commitID` set aside, as conflict records (base: the merge base
    /// of the parents). Its cost follows the documents the parents disagree on.
    /// (docs/MODEL.md: R5, R14.)
    func setAside(by commitID: ObjectID) throws -> [ConflictRecord] {
        let commit = try repository.commit(commitID)
        guard Self.isPlainMerge(commit) else { return [] }
        var documents: Set<DocumentPath> = []  // bytes: two spellings are two documents
        for parent in commit.parentIDs {
            let tree = try repository.commit(parent).treeID
            for path in try repository.changedPaths(from: tree, to: commit.treeID) {
                documents.insert(DocumentPath.document(containingFile: path))
            }
        }
        let base = try repository.mergeBase(of: commit.parentIDs)
        // A parent's explicit decision about a document (a resolution that kept its state
        // changes no tree) is that parent's version when the other side never saw it.
        let decisions = documents.isEmpty ? [] : try commit.parentIDs.map { try graph.decisions(from: $0, since: base) }
        var records: [ConflictRecord] = []
        for document in documents.sorted() {
            let path = document.path
            let kept = try graph.introducingCommit(of: path, from: commitID)
            // New content made by the merge itself: a side is set aside when some of its
            // changes are not in it.
            guard kept != commitID else {
                records += try sidesNotHeld(path: path, by: commit, base: base)
                continue
            }
            var seen: Set<ObjectID> = [kept]
            for (index, parent) in commit.parentIDs.enumerated() {
                var version = try graph.introducingCommit(of: path, from: parent)
                // (Not on the side whose state the merge kept: its decision was kept with it.)
                if version != kept, let decision = decisions[index][document], decision != version,
                    try repository.isAncestorOrSame(version, of: decision), try !repository.isAncestorOrSame(decision, of: kept)
                {
                    version = decision
                }
                guard seen.insert(version).inserted, try !repository.isAncestorOrSame(version, of: kept) else { continue }
                if try graph.isNeverSaved(path, at: version) { continue }
                records.append(ConflictRecord(path: path, version: version.hex, base: base?.hex))
            }
        }
        return records
    }

    /// The parents' versions of `path` some of whose changes the merge's own new content
    /// does not hold: merging such a version into the result again, against the state it and
    /// the other side started from, would change the result (or conflict with it).
    /// (docs/MODEL.md: R15.)
    private func sidesNotHeld(path: String, by merge: Commit, base: ObjectID?) throws -> [ConflictRecord] {
        var versions: [ObjectID] = []
        for parent in merge.parentIDs {
            let version = try graph.introducingCommit(of: path, from: parent)
            if !versions.contains(version) { versions.append(version) }
        }
        guard versions.count > 1 else { return [] }
        let document = DocumentPath(trusted: path)
        func contents(at id: ObjectID) throws -> DocumentContents {
            try Container.contents(of: graph.version(of: document, at: id), in: repository)
        }
        func modes(at id: ObjectID) throws -> [ByteString: FileMode] {
            try Container.fileModes(of: graph.version(of: document, at: id), in: repository)
        }
        let result = try contents(at: merge.id)
        let resultModes = try modes(at: merge.id)
        var records: [ConflictRecord] = []
        for version in versions {
            let others = versions.filter { $0 != version }
            // A side the other side descends from made no change of its own.
            guard try !others.contains(where: { try repository.isAncestorOrSame(version, of: $0) }) else { continue }
            if try graph.isNeverSaved(path, at: version) { continue }
            let ancestor = try graph.commonAncestor(of: version, and: others[0], path: path)
            let side = try contents(at: version)
            let start = try ancestor.map(contents(at:))
            let sideModes = try modes(at: version), startModes = try ancestor.map(modes(at:))
            if !Self.holds(side, since: start, in: result, type: document.type)
                || !Self.holdsModes(sideModes, since: startModes, in: resultModes)
            {
                records.append(ConflictRecord(path: path, version: version.hex, base: base?.hex))
            }
        }
        return records
    }

    /// True when every change `side` made since `base` is in `result`: merging the side into
    /// the result again (line by line for text, by value for JSON) changes nothing. A change
    /// to a binary file is held only when the result has the side's bytes.
    /// (docs/MODEL.md: R15.)
    static func holds(_ side: DocumentContents, since base: DocumentContents?, in result: DocumentContents, type: String) -> Bool {
        if side == base || side == result { return true }
        switch (side, result) {
        case let (.flat(sideData), .flat(resultData)):
            var baseData: Data?
            if case let .flat(data)? = base { baseData = data }
            return fileHolds(sideData, since: baseData, in: resultData, type: type)
        case let (.package(sidePackage), .package(resultPackage)):
            var baseFiles: [String: Data] = [:]
            if case let .package(package)? = base { baseFiles = package.files }
            return Set(sidePackage.files.keys).union(baseFiles.keys).allSatisfy { name in
                let componentType = DocumentPath.fileExtension(of: String(name.split(separator: "/").last ?? "")) ?? ""
                return fileHolds(sidePackage.files[name], since: baseFiles[name], in: resultPackage.files[name], type: componentType)
            }
        default:
            return false
        }
    }

    /// True when every file mode `side` changed since `base` (or set on a file the base
    /// lacks) is the result's mode of that file, as git's merge keeps a mode changed on one
    /// side. A file the result lacks is left to the contents' comparison.
    /// (docs/MODEL.md: R15.)
    static func holdsModes(
        _ side: [ByteString: FileMode], since base: [ByteString: FileMode]?,
        in result: [ByteString: FileMode]
    ) -> Bool {
        side.allSatisfy { name, mode in
            guard let kept = result[name], mode != base?[name] else { return true }
            return kept == mode
        }
    }

    private static func fileHolds(_ side: Data?, since base: Data?, in result: Data?, type: String) -> Bool {
        if side == base || side == result { return true }
        guard let side, let result else { return false }
        if type == "json" {
            guard let merged = try? JSONMerge.merge(path: "", base: base, ours: result, theirs: side) else { return false }
            return JSONMerge.sameValue(merged, result)
        }
        let isText = [base ?? Data(), side, result].allSatisfy { !$0.contains(0) && String(data: $0, encoding: .utf8) != nil }
        guard isText,
            let merged = try? TextMerge.merge(
                base: base ?? Data(), ours: result, theirs: side,
                labels: ("base", "merge", "side"))
        else { return false }
        return merged.clean && merged.merged == result
    }
}
