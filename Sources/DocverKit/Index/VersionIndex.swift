import Foundation

/// The per-document version index: for every indexed commit, its parents, its generation
/// number, and which documents differ from each parent (with how). Derived from the
/// repository and kept under `.git/docver/version-index`; every entry is a fact about an
/// immutable commit, so the index can lack commits but never be wrong about one.
///
/// It answers the questions history walks used to answer by reading trees — which commit
/// introduced a document's state, whether one commit descends from another — in memory, in
/// time proportional to the commits passed, never reading an object. The commits it knows
/// are closed under ancestry: a commit is only added after its parents.
struct VersionIndex: Sendable {
    /// The differences between a commit and one parent, sorted by document number.
    struct ChangeList: Sendable {
        var documents: [Int32] = []
        var kinds: [IndexedChangeKind] = []

        func kind(of document: Int32) -> IndexedChangeKind? {
            var low = 0, high = documents.count
            while low < high {
                let middle = (low + high) / 2
                if documents[middle] < document { low = middle + 1 } else { high = middle }
            }
            return low < documents.count && documents[low] == document ? kinds[low] : nil
        }

        func contains(_ document: Int32) -> Bool { kind(of: document) != nil }
    }

    struct Node: Sendable {
        var id: ObjectID
        var parents: [Int32]
        /// 1 for a root, else one more than the greatest parent's: a commit's generation is
        /// greater than every ancestor's, which prunes ancestry searches.
        var generation: Int32
        /// Per parent (one list against the empty tree for a root).
        var changes: [ChangeList]
        var mentioned: [Int32]
        var time: Int64
        var tree: ObjectID?
    }

    private(set) var documents: [String] = []
    /// Keyed by bytes: two spellings of one name are two documents (docs/FORMAT.md, "Names").
    private var documentNumbers: [ByteString: Int32] = [:]
    private(set) var nodes: [Node] = []
    private var nodeNumbers: [ObjectID: Int32] = [:]
    private var hasChildren: [Bool] = []

    /// nil for an index of every document. Otherwise the index was read for this one
    /// document (`docver log DOC`, `docver versions DOC`): it has every commit and its
    /// parents, but change lists and mentions of that document only, so it answers questions
    /// about that document and nothing else (the others answer nil, and callers walk history).
    private(set) var scope: String?
    /// For an index read for one document: the whole change lists of the commits read from
    /// the file, decoded on demand (``changes(of:)``).
    var storedChanges: StoredChanges?

    init() {}

    init(scope: String) { self.scope = scope }

    mutating func reserveCapacity(_ commits: Int) {
        nodes.reserveCapacity(commits)
        nodeNumbers.reserveCapacity(commits)
        hasChildren.reserveCapacity(commits)
    }

    /// Whether this index can answer questions about `path`.
    func covers(_ path: String) -> Bool { scope.map { $0.bytesEqual(path) } ?? true }

    var count: Int { nodes.count }

    func number(of commit: ObjectID) -> Int32? { nodeNumbers[commit] }
    /// The tree of an indexed commit (nil when not indexed, or not recorded).
    func tree(of commit: ObjectID) -> ObjectID? { nodeNumbers[commit].flatMap { nodes[Int($0)].tree } }
    func number(ofDocument path: String) -> Int32? { documentNumbers[ByteString(path)] }
    func contains(_ commit: ObjectID) -> Bool { nodeNumbers[commit] != nil }

    /// Commits no indexed commit has as a parent: the tips the index was built from.
    var tips: [ObjectID] { nodes.indices.filter { !hasChildren[$0] }.map { nodes[$0].id } }

    private mutating func intern(_ path: String) -> Int32 {
        if let known = documentNumbers[ByteString(path)] { return known }
        let number = Int32(documents.count)
        documents.append(path)
        documentNumbers[ByteString(path)] = number
        return number
    }

