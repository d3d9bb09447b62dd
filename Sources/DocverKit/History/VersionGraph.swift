import Foundation

/// A document's version graph, read from git history: which commit introduced the state
/// (contents, or absence) a document has at a given commit, and the ``DocumentVersion`` a
/// commit holds.
///
/// The repository is an input, not a hidden member, and a ``VersionMemo`` may remember
/// answers across calls: every answer is a fact about immutable commits.
struct VersionGraph {
    let repository: Repository
    var memo: VersionMemo?
    /// When present, walks run in the index instead of reading trees (same answers).
    var index: VersionIndex?
    /// Optional knowledge for ancestry questions within one integration: per head, the
    /// commits reachable from it but not from the merge base (each side's own line).
    var lines: [Set<ObjectID>] = []
    /// Ancestry answers from the index, remembered per ancestor (see
    /// ``VersionIndex/isDescendant(_:of:remembering:)``): shared by the copies of this graph.
    private let descent = DescentMemo()
    /// ``introducingCommits(ofStateOf:at:)`` answers, per document and commit: shared by the
    /// copies of this graph.
    private let introductions = IntroductionMemo()
    /// The index's runs, for the searches of ``introducingCommits(ofStateOf:at:)``: shared by
    /// the copies of this graph.
    private let runs = IndexRunsMemo()

    private final class DescentMemo {
        var known: [Int32: [Int32: Bool]] = [:]
    }

    private final class IntroductionMemo {
        var known: [ByteString: [ObjectID: [ObjectID]]] = [:]
    }

    init(repository: Repository, memo: VersionMemo? = nil, index: VersionIndex? = nil) {
        self.repository = repository
        self.memo = memo
        self.index = index
    }

    /// The index's answer, when it knows `start` and `path` is a document as the index
    /// records them (a file, or a package as one unit).
    /// `absent`: whether the document is absent at `start`, when the caller knows.
    private func indexedIntroducingCommit(of path: String, from start: ObjectID, absent: Bool? = nil) throws -> ObjectID? {
        guard let index, index.contains(start), DocumentPath.document(containingFile: path).path.bytesEqual(path) else { return nil }
        // A plain folder at the document's name is its absence (as in the walk below).
        let absent = try absent ?? (repository.tree(index.tree(of: start) ?? repository.commit(start).treeID).documentEntry(atPath: path) == nil)
        return index.introducingCommit(of: path, from: start, absent: absent, runs: runs)
    }

    /// True when `commit` strictly descends from `ancestor`: from the index's generation
    /// numbers when it knows both, else from libgit2.
    /// (docs/MODEL.md: R7.)
    func isDescendant(_ commit: ObjectID, of ancestor: ObjectID) throws -> Bool {
        // A commit descends from a commit of some side's line only if every line holding it
        // holds that commit too (a commit of a line is never reachable from the base).
        if !lines.isEmpty, lines.contains(where: { $0.contains(ancestor) }),
            lines.contains(where: { $0.contains(commit) && !$0.contains(ancestor) })
        {
            return false
        }
        if let index, let start = index.number(of: commit), let target = index.number(of: ancestor) {
            return index.isDescendant(start, of: target, remembering: &descent.known[target, default: [:]])
        }
        return try repository.isDescendant(commit, of: ancestor)
    }

    func isAncestorOrSame(_ ancestor: ObjectID, of commit: ObjectID) throws -> Bool {
        try ancestor == commit || isDescendant(commit, of: ancestor)
    }

    /// One document's history read from the repository's trees, for ``VersionWalk``: the
    /// walk's answers remembered in the graph's ``VersionMemo``, ancestry from the graph
    /// (its lines, its index, libgit2).
    struct TreeHistory: CommitSource {
        typealias Failure = any Error

        let graph: VersionGraph
        let path: String
        let components: [String]

        init(graph: VersionGraph, path: String) {
            self.graph = graph
            self.path = path
            self.components = path.split(separator: "/").map(String.init)
        }

        func parents(of node: ObjectID) throws -> [ObjectID] { try graph.repository.commit(node).parentIDs }

