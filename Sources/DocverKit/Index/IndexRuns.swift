/// The version index's commits as runs, so that the search for every version holding a state
/// (``VersionWalk/introducingCommits(ofStateIn:at:limit:)``) crosses a line of saves in one
/// step instead of one commit at a time.
///
/// A commit with one parent continues its parent's run; a merge or a root begins one. The
/// runs form a forest: each commit with one parent hangs from its parent, each merge or root
/// is a tree's root (the run's *base*). Numbered in the order of a depth-first tour, a commit's
/// run ancestors are the commits whose interval holds its number. A device that saved
/// 2,500 times offline is one run: the search from the parent of one of its versions went
/// back through every save since the document last changed, for each of the thousands of
/// versions a join lists; here it finds the document's last change in that run among the
/// few commits that changed it, or goes straight to the run's base.
///
/// The walks stay written once, in ``VersionWalk``: the runs only tell them where a run
/// stops them (``CommitSource/runStop(from:)``, through ``IndexedHistory``). A walk goes from
/// a commit with one parent to that parent exactly when the commit did not change the
/// document, so it passes down the run to the first commit that changed the document, or, if
/// none did, to the base, which it then steps through as before. Only the count of commits
/// passed differs, so the search with a limit is given runs only for an index of fewer
/// commits than the limit (``IndexRunsMemo``).
struct IndexRuns {
    /// The commits described, and the last one's id: an index that grew is described again.
    let count: Int
    let lastID: ObjectID?
    /// Per commit: the merge or root its run begins at (itself for those).
    private let base: [Int32]
    /// Per commit: its number in the depth-first tour of the forest, and one more than the
    /// greatest number among the commits hanging from it (its run descendants).
    private let enter: [Int32]
    private let exit: [Int32]
    /// Per document: the commits with one parent that changed it, by tour number.
    private let changedBy: [Int32: [Int32]]

    init(_ index: VersionIndex) {
        let nodes = index.nodes
        count = nodes.count
        lastID = nodes.last?.id
        var base = [Int32](repeating: 0, count: count)
        var childCounts = [Int32](repeating: 0, count: count + 1)
        // Parents are numbered before their children (a commit enters the index after them).
        for number in 0..<count {
            let parents = nodes[number].parents
            if parents.count == 1 {
                base[number] = base[Int(parents[0])]
                childCounts[Int(parents[0]) + 1] += 1
            } else {
                base[number] = Int32(number)
            }
        }
        // The run children of each commit, in one array (offsets from the counts).
        var offsets = childCounts
        for number in 0..<count { offsets[number + 1] += offsets[number] }
        var children = [Int32](repeating: 0, count: Int(offsets[count]))
        var filled = offsets
        for number in 0..<count where nodes[number].parents.count == 1 {
            let parent = Int(nodes[number].parents[0])
            children[Int(filled[parent])] = Int32(number)
            filled[parent] += 1
        }
        var enter = [Int32](repeating: 0, count: count), exit = [Int32](repeating: 0, count: count)
        var tour: Int32 = 0
        var stack: [(node: Int32, next: Int32)] = []
        for root in 0..<count where nodes[root].parents.count != 1 {
            enter[root] = tour
            tour += 1
            stack.append((Int32(root), offsets[root]))
            while let (node, next) = stack.last {
                if next < offsets[Int(node) + 1] {
                    stack[stack.count - 1].next = next + 1
                    let child = children[Int(next)]
                    enter[Int(child)] = tour
                    tour += 1
                    stack.append((child, offsets[Int(child)]))
                } else {
                    exit[Int(node)] = tour
                    stack.removeLast()
                }
            }
        }
        var changedBy: [Int32: [Int32]] = [:]
        for number in 0..<count where nodes[number].parents.count == 1 {
            for document in nodes[number].changes[0].documents { changedBy[document, default: []].append(Int32(number)) }
        }
        for document in changedBy.keys { changedBy[document]!.sort { enter[Int($0)] < enter[Int($1)] } }
        self.base = base
        self.enter = enter
        self.exit = exit
        self.changedBy = changedBy
    }

    /// Whether these runs describe `index` as it is now.
    func describe(_ index: VersionIndex) -> Bool { count == index.count && lastID == index.nodes.last?.id }

    /// ``CommitSource/runStop(from:)`` for `document` (-1: never changed) in `index`, which
    /// these runs describe: nil for a merge or a root.
    func stop(of document: Int32, from node: Int32, in index: VersionIndex) -> RunStop<Int32>? {
        guard index.nodes[Int(node)].parents.count == 1 else { return nil }
        if let changes = changedBy[document], let change = nearestChange(in: changes, atOrBelow: node) { return .changed(change) }
        return .base(base[Int(node)])
    }

    /// Of `changes` (commits with one parent, by tour number), the nearest at or below
    /// `node` in its run: the one with the greatest tour number whose interval holds
    /// `node`'s. nil when no commit from `node` down to its run's base is among them.
    private func nearestChange(in changes: [Int32], atOrBelow node: Int32) -> Int32? {
        let position = enter[Int(node)]
        var low = 0, high = changes.count
        while low < high {
            let middle = (low + high) / 2
            if enter[Int(changes[middle])] <= position { low = middle + 1 } else { high = middle }
        }
        // Going back from there, the first whose tour interval holds `node` is the nearest:
        // the others are in runs that branched off elsewhere.
        var candidate = low - 1
        while candidate >= 0 {
            let change = changes[candidate]
            if exit[Int(change)] > position { return change }
            candidate -= 1
        }
        return nil
    }
}

/// The runs of a ``VersionGraph``'s index, made once the searches they speed up have passed as
/// many commits as the index holds: a command that asks a few questions never pays for them,
/// and one that asks thousands (the conflict listing after a join) pays once, at most as much
/// as its searches had cost so far. Shared by the copies of one graph, which is used by one
/// thread at a time. The walks themselves are the index's (``VersionIndex/introducingNode(of:from:absent:runs:)``,
/// ``VersionIndex/introducingCommits(ofStateOf:at:limit:runs:)``); this only hands them runs.
final class IndexRunsMemo {
    private var runs: IndexRuns?
    private var passed = 0

    /// Whether the runs are made, for `index` as it is now.
    func hasRuns(for index: VersionIndex) -> Bool { runs?.describe(index) ?? false }

    /// The runs for a walk of `index`, made now if the searches so far have paid for them;
    /// nil while they have not, and for a walk whose `limit` the index reaches (a walk does
    /// not count the commits a run step crosses, so its limit would fall elsewhere).
    func runs(for index: VersionIndex, limit: Int?) -> IndexRuns? {
        if let limit, index.count >= limit { return nil }
        if !hasRuns(for: index), passed >= index.count {
            runs = IndexRuns(index)
            passed = 0
        }
        return hasRuns(for: index) ? runs : nil
    }

    /// Counts the commits a search passed commit by commit.
    func walked(_ commits: Int) { passed += commits }
}