    /// Adds a commit whose parents are all indexed; false (and nothing added) otherwise, or
    /// when its change lists do not match its parents. A commit already known is skipped.
    @discardableResult
    mutating func add(_ commit: IndexedCommit) -> Bool {
        if nodeNumbers[commit.id] != nil { return true }
        guard commit.changes.count == max(commit.parents.count, 1), commit.parents.allSatisfy({ nodeNumbers[$0] != nil }) else {
            return false
        }
        // An index of one document keeps that document's entries only (commits learned from
        // the repository arrive whole). Names are bytes: two spellings are two documents.
        var lists = commit.changes, mentions = commit.mentioned
        if let scope {
            // (Those read from the file for one document hold nothing else: nothing to copy.)
            if lists.contains(where: { $0.contains { !$0.document.bytesEqual(scope) } }) {
                lists = lists.map { $0.filter { $0.document.bytesEqual(scope) } }
            }
            if mentions.contains(where: { !$0.bytesEqual(scope) }) { mentions = mentions.filter { $0.bytesEqual(scope) } }
        }
        return insert(
            commit.id, parents: commit.parents, changes: lists.map { $0.map { (intern($0.document), $0.kind) } },
            mentioned: mentions.map { intern($0) }, time: commit.time, tree: commit.tree)
    }

    /// The document numbers of a file segment's strings (``VersionIndexFile/read(_:strings:commit:)``),
    /// each string interned once for all the changes that name it.
    mutating func documentNumbers(of strings: [String]) -> [Int32] { strings.map { intern($0) } }

    /// ``add(_:)`` for a commit read from the file, its documents numbered by
    /// ``documentNumbers(of:)`` of its segment's strings. Only for an index of every document.
    mutating func add(_ record: borrowing VersionIndexFile.RecordedCommit, documents: [Int32]) -> Bool {
        precondition(scope == nil, "a record read whole is for an index of every document")
        if nodeNumbers[record.id] != nil { return true }
        return insert(
            record.id, parents: record.parents,
            changes: record.listEnds.indices.map { list in record.changes(ofList: list).map { (documents[Int($0.string)], $0.kind) } },
            mentioned: record.mentioned.map { documents[Int($0)] }, time: record.time, tree: record.tree)
    }

    /// Adds a commit whose documents are numbered: false (and nothing added) when a parent is
    /// not indexed.
    private mutating func insert(
        _ id: ObjectID, parents parentIDs: [ObjectID], changes: [[(Int32, IndexedChangeKind)]], mentioned: [Int32],
        time: Int64, tree: ObjectID?
    ) -> Bool {
        var parents: [Int32] = []
        parents.reserveCapacity(parentIDs.count)
        var generation: Int32 = 0
        for parent in parentIDs {
            guard let number = nodeNumbers[parent] else { return false }
            parents.append(number)
            generation = max(generation, nodes[Int(number)].generation)
        }
        let lists = changes.map { entries -> ChangeList in
            // (Numbers follow the order documents were met, not the path order of the lists.)
            var entries = entries
            if !zip(entries, entries.dropFirst()).allSatisfy({ $0.0 < $1.0 }) { entries.sort { $0.0 < $1.0 } }
            return ChangeList(documents: entries.map(\.0), kinds: entries.map(\.1))
        }
        let number = Int32(nodes.count)
        nodes.append(
            Node(id: id, parents: parents, generation: generation + 1, changes: lists, mentioned: mentioned, time: time, tree: tree))
        nodeNumbers[id] = number
        hasChildren.append(false)
        for parent in parents { hasChildren[Int(parent)] = true }
        return true
    }

    /// The commit as it was added (for writing the index, and for comparing two indexes).
    /// Only an index of every document is ever written.
    func indexedCommit(_ number: Int32) -> IndexedCommit {
        precondition(scope == nil, "an index read for one document is never written")
        let node = nodes[Int(number)]
        return IndexedCommit(
            id: node.id, parents: node.parents.map { nodes[Int($0)].id },
            changes: node.changes.map { list in
                zip(list.documents, list.kinds).map { (documents[Int($0)], $1) }
                    .sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            },
            mentioned: node.mentioned.map { documents[Int($0)] }, time: node.time, tree: node.tree)
    }