        func holdsSameState(_ node: ObjectID, asParent parent: Int) throws -> Bool {
            let repository = graph.repository
            let commit = try repository.commit(node)
            return try repository.sameDocumentState(components, commit.treeID, repository.commit(commit.parentIDs[parent]).treeID)
        }

        func isDescendant(_ node: ObjectID, of ancestor: ObjectID) throws -> Bool { try graph.isDescendant(node, of: ancestor) }

        func knownVersion(at node: ObjectID) -> ObjectID? { graph.memo?.version(of: path, at: node) }
    }

    /// The commit that introduced the state (contents, or absence) a document has at `start`:
    /// ``VersionWalk/introducingCommit(in:from:absent:)`` over the version index when it
    /// covers `start` and the document, else over the trees.
    /// (docs/MODEL.md: R4.)
    /// `absent`: whether the document is absent at `start`, when the caller knows (a plain
    /// folder at its name is its absence).
    func introducingCommit(of path: String, from start: ObjectID, absent: Bool? = nil) throws -> ObjectID {
        if let known = try indexedIntroducingCommit(of: path, from: start, absent: absent) { return known }
        // A plain folder at the document's name is its absence.
        let absent = try absent ?? (repository.tree(repository.commit(start).treeID).documentEntry(atPath: path) == nil)
        let result = try VersionWalk.introducingCommit(in: TreeHistory(graph: self, path: path), from: start, absent: absent)
        memo?.remember(result, of: path, at: start)
        return result
    }

    /// The most commits the search for every version holding one state passes (see
    /// ``introducingCommits(ofStateOf:at:)``): far more than a document stays in one state
    /// across in practice. Past it the search keeps what it found, in the same order on every
    /// device holding the same commits.
    static let introductionSearchLimit = 100_000

    /// Every version that holds the state a document has at `start`: the version walk's
    /// answer (``introducingCommit(of:from:)``) first, then every other commit that introduced
    /// that same state on a line leading to `start`, in first-parent-first order
    /// (``VersionWalk/introducingCommits(ofStateIn:at:limit:)``).
    ///
    /// Two lines can reach one state through different versions: devices that saved the same
    /// bytes, one of them as an edit made on top of another state than the other's. The
    /// version walk names the first parent's, but the state is as much the other's: it was
    /// made from both, and a merge with a version made from one of them must start from both
    /// (docs/FORMAT.md, "The unresolved set"), or it starts from one line only, whichever the
    /// order of an integration's parents put first, and undoes the other line's change. The
    /// absence of a document has its own rule in the walk and is answered by it alone.
    func introducingCommits(ofStateOf path: String, at start: ObjectID) throws -> [ObjectID] {
        if let known = introductions.known[ByteString(path)]?[start] { return known }
        let first = try introducingCommit(of: path, from: start)
        let treeID = try index?.tree(of: start) ?? repository.commit(start).treeID
        var result = [first]
        if try repository.tree(treeID).documentEntry(atPath: path) != nil {
            let found: [ObjectID]
            if DocumentPath.document(containingFile: path).path.bytesEqual(path),
                let indexed = index?.introducingCommits(ofStateOf: path, at: start, limit: Self.introductionSearchLimit, runs: runs)
            {
                found = indexed
            } else {
                found = try VersionWalk.introducingCommits(
                    ofStateIn: TreeHistory(graph: self, path: path), at: start,
                    limit: Self.introductionSearchLimit)
            }
            result += found.filter { $0 != first }
        }
        introductions.known[ByteString(path), default: [:]][start] = result
        return result
    }

