/// One document's history as the version walks read it (docs/MODEL.md, section 4): each
/// commit's parents, and whether the document is in the same state in a commit as in each of
/// its parents.
///
/// Two sources answer: the repository, by comparing trees (`VersionGraph.TreeHistory`), and
/// the version index, from its change lists (``IndexedHistory``). The walks are written once,
/// over either, in ``VersionWalk``; the index only answers faster, never differently.
protocol CommitSource {
    /// A commit as the source names it.
    associatedtype Node: Hashable
    /// What reading the source can throw: nothing for the index.
    associatedtype Failure: Error

    /// The commit's parents, in order (none for a root).
    func parents(of node: Node) throws(Failure) -> [Node]

    /// Whether the document is in the same state at `node` as at its parent number `parent`
    /// (an index into ``parents(of:)``). Absence is a state: a document absent in both is in
    /// the same state.
    func holdsSameState(_ node: Node, asParent parent: Int) throws(Failure) -> Bool

    /// Whether `node` strictly descends from `ancestor`.
    func isDescendant(_ node: Node, of ancestor: Node) throws(Failure) -> Bool

    /// The version walk's answer at `node`, when the source already knows it (a memo of
    /// earlier walks); nil to walk on.
    func knownVersion(at node: Node) -> Node?

    /// Where the walks, entering `node`, stop in its run of one-parent commits, when the
    /// source can say without passing each commit (``IndexRuns``); nil for a merge or a root,
    /// or to step commit by commit. The walks count only the commits they stop at, so a
    /// source that answers holds fewer commits than any limit a walk is given, and has no
    /// ``knownVersion(at:)`` for the commits crossed.
    func runStop(from node: Node) -> RunStop<Node>?
}

/// Where a walk entering a run of one-parent commits stops: the walk goes from such a commit
/// to its parent exactly when the commit did not change the document.
enum RunStop<Node> {
    /// The first commit at or below the one entered that changed the document.
    case changed(Node)
    /// No commit from there down changed it: the merge or root the run begins at.
    case base(Node)
}

extension CommitSource {
    func knownVersion(at node: Node) -> Node? { nil }

    func runStop(from node: Node) -> RunStop<Node>? { nil }

    /// The parents of `node` holding the document in the same state, in order.
    func parentsInSameState(of node: Node) throws(Failure) -> [Node] {
        let parents = try parents(of: node)
        var result: [Node] = []
        for index in parents.indices where try holdsSameState(node, asParent: index) {
            result.append(parents[index])
        }
        return result
    }
}

/// The walks of a document's version graph over commits (docs/MODEL.md, R4), each written
/// once, over any ``CommitSource``.
enum VersionWalk {
    /// The commit that introduced the state (contents, or absence) the document has at
    /// `start`: walks back while a parent has the same state, preferring the first such
    /// parent, as git's history simplification does. Its cost is the distance to that commit.
    /// A root commit introduced whatever state it holds.
    ///
    /// The absence of a document is the one state that several lines can hold for unrelated
    /// reasons: one line deleted the document, another never had it (a device that saved on
    /// from before the document existed). When an integration joins such lines, the first
    /// parent may be the one that never had it, and the walk would end at a root as if the
    /// document had never been saved, losing its deletion. So when the walk through an
    /// absence (`absent`: the document is absent at `start`) meets a commit with several
    /// parents lacking the document, every such line is searched (``latestDeletion(in:from:)``).
    /// (docs/MODEL.md: R4, R17.)
    static func introducingCommit<Source: CommitSource>(in source: Source, from start: Source.Node, absent: Bool) throws(Source.Failure)
        -> Source.Node
    {
        var current = start
        while true {
            // Up to here the walk had a single way back, so the answer there is the answer here.
            if let known = source.knownVersion(at: current) { return known }
            // (In a run of one-parent commits the step is the comparison with the parent.)
            switch source.runStop(from: current) {
            case .changed(let change)?: return change
            case .base(let base)?:
                current = base
                continue
            case nil: break
            }
            switch try step(in: source, at: current, absent: absent) {
            case .introducedHere: return current
            case .parent(let next): current = next
            case .searchDeletions: return try latestDeletion(in: source, from: current)
            }
        }
    }

    /// Where one step of the version walk goes from a commit.
    enum Step<Node> {
        /// No parent holds the state: this commit introduced it (a root introduced whatever
        /// it holds).
        case introducedHere
        /// The first parent holding the same state: the walk goes on there.
        case parent(Node)
        /// An absence several parents hold: ``latestDeletion(in:from:)`` answers from here.
        case searchDeletions
    }