    /// The commits reachable from `head`, in the order of the libgit2 revwalk the log used
    /// (`GIT_SORT_NONE`, nothing hidden): a list of pending commits ordered by committer time,
    /// newest first, a commit entering after those of the same time already there; the first
    /// is taken and its parents not yet seen enter, in parent order. The same order from the
    /// index, in memory, without reading a commit. nil when `head` is not indexed.
    func revwalkOrder(from head: ObjectID) -> RevwalkOrder? {
        guard let number = nodeNumbers[head] else { return nil }
        return RevwalkOrder(index: self, head: number)
    }

    struct RevwalkOrder: IteratorProtocol {
        let index: VersionIndex
        private var seen: [Bool]
        /// (time, order of entry): newest time first, then first in first out.
        private var heap = PriorityHeap<(time: Int64, sequence: Int, number: Int32)> { a, b in
            a.time != b.time ? a.time > b.time : a.sequence < b.sequence
        }
        private var sequence = 0

        init(index: VersionIndex, head: Int32) {
            self.index = index
            seen = Array(repeating: false, count: index.count)
            enter(head)
        }

        private mutating func enter(_ number: Int32) {
            seen[Int(number)] = true
            heap.push((index.nodes[Int(number)].time, sequence, number))
            sequence += 1
        }

        mutating func next() -> ObjectID? {
            guard let top = heap.pop() else { return nil }
            for parent in index.nodes[Int(top.number)].parents where !seen[Int(parent)] { enter(parent) }
            return index.nodes[Int(top.number)].id
        }
    }
}

// MARK: Answers

extension VersionIndex {
    /// The documents `commit` changed against its first parent (all its documents for a
    /// root), with how; nil when the commit is not indexed.
    func changes(of commit: ObjectID) -> [(document: String, kind: IndexedChangeKind)]? {
        guard let number = nodeNumbers[commit] else { return nil }
        if scope != nil { return storedChanges?.firstChangeList(ofNode: Int(number)) }
        let list = nodes[Int(number)].changes[0]
        return zip(list.documents, list.kinds).map { (documents[Int($0)], $1) }
    }

    /// True when a log of `document` lists `commit`: a save or resolution that changed it
    /// against its parent, a root that holds it, or any commit whose records name it.
    /// nil when the commit is not indexed.
    func touches(_ commit: ObjectID, document path: String) -> Bool? {
        guard covers(path), let number = nodeNumbers[commit] else { return nil }
        guard let document = documentNumbers[ByteString(path)] else { return false }
        let node = nodes[Int(number)]
        if node.mentioned.contains(document) { return true }
        return node.parents.count <= 1 && node.changes[0].contains(document)
    }

    /// True when `commit` is a strict descendant of `ancestor`; nil when either is not indexed.
    /// Generation numbers stop the search at commits older than the ancestor.
    func isDescendant(_ commit: ObjectID, of ancestor: ObjectID) -> Bool? {
        guard let start = nodeNumbers[commit], let target = nodeNumbers[ancestor] else { return nil }
        return isDescendant(start, of: target)
    }

    func isDescendant(_ start: Int32, of target: Int32) -> Bool {
        let floor = nodes[Int(target)].generation
        guard start != target, nodes[Int(start)].generation > floor else { return false }
        var visited: Set<Int32> = [start]
        var stack = [start]
        while let number = stack.popLast() {
            for parent in nodes[Int(number)].parents {
                if parent == target { return true }
                if nodes[Int(parent)].generation > floor, visited.insert(parent).inserted { stack.append(parent) }
            }
        }
        return false
    }