    /// ``introducingCommit(of:from:)`` for many documents at once: one pass down the
    /// head's history while it is a single line, comparing only the pending documents at each
    /// step, so each commit's trees are read once however many documents are asked about.
    /// With one parent the walk's step is the comparison (the same state: on to the parent;
    /// else introduced here); from the first merge or root on, each document takes
    /// ``VersionWalk`` alone. Over the index, its shared walk takes each document's steps.
    /// (docs/MODEL.md: R4.)
    func introducingCommits(of documents: Set<DocumentPath>, from head: ObjectID) throws -> [DocumentPath: ObjectID] {
        if let index, index.contains(head) {
            // Documents go through the index's shared walk; paths inside packages walk alone.
            let tree = try repository.tree(repository.commit(head).treeID)
            var shared: [String] = [], absent = Set<ByteString>(), result: [DocumentPath: ObjectID] = [:]
            for document in documents {
                let path = document.path
                let entry = try tree.documentEntry(atPath: path)
                if DocumentPath.document(containingFile: path) != document {
                    result[document] = try introducingCommit(of: path, from: head)
                } else {
                    shared.append(path)
                    if entry == nil { absent.insert(ByteString(path)) }
                }
            }
            if let found = index.introducingCommits(of: shared, absent: absent, from: head) {
                for (path, version) in found where result.index(forKey: DocumentPath(trusted: path.string)) == nil {
                    result[DocumentPath(trusted: path.string)] = version
                }
                return result
            }
        }
        // (Keys are bytes: two spellings of one name are two documents.)
        var pending = Dictionary(uniqueKeysWithValues: documents.map { ($0, $0.path.split(separator: "/").map(String.init)) })
        var result: [DocumentPath: ObjectID] = [:]
        var current = try repository.commit(head)
        while !pending.isEmpty {
            for path in Array(pending.keys) {
                if let known = memo?.version(of: path.path, at: current.id) {
                    result[path] = known
                    pending[path] = nil
                }
            }
            let parents = current.parentIDs
            guard parents.count == 1 else {
                // Through a merge each document may follow a different parent (and at a root
                // the walk ends): walk them one by one.
                for path in pending.keys { result[path] = try introducingCommit(of: path.path, from: current.id) }
                break
            }
            let parent = try repository.commit(parents[0])
            for (path, components) in pending where try !repository.sameDocumentState(components, current.treeID, parent.treeID) {
                result[path] = current.id
                pending[path] = nil
            }
            current = parent
        }
        for (path, version) in result { memo?.remember(version, of: path.path, at: head) }
        return result
    }

    /// The version a commit holds of a document.
    func version(of document: DocumentPath, at commitID: ObjectID) throws -> DocumentVersion {
        let commit = try repository.commit(commitID)
        let entry = try repository.tree(commit.treeID).documentEntry(atPath: document.path)
        var kind = DocumentKind.flat
        var size: Int64? = 0
        if let entry {
            kind = entry.mode.isTree ? .package : .flat
            size = try entry.mode.isTree ? treeSize(entry.id) : repository.blobSizeIfHere(entry.id)
        } else if let parent = commit.parentIDs.first,
            let previous = try repository.tree(repository.commit(parent).treeID).documentEntry(atPath: document.path)
        {
            kind = previous.mode.isTree ? .package : .flat
        }
        return DocumentVersion(
            id: commitID.hex, document: document, device: commit.device,
            modified: commit.author.time, size: size, kind: kind,
            isDeletion: entry == nil, commitID: commitID, entryID: entry?.id)
    }

    /// A version from what the caller already knows: the commit that introduced the state
    /// and the entry it holds there (the same entry as at any commit holding that state).
    /// Reads only the entry's size, never a tree on the way to the entry; the commit's device
    /// and date are the caller's, read once for all the documents the commit saved.
    /// `size`: the entry's size when the caller knows it (a size is a fact about the entry's id).
    func version(
        of document: DocumentPath, at commitID: ObjectID, device: Device, modified: Date,
        entry: TreeEntry, size: Int64? = nil
    ) throws -> DocumentVersion {
        DocumentVersion(
            id: commitID.hex, document: document, device: device, modified: modified,
            size: try size ?? (entry.mode.isTree ? treeSize(entry.id) : repository.blobSizeIfHere(entry.id)),
            kind: entry.mode.isTree ? .package : .flat, isDeletion: false, commitID: commitID, entryID: entry.id)
    }

    /// A version's size, its contents fetched first when they are not on this device (a device
    /// on demand): for the commands that read the contents anyway.
    func size(of version: DocumentVersion) throws -> Int64 {
        if let size = version.size { return size }
        guard let id = version.entryID else { return 0 }
        func total(_ id: ObjectID, isTree: Bool) throws -> Int64 {
            guard isTree else { return try repository.blobSize(id) }
            return try repository.tree(id).entries.reduce(0) { try $0 + total($1.id, isTree: $1.mode.isTree) }
        }
        return try total(id, isTree: version.kind == .package)
    }