    /// One step of ``introducingCommit(in:from:absent:)`` at `node`, where the document is
    /// absent when `absent` says so. Walks that follow many documents at once
    /// (`VersionIndex.introducingCommits(of:absent:from:)`) take each document's steps here.
    /// (docs/MODEL.md: R4.)
    static func step<Source: CommitSource>(in source: Source, at node: Source.Node, absent: Bool) throws(Source.Failure) -> Step<Source.Node> {
        let parents = try source.parents(of: node)
        var next: Source.Node?
        for index in parents.indices where try source.holdsSameState(node, asParent: index) {
            guard next == nil else { return .searchDeletions }
            next = parents[index]
            if !absent { break }
        }
        return next.map { .parent($0) } ?? .introducedHere
    }

    /// Where the absence of the document at `start` comes from, searching every line lacking
    /// it: the first deletion (in first-parent-first order) that no other deletion found
    /// descends from; the first root reached when no line from `start` ever had the document.
    /// (docs/MODEL.md: R4.)
    static func latestDeletion<Source: CommitSource>(in source: Source, from start: Source.Node) throws(Source.Failure) -> Source.Node {
        var deletions: [Source.Node] = []
        var firstRoot: Source.Node?
        var visited: Set<Source.Node> = []
        var stack = [start]
        while let node = stack.popLast() {
            guard visited.insert(node).inserted else { continue }
            // The walk only enters commits lacking the document, so a parent lacks it exactly
            // when it is in the same state.
            let lacking = try source.parentsInSameState(of: node)
            if lacking.isEmpty {
                if try source.parents(of: node).isEmpty { firstRoot = firstRoot ?? node } else { deletions.append(node) }
            } else {
                stack.append(contentsOf: lacking.reversed())
            }
        }
        search: for deletion in deletions {
            for other in deletions where other != deletion {
                if try source.isDescendant(other, of: deletion) { continue search }
            }
            return deletion
        }
        return firstRoot ?? start
    }

    /// Every commit that introduced the state the document has at `start`, along every line
    /// that holds that state, in first-parent-first order (the version walk's answer first,
    /// for a document present at `start`). At most `limit` commits are passed; past it the
    /// search keeps what it found, in the same order on every device holding the same commits.
    /// (docs/MODEL.md, "Version": a state several versions hold is every one of them.)
    static func introducingCommits<Source: CommitSource>(ofStateIn source: Source, at start: Source.Node, limit: Int) throws(Source.Failure)
        -> [Source.Node]
    {
        var passed = 0
        return try introducingCommits(ofStateIn: source, at: start, limit: limit, passed: &passed)
    }

    /// ``introducingCommits(ofStateIn:at:limit:)``, adding the number of commits it passed to
    /// `passed` (``IndexRunsMemo`` decides by it when to cross runs in one step).
    static func introducingCommits<Source: CommitSource>(
        ofStateIn source: Source, at start: Source.Node, limit: Int, passed: inout Int
    ) throws(Source.Failure) -> [Source.Node] {
        var result: [Source.Node] = []
        var visited: Set<Source.Node> = []
        var stack = [start]
        while let node = stack.popLast(), visited.count < limit {
            guard visited.insert(node).inserted else { continue }
            // Down a run: its first change introduced the state (unless another line of the
            // search reached that commit already); without one, on to the run's base.
            switch source.runStop(from: node) {
            case .changed(let change)?:
                if change == node || visited.insert(change).inserted { result.append(change) }
                continue
            case .base(let base)?:
                stack.append(base)
                continue
            case nil: break
            }
            // The walk only enters commits holding the state.
            let same = try source.parentsInSameState(of: node)
            if same.isEmpty { result.append(node) } else { stack.append(contentsOf: same.reversed()) }
        }
        passed += visited.count
        return result
    }
}

/// One document's history in the version index: the commits by number, the changes from
/// the change lists, ancestry from the generation numbers. Never reads an object.
struct IndexedHistory: CommitSource {
    typealias Failure = Never

    let index: VersionIndex
    /// The document's number in the index; -1 for a document the index never saw change (in
    /// the same state since the roots).
    let document: Int32
    /// The index's runs, when made for it as it is (``IndexRunsMemo``): runs of one-parent
    /// commits are then crossed in one step.
    var runs: IndexRuns? = nil

    func runStop(from node: Int32) -> RunStop<Int32>? { runs?.stop(of: document, from: node, in: index) }

    func parents(of node: Int32) -> [Int32] { index.nodes[Int(node)].parents }

    func holdsSameState(_ node: Int32, asParent parent: Int) -> Bool {
        !index.nodes[Int(node)].changes[parent].contains(document)
    }

    func isDescendant(_ node: Int32, of ancestor: Int32) -> Bool { index.isDescendant(node, of: ancestor) }
}