    /// ``isDescendant(_:of:)`` for many questions about one ancestor: `known` remembers, per
    /// commit number, whether it strictly descends from `target`, so across all the questions
    /// each commit is visited once (a join asks it of every contested document's version,
    /// and each search alone could walk a whole side's line back to the merge base).
    func isDescendant(_ start: Int32, of target: Int32, remembering known: inout [Int32: Bool]) -> Bool {
        let floor = nodes[Int(target)].generation
        guard start != target, nodes[Int(start)].generation > floor else { return false }
        if let answer = known[start] { return answer }
        // Depth first, the path from `start` on the stack: when a parent is (or descends from)
        // the target, so does every commit on the path; a commit whose parents all do not,
        // does not.
        var stack: [(node: Int32, next: Int)] = [(start, 0)]
        while let (node, next) = stack.last {
            let parents = nodes[Int(node)].parents
            guard next < parents.count else {
                known[node] = false
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].next = next + 1
            let parent = parents[next]
            if parent == target || known[parent] == true {
                for step in stack { known[step.node] = true }
                return true
            }
            guard known[parent] == nil, nodes[Int(parent)].generation > floor else { continue }
            stack.append((parent, 0))
        }
        return false
    }

    /// ``VersionGraph/introducingCommit(of:from:)`` from the index: the same walk, the same
    /// answer, without reading a tree. `absent` says whether `path` is absent at `start`
    /// (the caller knows it from one tree lookup). nil when `start` is not indexed.
    /// `runs` crosses each line of saves in one step once made (same answer).
    func introducingCommit(of path: String, from start: ObjectID, absent: Bool, runs: IndexRunsMemo? = nil) -> ObjectID? {
        guard covers(path), let startNumber = nodeNumbers[start] else { return nil }
        // A document the index never saw change is in the same state since the roots.
        let document = documentNumbers[ByteString(path)] ?? -1
        let found = introducingNode(of: document, from: startNumber, absent: absent, runs: runs?.runs(for: self, limit: nil))
        return nodes[Int(found)].id
    }

    /// The version walk (``VersionWalk/introducingCommit(in:from:absent:)``) of document
    /// number `document` (-1 for one the index never saw change) from commit number `start`,
    /// crossing each run of `runs` in one step when given.
    /// (docs/MODEL.md: R4.)
    func introducingNode(of document: Int32, from start: Int32, absent: Bool, runs: IndexRuns? = nil) -> Int32 {
        VersionWalk.introducingCommit(in: IndexedHistory(index: self, document: document, runs: runs), from: start, absent: absent)
    }

    /// ``VersionGraph/introducingCommits(ofStateOf:at:)`` from the index, for a document
    /// present at `start`: every commit that introduced its state there, along every line
    /// that holds that state, in first-parent-first order (the version walk's answer first).
    /// nil when `start` is not indexed. `limit` bounds the commits passed.
    /// `runs` crosses each line of saves in one step, once the searches made through it have
    /// passed as many commits as the index holds (same answers).
    func introducingCommits(ofStateOf path: String, at start: ObjectID, limit: Int, runs: IndexRunsMemo? = nil) -> [ObjectID]? {
        guard covers(path), let startNumber = nodeNumbers[start] else { return nil }
        let document = documentNumbers[ByteString(path)] ?? -1
        let history = IndexedHistory(index: self, document: document, runs: runs?.runs(for: self, limit: limit))
        var passed = 0
        let found = VersionWalk.introducingCommits(ofStateIn: history, at: startNumber, limit: limit, passed: &passed)
        runs?.walked(passed)
        return found.map { nodes[Int($0)].id }
    }