    /// The sum of a package's components; nil when one of them is not on this device.
    private func treeSize(_ id: ObjectID) throws -> Int64? {
        var total: Int64 = 0
        for entry in try repository.tree(id).entries {
            guard let size = try entry.mode.isTree ? treeSize(entry.id) : repository.blobSizeIfHere(entry.id) else { return nil }
            total += size
        }
        return total
    }

    /// The current version of `document` at `head`; nil when it has never been saved there
    /// (absent since the first commit), a deletion version when it was deleted.
    /// (docs/MODEL.md: R5.)
    func currentVersion(of document: DocumentPath, at head: ObjectID) throws -> DocumentVersion? {
        try currentVersion(of: document, at: head, reading: DocumentEntryReader(repository: repository, tree: repository.commit(head).treeID))
    }

    /// ``currentVersion(of:at:)`` through `headTree`, a reader of the head's tree: a caller
    /// asking about many documents at one head reads the head's folders once. The version of
    /// a present document is its introducing commit's (R4), whose entry is the head's (the same
    /// state), so that commit's tree is never read; only a deletion version reads the trees
    /// it needs (its kind is its parent's entry's). `introduced`: the introducing commit, when
    /// the caller found it already (``introducingCommits(of:from:)`` walks for many documents
    /// at once).
    func currentVersion(
        of document: DocumentPath, at head: ObjectID, reading headTree: DocumentEntryReader, introduced: ObjectID? = nil
    ) throws -> DocumentVersion? {
        guard let entry = try headTree.documentEntry(atPath: document.path) else {
            let id = try introduced ?? introducingCommit(of: document.path, from: head, absent: true)
            if try isNeverSaved(document.path, at: id) { return nil }
            return try version(of: document, at: id)
        }
        let id = try introduced ?? introducingCommit(of: document.path, from: head, absent: false)
        let commit = try repository.commit(id)
        return try version(of: document, at: id, device: commit.device, modified: commit.author.time, entry: entry)
    }

    /// True when the version walk's answer `version` is a root commit that lacks the document:
    /// the document was never saved on that line, and that absence is no version (R5). Every
    /// reader of the walk that lists, records or shows versions asks this, here only.
    /// (docs/MODEL.md: R5.)
    func isNeverSaved(_ path: String, at version: ObjectID) throws -> Bool {
        let commit = try repository.commit(version)
        return try commit.parentIDs.isEmpty && repository.tree(commit.treeID).documentEntry(atPath: path) == nil
    }

    /// The versions that led to `current`, newest first, at most `limit`.
    func history(of document: DocumentPath, after current: DocumentVersion, limit: Int?) throws -> [DocumentVersion] {
        var result: [DocumentVersion] = []
        var commit = try repository.commit(current.commitID)
        while limit.map({ result.count < $0 }) ?? true, let parent = commit.parentIDs.first {
            var versionID = try introducingCommit(of: document.path, from: parent)
            var versionCommit = try repository.commit(versionID)
            // An integration that holds a state none of its parents does took it from a version
            // further back: that version is the one the history shows (a few hops at most).
            var hops = 0
            while hops < 8, versionCommit.parentIDs.count > 1, versionCommit.device == CommitIdentity.integrationDevice,
                let origin = try originOfIntegratedState(versionCommit, path: document.path), origin != versionID
            {
                versionID = origin
                versionCommit = try repository.commit(origin)
                hops += 1
            }
            if try isNeverSaved(document.path, at: versionID) { break }
            result.append(try version(of: document, at: versionID))
            commit = versionCommit
        }
        return result
    }

