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
/// merge of both sides) sets nothing aside: both sides are its ancestors, as with the merge
/// strategy. docs/FORMAT.md, "Merges made with plain git".
struct PlainMerge {
    let graph: VersionGraph
    var repository: Repository { graph.repository }

    /// True for a commit with several parents that docver's integrator did not write.
    static func isPlainMerge(_ commit: Commit) -> Bool {
        commit.parentIDs.count > 1 && !commit.trailers.contains { $0.key == Trailer.integration }
    }

    /// The versions the merge `commitID` set aside, as conflict records (base: the merge base
    /// of the parents). Its cost follows the documents the parents disagree on.
    func setAside(by commitID: ObjectID) throws -> [ConflictRecord] {
        let commit = try repository.commit(commitID)
        guard Self.isPlainMerge(commit) else { return [] }
        var documents: Set<String> = []
        for parent in commit.parentIDs {
            let tree = try repository.commit(parent).treeID
            for path in try repository.changedPaths(from: tree, to: commit.treeID) {
                documents.insert(DocumentPath.document(containingFile: path).path)
            }
        }
        let base = try repository.mergeBase(of: commit.parentIDs)
        // A parent's explicit decision about a document (a resolution that kept its state
        // changes no tree) is that parent's version when the other side never saw it.
        let integrator = Integrator(repository: repository, index: graph.index)
        let decisions = documents.isEmpty ? [] : try commit.parentIDs.map { try integrator.decisions(from: $0, since: base) }
        var records: [ConflictRecord] = []
        for path in documents.sorted() {
            let kept = try graph.introducingCommit(of: path, from: commitID)
            // New content made by the merge itself: both sides are in it.
            guard kept != commitID else { continue }
            var seen: Set<ObjectID> = [kept]
            for (index, parent) in commit.parentIDs.enumerated() {
                var version = try graph.introducingCommit(of: path, from: parent)
                // (Not on the side whose state the merge kept: its decision was kept with it.)
                if version != kept, let decision = decisions[index][path], decision != version,
                   try repository.isAncestorOrSame(version, of: decision), try !repository.isAncestorOrSame(decision, of: kept) {
                    version = decision
                }
                guard seen.insert(version).inserted, try !repository.isAncestorOrSame(version, of: kept) else { continue }
                // A first commit "introduces" the absence of a document it never had.
                if try repository.commit(version).parentIDs.isEmpty,
                   try repository.tree(repository.commit(version).treeID).documentEntry(atPath: path) == nil { continue }
                records.append(ConflictRecord(path: path, version: version.hex, base: base?.hex))
            }
        }
        return records
    }
}