    /// The introducing commit of many documents present at `head`, and the commit that began
    /// each one's present run (its oldest version since it last appeared): one walk shared by
    /// all documents, each commit visited once, newest generation first. Work: the commits
    /// passed plus the changes they hold. Documents not present at `head` must not be asked.
    func presentVersions(of paths: [String], from head: ObjectID) -> [ByteString: (current: ObjectID, appeared: ObjectID, appearedAtRoot: Bool)]? {
        guard scope == nil, let headNumber = nodeNumbers[head] else { return nil }
        var unknown: [String] = []
        var start = Set<Int32>()
        for path in paths {
            if let document = documentNumbers[ByteString(path)] { start.insert(document) } else { unknown.append(path) }
        }
        var current: [Int32: Int32] = [:]
        var appeared: [Int32: (Int32, Bool)] = [:]
        // Sets meet at merges: the smaller joins the larger.
        var walk = SharedWalk<Set<Int32>>(isEmpty: \.isEmpty) { existing, more in
            if existing.count < more.count { existing = more.union(existing) } else { existing.formUnion(more) }
        }
        walk.forward(start, to: headNumber, generation: nodes[Int(headNumber)].generation)
        while case (let number, var documents)? = walk.next() {
            let node = nodes[Int(number)]
            if node.parents.isEmpty {
                for document in documents {
                    if current[document] == nil { current[document] = number }
                    appeared[document] = (number, true)
                }
                continue
            }
            let first = node.changes[0]
            var moved: [Int32: Set<Int32>] = [:]
            var versions: [Int32] = []
            func visit(_ document: Int32, _ kind: IndexedChangeKind) {
                documents.remove(document)
                // Present here, different in the first parent: follow the first parent holding
                // the same state, else this commit introduced it.
                if let same = node.parents.indices.dropFirst().first(where: { !node.changes[$0].contains(document) }) {
                    moved[node.parents[same], default: []].insert(document)
                    return
                }
                if current[document] == nil { current[document] = number }
                appeared[document] = (number, false)
                if kind == .modified { versions.append(document) }
            }
            if first.documents.count <= documents.count {
                for (document, kind) in zip(first.documents, first.kinds) where documents.contains(document) { visit(document, kind) }
            } else {
                for document in Array(documents) { if let kind = first.kind(of: document) { visit(document, kind) } }
            }
            // Those still present in the first parent walk on through it.
            documents.formUnion(versions)
            walk.forward(documents, to: node.parents[0], generation: nodes[Int(node.parents[0])].generation)
            for (parent, set) in moved { walk.forward(set, to: parent, generation: nodes[Int(parent)].generation) }
        }
        var result: [ByteString: (current: ObjectID, appeared: ObjectID, appearedAtRoot: Bool)] = [:]
        for (document, version) in current {
            let (began, atRoot) = appeared[document]!
            result[ByteString(documents[Int(document)])] = (nodes[Int(version)].id, nodes[Int(began)].id, atRoot)
        }
        // Never changed anywhere the index saw: present since a root on the first-parent line.
        if !unknown.isEmpty {
            var root = headNumber
            while let parent = nodes[Int(root)].parents.first { root = parent }
            for path in unknown { result[ByteString(path)] = (nodes[Int(root)].id, nodes[Int(root)].id, true) }
        }
        return result
    }

    /// The documents some indexed commit deleted against some parent: only for those can the
    /// absence before a document's appearance be a deletion rather than a beginning, so only
    /// those need the full history walk.
    func deletedDocuments() -> Set<ByteString> {
        precondition(scope == nil, "asked an index read for one document about every document")
        var result = Set<Int32>()
        for node in nodes {
            for list in node.changes {
                for (document, kind) in zip(list.documents, list.kinds) where kind == .deleted {
                    result.insert(document)
                }
            }
        }
        return Set(result.map { ByteString(documents[Int($0)]) })
    }
}

/// The frontier of a walk that many documents share: per commit, the work still carried to
/// it (merged when several children reach the same parent), handed out newest generation
/// first, so each commit is visited once, after all its children.
private struct SharedWalk<Work> {
    private var pending: [Int32: Work] = [:]
    /// Commit numbers by generation, highest first (children before their parents).
    private var heap = PriorityHeap<(generation: Int32, number: Int32)> { a, b in
        (a.generation, a.number) > (b.generation, b.number)
    }
    let isEmpty: (Work) -> Bool
    let merge: (inout Work, Work) -> Void

    init(isEmpty: @escaping (Work) -> Bool, merge: @escaping (inout Work, Work) -> Void) {
        self.isEmpty = isEmpty
        self.merge = merge
    }

    mutating func forward(_ work: Work, to number: Int32, generation: Int32) {
        guard !isEmpty(work) else { return }
        if var existing = pending.removeValue(forKey: number) {
            merge(&existing, work)
            pending[number] = existing
        } else {
            pending[number] = work
            heap.push((generation, number))
        }
    }

    mutating func next() -> (Int32, Work)? {
        while let (_, number) = heap.pop() {
            if let work = pending.removeValue(forKey: number) { return (number, work) }
        }
        return nil
    }
}