    /// The version whose state an integration holds although none of its parents does: an
    /// integration can take a base-line change (see ``baseLineChanges(of:from:base:)``) that
    /// its parents' trees no longer show. Found among the integration's ancestors, newest
    /// first (integrations write no new contents, and the version taken is recent); nil when
    /// none of the nearest `searchLimit` ancestors holds the state. Called only for
    /// integrations, never for a merge made with plain git, which can be a version of its own.
    /// (docs/MODEL.md: R19.)
    func originOfIntegratedState(_ merge: Commit, path: String, searchLimit: Int = 10_000) throws -> ObjectID? {
        func state(_ tree: ObjectID) throws -> EntryState? {
            try repository.tree(tree).documentEntry(atPath: path).map(EntryState.init)
        }
        let target = try state(merge.treeID)
        let walk = try repository.revwalk(from: merge.parentIDs, topological: false)
        var searched = 0
        while searched < searchLimit, let id = try walk.next() {
            searched += 1
            let commit = try repository.commit(id)
            guard try state(commit.treeID) == target else { continue }
            if try isNeverSaved(path, at: id) { return nil }
            return try introducingCommit(of: path, from: id)
        }
        return nil
    }

    /// The change a line that descends from `base` made to a document, when the state `head`
    /// holds did not come from that line.
    ///
    /// An integration may take a document's state from a line that never had the base's
    /// version (a device that created a document of the same name independently). The
    /// base's line may still have changed its version (deleted or edited it) before that
    /// integration; against the base that change is a version of its own, and it must meet
    /// the other sides' changes of the same base version, or it is absorbed unrecorded.
    /// Walks back from `head` while the state stays the same along lines that descend from
    /// `base`, to the commit where the state arrived from elsewhere, and returns the
    /// versions its base-descending parents held, when they changed the base's version.
    /// (docs/MODEL.md: R19.)
    func baseLineChanges(of path: String, from head: ObjectID, base: ObjectID) throws -> [ObjectID] {
        let components = path.split(separator: "/").map(String.init)
        var current = try repository.commit(head)
        var visited: Set<ObjectID> = []
        while visited.insert(current.id).inserted {
            let lines = try current.parentIDs.filter { try repository.isAncestorOrSame(base, of: $0) }
            var next: Commit?
            for parentID in lines {
                let parent = try repository.commit(parentID)
                if try repository.sameDocumentState(components, current.treeID, parent.treeID) { next = parent; break }
            }
            if let next { current = next; continue }
            // The state arrived here (or was made here) from outside the base's lines.
            var result: [ObjectID] = []
            for parentID in lines {
                let version = try introducingCommit(of: path, from: parentID)
                if try repository.isDescendant(version, of: base), !result.contains(version) { result.append(version) }
            }
            return result
        }
        return []
    }

    // MARK: The version graph of one document

    /// The versions a version was made from: the document's version in each parent of its
    /// commit (one for a save, several for a merge made with plain git, none for a root;
    /// every version holding the parent's state, when lines that reached it through
    /// different versions met there: ``introducingCommits(ofStateOf:at:)``), and, for a merge
    /// resolution, every version it merged; a decision that kept one version's contents, or
    /// a replace with one, is made from that version alone (from every version holding it).
    ///
    /// A merge resolution is a save with one parent, but it was made from the conflict
    /// versions it merged as much as from the current one, as a merge commit is made from its
    /// parents: a later merge of one of those versions' further edits must start from that
    /// version, or a change the edit undid (a revert) would come back.
    ///
    /// A decision that kept one version (choose, latest-date, mark-resolved,
    /// remove-other-versions), and a replace, which copies one version's contents, did not
    /// start from the versions they set aside or replaced. Counting them
    /// would make two decisions that disagree about the same conflict (one kept the current
    /// version, another chose a conflict version) share every version of the conflict as
    /// ancestors: their merge would start from all the conflict's edits merged, and each
    /// side's setting aside of the other's edit would drop both edits from a merge reported
    /// clean. Two such decisions are a new conflict between the versions they kept.
    func predecessors(of version: ObjectID, path: String) throws -> [ObjectID] {
        var result: [ObjectID] = []
        let commit = try repository.commit(version)
        for parent in commit.parentIDs {
            for predecessor in try introducingCommits(ofStateOf: path, at: parent) where !result.contains(predecessor) {
                result.append(predecessor)
            }
        }
        let decision = commit.decision
        let decided = try decision.versions(of: path).filter { id in
            try !result.contains(id) && id != version && repository.objectExists(id) && isDescendant(commit.id, of: id)
        }
        guard !decided.isEmpty else { return result }
        let all = result + decided
        guard !decision.isMergeResolution else { return all }
        let own = try keptState(by: commit.id, of: path)
        let kept = try all.filter { try state(of: path, at: $0) == own }
        return kept.isEmpty ? all : kept
    }