extension IndexedChangeKind {
    /// The user's word for the change.
    var change: ChangeKind {
        switch self {
        case .added: .added
        case .deleted: .deleted
        case .modified: .modified
        }
    }
}

extension VersionIndex {
    /// ``introducingCommit(of:from:absent:)`` for many documents at once: one walk from
    /// `head` shared by all of them, each commit visited once (newest generation first), so
    /// the cost is the commits passed plus their changes, not documents × history. `absent`
    /// names the documents absent at `head`. nil when `head` is not indexed.
    func introducingCommits(of paths: [String], absent: Set<ByteString>, from head: ObjectID) -> [ByteString: ObjectID]? {
        guard scope == nil, let headNumber = nodeNumbers[head] else { return nil }
        var result: [ByteString: ObjectID] = [:]
        // Per commit, the documents still walking: number → is absent.
        var walk = SharedWalk<[Int32: Bool]>(isEmpty: \.isEmpty) { existing, more in existing.merge(more) { first, _ in first } }
        var start: [Int32: Bool] = [:]
        for path in paths {
            if let document = documentNumbers[ByteString(path)] {
                start[document] = absent.contains(ByteString(path))
            } else {
                // Never changed anywhere indexed: the walk of one document answers at once.
                result[ByteString(path)] = nodes[Int(introducingNode(of: -1, from: headNumber, absent: absent.contains(ByteString(path))))].id
            }
        }
        walk.forward(start, to: headNumber, generation: nodes[Int(headNumber)].generation)
        while case (let number, var documents)? = walk.next() {
            let node = nodes[Int(number)]
            if node.parents.isEmpty {
                for document in documents.keys { result[ByteString(self.documents[Int(document)])] = node.id }
                continue
            }
            var moved: [Int32: [Int32: Bool]] = [:]
            func resolve(_ document: Int32, at resolved: Int32) {
                result[ByteString(self.documents[Int(document)])] = nodes[Int(resolved)].id
            }
            // Documents that differ from the first parent, and (at a merge) absent documents,
            // whose other parents decide: the version walk's step, document by document.
            var special: [Int32] = []
            let first = node.changes[0]
            if first.documents.count <= documents.count {
                special = first.documents.filter { documents[$0] != nil }
            } else {
                special = documents.keys.filter { first.contains($0) }
            }
            if node.parents.count > 1 {
                for (document, isAbsent) in documents where isAbsent && !first.contains(document) { special.append(document) }
            }
            for document in special {
                guard let isAbsent = documents.removeValue(forKey: document) else { continue }
                let history = IndexedHistory(index: self, document: document)
                switch VersionWalk.step(in: history, at: number, absent: isAbsent) {
                case .introducedHere: resolve(document, at: number)
                case .parent(let next): moved[next, default: [:]][document] = isAbsent
                case .searchDeletions: resolve(document, at: VersionWalk.latestDeletion(in: history, from: number))
                }
            }
            walk.forward(documents, to: node.parents[0], generation: nodes[Int(node.parents[0])].generation)
            for (parent, set) in moved { walk.forward(set, to: parent, generation: nodes[Int(parent)].generation) }
        }
        return result
    }
}

/// The whole change lists of the commits an index read for one document took from the file,
/// decoded one commit at a time when asked (a log entry lists every document its save changed).
final class StoredChanges: Sendable {
    private let bytes: [UInt8]
    private let strings: [[Int]]
    /// Per node number; nodes beyond were learned from the repository, not read.
    private let locations: [VersionIndexFile.ChangeLocation]

    init(bytes: [UInt8], strings: [[Int]], locations: [VersionIndexFile.ChangeLocation]) {
        self.bytes = bytes
        self.strings = strings
        self.locations = locations
    }

    func firstChangeList(ofNode number: Int) -> [(document: String, kind: IndexedChangeKind)]? {
        guard number < locations.count else { return nil }
        return VersionIndexFile.firstChangeList(in: bytes, strings: strings, at: locations[number])
    }
}