    /// The state (entry, or absence) a commit holds of `path`: a plain folder at a document's
    /// name is its absence.
    func state(of path: String, at commit: ObjectID) throws -> EntryState? {
        try repository.tree(repository.commit(commit).treeID).documentEntry(atPath: path).map(EntryState.init)
    }

    /// The state a decision kept of `path` (nil: it kept the absence, R12): its commit's state.
    /// Every reader of what a decision kept asks here: ``predecessors(of:path:)`` (a decision
    /// is made from the versions holding what it kept), ``decisions(from:since:)`` (of
    /// concurrent decisions, the one that kept what the head holds) and
    /// `TreeMerger.standsForSide` (a decision stands for its side when it kept the side's state).
    /// (docs/MODEL.md: R9, R12.)
    func keptState(by decision: ObjectID, of path: String) throws -> EntryState? {
        try state(of: path, at: decision)
    }

    /// True for a merge resolution: made from every version it names.
    func isMergeResolution(_ commit: Commit) -> Bool {
        commit.decision.isMergeResolution
    }

    /// The best common ancestor of two versions of a document in its version graph (the
    /// newest of ``commonAncestors(of:and:path:)``): the state both started from, shown as
    /// a conflict version's base. nil only for two unrelated histories.
    func commonAncestor(of a: ObjectID, and b: ObjectID, path: String) throws -> ObjectID? {
        try commonAncestors(of: [a], and: [b], path: path).first
    }

    /// ``commonAncestor(of:and:path:)`` of two sides, each one or more versions holding one
    /// state (see ``introducingCommits(ofStateOf:at:)``).
    func commonAncestor(of a: [ObjectID], and b: [ObjectID], path: String) throws -> ObjectID? {
        try commonAncestors(of: a, and: b, path: path).first
    }

    /// ``commonAncestors(of:and:path:)`` of two single versions.
    /// (docs/MODEL.md: R29.)
    func commonAncestors(of a: ObjectID, and b: ObjectID, path: String) throws -> [ObjectID] {
        try commonAncestors(of: [a], and: [b], path: path)
    }

    /// The side of `current`, the current version of `path` at `head`, in a merge base
    /// search: every version holding its state there (``introducingCommits(ofStateOf:at:)``).
    /// A deletion, or a version `head` does not hold (a conflict listed at another head),
    /// is its own side.
    func currentSide(_ current: DocumentVersion, path: String, head: ObjectID?) throws -> [ObjectID] {
        guard !current.isDeletion, let head else { return [current.commitID] }
        let side = try introducingCommits(ofStateOf: path, at: head)
        return side.first == current.commitID ? side : [current.commitID]
    }

    /// Every best common ancestor of two versions of a document in its version graph, newest
    /// first (by commit date, then id): the versions both descend from that no other common
    /// ancestor descends from. One, as a rule; several after criss-cross merges (two devices
    /// or git users each merging the same two versions), as with git's merge bases.
    ///
    /// It is not the commits' merge base: an integration that made one version current
    /// hides the other's edit from every later version on that line, although the commits
    /// descend from it. The walk paints the versions reachable from each side, newest first,
    /// and stops once every version still queued lies below a common ancestor found
    /// (git's `paint_down_to_common`); its cost is the document's versions since the two
    /// diverged.
    ///
    /// Each side is one or more versions: the several versions holding one state, when lines
    /// reached it through different versions (``introducingCommits(ofStateOf:at:)``).
    func commonAncestors(of a: [ObjectID], and b: [ObjectID], path: String) throws -> [ObjectID] {
        if a.count == 1, a == b { return a }
        let (sideA, sideB, stale): (UInt8, UInt8, UInt8) = (1, 2, 4)
        var flags: [ObjectID: UInt8] = [:]
        for id in a { flags[id, default: 0] |= sideA }
        for id in b { flags[id, default: 0] |= sideB }
        var dates: [ObjectID: Date] = [:]
        var queue: [ObjectID] = []
        var queued: Set<ObjectID> = []
        func enqueue(_ id: ObjectID) throws {
            guard queued.insert(id).inserted else { return }
            if dates[id] == nil { dates[id] = try repository.commit(id).committer.time }
            queue.append(id)
        }
        for id in a + b { try enqueue(id) }
        var results: [ObjectID] = []
        while queue.contains(where: { flags[$0, default: 0] & stale == 0 }) {
            queue.sort { (dates[$0]!, $0) < (dates[$1]!, $1) }
            let next = queue.removeLast()
            queued.remove(next)
            var paint = flags[next, default: 0]
            if paint == sideA | sideB {
                if !results.contains(next) { results.append(next) }
                paint |= stale
                flags[next] = paint
            }
            for predecessor in try predecessors(of: next, path: path) {
                let old = flags[predecessor, default: 0]
                guard old | paint != old else { continue }
                flags[predecessor] = old | paint
                try enqueue(predecessor)
            }
        }
        guard results.count > 1 else { return results }
        // A result below another (found first by a clock that ran backwards) is not best.
        let best = try results.filter { candidate in
            try !results.contains { other in try other != candidate && reaches(other, candidate, path: path) }
        }
        return best.sorted { (dates[$0]!, $0) > (dates[$1]!, $1) }
    }

    /// True when `version` is `ancestor` or was made on top of it, directly or not, in the
    /// document's version graph. Not the commits' ancestry: a version's commit can hold
    /// another version (a conflict version its line recorded, a version a merge set aside)
    /// that the version was not made from. Competition at integration reads supersession so
    /// for a version brought back after the base.
    /// (docs/MODEL.md: R35.)
    func isMadeOnTop(of ancestor: ObjectID, _ version: ObjectID, path: String) throws -> Bool {
        try version == ancestor || reaches(version, ancestor, path: path)
    }

    /// True when `ancestor` is among the versions `version` was made from, directly or not.
    private func reaches(_ version: ObjectID, _ ancestor: ObjectID, path: String) throws -> Bool {
        guard try isDescendant(version, of: ancestor) else { return false }
        var visited: Set<ObjectID> = [version]
        var stack = [version]
        while let next = stack.popLast() {
            for predecessor in try predecessors(of: next, path: path) where visited.insert(predecessor).inserted {
                if predecessor == ancestor { return true }
                // Versions below the ancestor's commit cannot lead back up to it.
                if try isDescendant(predecessor, of: ancestor) { stack.append(predecessor) }
            }
        }
        return false
    }
}

// MARK: - Decisions on a line

extension VersionGraph {
    /// The newest explicit decision about each document on the line from `head` back to
    /// `base` (exclusive): commits carrying `Docver-Resolved`, `Docver-Removed` or
    /// `Docver-Replaced` records. Of concurrent decisions the line holds (its devices' lines
    /// met and one decision won), the newest one that kept the state the head holds: the
    /// losing one is already recorded, and taking it for the side would leave the winner's
    /// decision unrecorded when the side loses (R9; pinned by `replayedFindingsStayFixed`).
    /// Cost: the commits since the base.
    /// (docs/MODEL.md: R8, R14.)
    func decisions(from head: ObjectID, since base: ObjectID?) throws -> [DocumentPath: ObjectID] {
        var found: [DocumentPath: [ObjectID]] = [:]
        let walk = try repository.revwalk(from: [head], hiding: base.map { [$0] } ?? [], topological: true)
        while let id = try walk.next() {
            for document in try repository.commit(id).decision.documents {
                found[document, default: []].append(id)
            }
        }
        var result: [DocumentPath: ObjectID] = [:]
        for (document, ids) in found {
            guard ids.count > 1 else { result[document] = ids[0]; continue }
            let held = try state(of: document.path, at: head)
            result[document] = try ids.first { id in try keptState(by: id, of: document.path) == held } ?? ids[0]
        }
        return result
    }
}
