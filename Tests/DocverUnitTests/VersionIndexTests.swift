import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// The version index (docs/FORMAT.md, "The version index") against its oracle: the history
/// walk that reads trees (``VersionGraph`` without an index) and libgit2's ancestry, on
/// random commit graphs with saves, deletions, mode changes (also of a file at a folder's
/// name, which changes nothing below it), packages, merges of two or three parents and
/// unrelated roots.
@Suite struct VersionIndexTests {
    /// `e` and `e/f.txt` take turns: a document saved under a folder's name.
    static let paths = ["a.txt", "b.txt", "dir/c.txt", "dir/d.txt", "p.pkg/x", "p.pkg/y", "e", "e/f.txt"]
    static let documents = ["a.txt", "b.txt", "dir/c.txt", "dir/d.txt", "p.pkg", "never.txt", "dir/never.txt", "e", "e/f.txt"]

    /// A random commit graph: every commit with the files it holds.
    struct RandomHistory {
        var commits: [ObjectID] = []
        var files: [ObjectID: [String: String]] = [:]
        var heads: [ObjectID] = []

        init(_ scratch: TempRepository, seed: UInt64, count: Int) throws {
            var random = SeededRandom(seed: seed)
            var clock = 0
            var heads: [ObjectID?] = [nil, nil, nil]
            for _ in 0..<count {
                clock += 1
                let device = Int.random(in: 0..<heads.count, using: &random)
                var state = heads[device].map { files[$0]! } ?? [:]
                var parents = heads[device].map { [$0] } ?? []
                if !commits.isEmpty, heads[device] != nil, Int.random(in: 0..<5, using: &random) == 0 {
                    // A merge: the state of each path comes from a random parent, or is new.
                    let others = (0..<Int.random(in: 1...2, using: &random)).map { _ in commits.randomElement(using: &random)! }
                    for other in others where !parents.contains(other) { parents.append(other) }
                    for path in Self.pathsIn(parents.map { files[$0]! }) {
                        switch Int.random(in: 0..<6, using: &random) {
                        case 0: state[path] = "merged \(clock)"
                        default: state[path] = files[parents.randomElement(using: &random)!]![path]
                        }
                    }
                } else {
                    for _ in 0..<Int.random(in: 1...2, using: &random) {
                        let path = VersionIndexTests.paths.randomElement(using: &random)!
                        if let contents = state[path], Int.random(in: 0..<4, using: &random) == 0 {
                            // The same contents made executable, or plain again: a change of the
                            // file's mode only (and of nothing below a file at a folder's name).
                            state[path] =
                                contents.hasPrefix(Self.executable) ? String(contents.dropFirst(Self.executable.count)) : Self.executable + contents
                        } else if state[path] != nil, Bool.random(using: &random) {
                            if path.hasPrefix("p.pkg/") { state["p.pkg/x"] = nil; state["p.pkg/y"] = nil } else { state[path] = nil }
                        } else {
                            state[path] = "\(path) \(clock)"
                            if path == "e" { state["e/f.txt"] = nil }
                            if path == "e/f.txt" { state["e"] = nil }
                        }
                    }
                }
                if state["e"] != nil, state["e/f.txt"] != nil { state[Bool.random(using: &random) ? "e" : "e/f.txt"] = nil }
                let tree = try scratch.tree(
                    entries: state.mapValues { contents in
                        contents.hasPrefix(Self.executable)
                            ? try EntryState(scratch.blob(String(contents.dropFirst(Self.executable.count))), .executable)
                            : try EntryState(scratch.blob(contents), .blob)
                    })
                let id = try scratch.commit(tree: tree, parents: parents, device: "d\(device)", at: clock)
                commits.append(id)
                files[id] = state
                heads[device] = id
            }
            self.heads = heads.compactMap { $0 }
        }

        /// The mark of an executable file's contents in ``files`` (not part of the blob).
        static let executable = "+x "

        static func pathsIn(_ states: [[String: String]]) -> [String] {
            Array(Set(states.flatMap(\.keys))).sorted()
        }
    }

    static func index(of history: RandomHistory, in repository: Repository) throws -> VersionIndex {
        var index = VersionIndex()
        let store = VersionIndexStore(file: "/nonexistent/version-index", repository: repository)
        _ = try store.extend(&index, to: history.heads)
        return index
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func theIndexGivesTheHistoryWalksAnswers(seed: UInt64) throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: seed, count: 50)
        let index = try Self.index(of: history, in: scratch.repository)
        #expect(index.count == history.commits.count)
        let plain = VersionGraph(repository: scratch.repository)
        let indexed = VersionGraph(repository: scratch.repository, index: index)
        for commit in history.commits {
            for document in Self.documents {
                let expected = try plain.introducingCommit(of: document, from: commit)
                #expect(
                    try indexed.introducingCommit(of: document, from: commit) == expected,
                    "seed \(seed): \(document) from \(commit.hex.prefix(8))")
                let path = try DocumentPath(document)
                let current = try plain.currentVersion(of: path, at: commit)
                #expect(try indexed.currentVersion(of: path, at: commit) == current)
                if let current {
                    #expect(try indexed.history(of: path, after: current, limit: nil) == plain.history(of: path, after: current, limit: nil))
                }
            }
        }
    }

    @Test(arguments: [31, 32, 33, 34] as [UInt64])
    func theSharedWalkOfManyDocumentsGivesEachOnesWalk(seed: UInt64) throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: seed, count: 50)
        let index = try Self.index(of: history, in: scratch.repository)
        let plain = VersionGraph(repository: scratch.repository)
        let indexed = VersionGraph(repository: scratch.repository, index: index)
        for commit in history.commits {
            let all = try indexed.introducingCommits(of: Set(Self.documents.map { DocumentPath(trusted: $0) }), from: commit)
            for document in Self.documents {
                #expect(
                    all[DocumentPath(trusted: document)] == (try plain.introducingCommit(of: document, from: commit)), "seed \(seed): \(document)")
            }
        }
    }

    /// The integrator is a pure function of the heads: with the index (shared walks, lines,
    /// generation numbers) it must write the very commit it writes without.
    @Test(arguments: [41, 42, 43, 44, 45, 46] as [UInt64])
    func theIntegratorWritesTheSameCommitWithTheIndex(seed: UInt64) throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: seed, count: 40)
        let index = try Self.index(of: history, in: scratch.repository)
        var random = SeededRandom(seed: seed)
        for _ in 0..<6 {
            let heads = (0..<Int.random(in: 2...3, using: &random)).map { _ in history.commits.randomElement(using: &random)! }
            let plain = try Integrator(repository: scratch.repository).integrate(Array(heads.dropFirst()), into: heads[0])
            let indexed = try Integrator(repository: scratch.repository, index: index).integrate(Array(heads.dropFirst()), into: heads[0])
            #expect(indexed.head == plain.head, "seed \(seed)")
            #expect(indexed.conflicts == plain.conflicts)
        }
    }

    @Test(arguments: [7, 8, 9] as [UInt64])
    func ancestryFromGenerationNumbersMatchesLibgit2(seed: UInt64) throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: seed, count: 40)
        let index = try Self.index(of: history, in: scratch.repository)
        for a in history.commits {
            for b in history.commits {
                #expect(index.isDescendant(a, of: b) == (try scratch.repository.isDescendant(a, of: b)))
            }
        }
    }

    /// The remembered answers (one memory per ancestor, shared by every question about it, in
    /// a random order, as a join asks them) are libgit2's.
    @Test(arguments: [14, 15, 16] as [UInt64])
    func rememberedAncestryMatchesLibgit2(seed: UInt64) throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: seed, count: 40)
        let index = try Self.index(of: history, in: scratch.repository)
        var random = SeededRandom(seed: seed)
        var known: [Int32: [Int32: Bool]] = [:]
        var questions = history.commits.flatMap { a in history.commits.map { b in (a, b) } }
        questions.shuffle(using: &random)
        for (a, b) in questions {
            let start = try #require(index.number(of: a)), target = try #require(index.number(of: b))
            let answer = index.isDescendant(start, of: target, remembering: &known[target, default: [:]])
            #expect(answer == (try scratch.repository.isDescendant(a, of: b)))
        }
    }

    @Test(arguments: [10, 11, 12, 13] as [UInt64])
    func theSharedWalkGivesEachPresentDocumentsVersionAndAppearance(seed: UInt64) throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: seed, count: 50)
        let index = try Self.index(of: history, in: scratch.repository)
        let plain = VersionGraph(repository: scratch.repository)
        for commit in history.commits {
            let present = try Self.documents.filter { document in
                let entry = try scratch.entry(document, at: commit)
                return entry != nil && !(entry!.mode.isTree && !document.hasSuffix(".pkg"))  // documents, not plain folders
            }
            let answers = try #require(index.presentVersions(of: present, from: commit))
            #expect(answers.count == present.count)
            for document in present {
                var version = try plain.introducingCommit(of: document, from: commit)
                #expect(answers[ByteString(document)]?.current == version, "seed \(seed): \(document)")
                // The oldest version of the document's present run, by the walk that reads trees.
                var atRoot = false
                while true {
                    guard let parent = try scratch.repository.commit(version).parentIDs.first else { atRoot = true; break }
                    // The run ends where the parent lacks the document or holds a plain folder there.
                    guard let entry = try scratch.entry(document, at: parent), !(entry.mode.isTree && !document.hasSuffix(".pkg"))
                    else { break }
                    version = try plain.introducingCommit(of: document, from: parent)
                }
                #expect(answers[ByteString(document)]?.appeared == version, "seed \(seed): \(document) appeared")
                #expect(answers[ByteString(document)]?.appearedAtRoot == atRoot)
            }
        }
    }

    // MARK: The file

    @Test func aDeletedIndexIsRebuiltTheSame() throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: 21, count: 40)
        let file = scratch.url.path + "/.git/docver/version-index"
        let store = VersionIndexStore(file: file, repository: scratch.repository)
        let first = try store.load(covering: history.heads)
        let reloaded = try store.load(covering: history.heads)
        try FileManager.default.removeItem(atPath: file)
        let rebuilt = try store.load(covering: history.heads)
        #expect(Self.commits(of: first) == Self.commits(of: rebuilt))
        #expect(Self.commits(of: first) == Self.commits(of: reloaded))
        #expect(first.count == history.commits.count)
    }

    @Test func newCommitsAreAppendedAsOneSegmentAndReadBack() throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: 22, count: 30)
        let file = scratch.url.path + "/.git/docver/version-index"
        let store = VersionIndexStore(file: file, repository: scratch.repository)
        let old = history.commits[10]
        _ = try store.load(covering: [old])
        let sizeBefore = try #require(FileSystem.contentsIfReadable(file)).count
        let full = try store.load(covering: history.heads)
        let contents = try #require(VersionIndexFile.decode(FileSystem.contentsIfReadable(file) ?? Data()))
        #expect(contents.segments == 2 && contents.intact)
        #expect(try #require(FileSystem.contentsIfReadable(file)).count > sizeBefore)
        #expect(Self.commits(of: full) == Self.commits(of: try Self.index(of: history, in: scratch.repository)))
    }

    /// A crash mid-append leaves a torn segment; truncation, garbage and flipped bytes look
    /// alike. Each is detected, the index rebuilt, and its answers are the same.
    @Test(arguments: ["torn", "truncated", "garbage", "flipped", "wrong version", "empty"])
    func aDamagedIndexIsNeverTrusted(damage: String) throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: 23, count: 30)
        let file = scratch.url.path + "/.git/docver/version-index"
        let store = VersionIndexStore(file: file, repository: scratch.repository)
        let expected = Self.commits(of: try store.load(covering: history.heads))
        var data = try #require(FileSystem.contentsIfReadable(file))
        var random = SeededRandom(seed: 99)
        switch damage {
        case "torn":
            let next = VersionIndexFile.segment([IndexedCommit(id: history.commits[0], parents: [], changes: [[("zzz", .added)]], mentioned: [])])
            data.append(next.prefix(next.count - 3))
        case "truncated": data = data.prefix(Int.random(in: 9..<(data.count - 1), using: &random))
        case "garbage": data = Data((0..<200).map { _ in UInt8.random(in: 0...255, using: &random) })
        case "flipped":
            let offset = Int.random(in: 12..<data.count, using: &random)
            data[offset] ^= 0x5A
        case "wrong version": data[4] = 0x7F
        default: data = Data()
        }
        try AtomicFile.write(data, to: file)
        let loaded = try store.load(covering: history.heads)
        #expect(Self.commits(of: loaded) == expected)
        // The damaged file was replaced by an intact one.
        let contents = try #require(VersionIndexFile.decode(FileSystem.contentsIfReadable(file) ?? Data()))
        #expect(contents.intact && contents.commits.count == expected.count)
    }

    /// A sync report asks for the current version of many documents at one head through a
    /// reader of the head's tree, taking the head's entry for the version's (the introducing
    /// commit holds the same state): the same version as the one-by-one answer, with and
    /// without the index, for every document of the history (deleted, executable, a file or
    /// a folder at one name, inside a package) and one never saved, at every commit.
    @Test(arguments: [31, 32, 33] as [UInt64])
    func currentVersionsThroughTheHeadsTreeAreTheOneByOneAnswers(seed: UInt64) throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: seed, count: 40)
        let index = try Self.index(of: history, in: scratch.repository)
        let documents = Set((Self.paths + ["never.txt"]).map { DocumentPath.document(containingFile: $0) })
        for graph in [VersionGraph(repository: scratch.repository), VersionGraph(repository: scratch.repository, index: index)] {
            for commit in history.commits {
                let reader = try DocumentEntryReader(repository: scratch.repository, tree: scratch.repository.commit(commit).treeID)
                for document in documents {
                    // The definition (R4, R5): the introducing commit's version, none when never saved.
                    let introduced = try graph.introducingCommit(of: document.path, from: commit)
                    let expected = try graph.isNeverSaved(document.path, at: introduced) ? nil : graph.version(of: document, at: introduced)
                    #expect(try graph.currentVersion(of: document, at: commit, reading: reader) == expected, "\(document.path) at \(commit.hex)")
                    #expect(try graph.currentVersion(of: document, at: commit) == expected, "\(document.path) at \(commit.hex)")
                }
            }
        }
    }

    /// The file is read record by record, each segment's strings numbered once: an index
    /// written in many segments (so that later segments name documents in another order than
    /// the numbers they were given) reads back as the index it was written from, and answers
    /// every walk the same.
    @Test(arguments: [26, 27, 28] as [UInt64])
    func aFileOfManySegmentsReadsBackAsItsIndex(seed: UInt64) throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: seed, count: 40)
        let built = try Self.index(of: history, in: scratch.repository)
        let commits = (0..<Int32(built.count)).map(built.indexedCommit)
        var random = SeededRandom(seed: seed)
        var data = VersionIndexFile.header
        var start = 0
        while start < commits.count {
            let end = min(commits.count, start + Int.random(in: 1...8, using: &random))
            data.append(VersionIndexFile.segment(Array(commits[start..<end])))
            start = end
        }
        let file = scratch.url.path + "/.git/docver/version-index"
        try FileSystem.createDirectory(scratch.url.path + "/.git/docver")
        try AtomicFile.write(data, to: file)
        let loaded = try VersionIndexStore(file: file, repository: scratch.repository).load(covering: history.heads)
        #expect(Self.commits(of: loaded) == Self.commits(of: built))
        for head in history.heads {
            for path in built.documents {
                #expect(loaded.introducingCommit(of: path, from: head, absent: false) == built.introducingCommit(of: path, from: head, absent: false))
                #expect(loaded.introducingCommit(of: path, from: head, absent: true) == built.introducingCommit(of: path, from: head, absent: true))
            }
        }
    }

    /// A segment whose checksum is right but whose records are not what the format says (a
    /// string number past the table, an unknown kind, a list per parent missing, a name that
    /// is not UTF-8, bytes left over) is not read, nor anything after it; what came before is,
    /// and the store rebuilds the rest.
    @Test(arguments: ["string", "kind", "lists", "utf8", "leftover"])
    func aWellSummedButMalformedSegmentIsNotRead(damage: String) throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: 29, count: 20)
        let built = try Self.index(of: history, in: scratch.repository)
        let commits = (0..<Int32(built.count)).map(built.indexedCommit)
        func u32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).littleEndian) { Array($0) } }
        let root = commits[0]
        var payload = u32(1) + u32(damage == "utf8" ? 2 : 1) + (damage == "utf8" ? [0xC3, 0x28] : Array("a".utf8))
        payload += u32(1) + root.id.bytes
        payload += Array(repeating: 0, count: 8) + (root.tree ?? .emptyTree).bytes + [0]
        payload += [damage == "lists" ? 2 : 1] + u32(1) + u32(damage == "string" ? 1 : 0) + [damage == "kind" ? 9 : 1] + u32(0)
        if damage == "leftover" { payload += [0] }
        var segment = u32(payload.count) + payload
        segment += withUnsafeBytes(of: VersionIndexFile.fnv1a(payload).littleEndian) { Array($0) }
        let data =
            VersionIndexFile.header + VersionIndexFile.segment(Array(commits.prefix(5))) + Data(segment)
            + VersionIndexFile.segment(Array(commits.dropFirst(5)))
        let contents = try #require(VersionIndexFile.decode(data))
        #expect(!contents.intact && contents.segments == 1 && contents.commits == Array(commits.prefix(5)))
        let file = scratch.url.path + "/.git/docver/version-index"
        try FileSystem.createDirectory(scratch.url.path + "/.git/docver")
        try AtomicFile.write(data, to: file)
        let loaded = try VersionIndexStore(file: file, repository: scratch.repository).load(covering: history.heads)
        #expect(Self.commits(of: loaded) == Self.commits(of: built))
        let rewritten = try #require(VersionIndexFile.decode(FileSystem.contentsIfReadable(file) ?? Data()))
        #expect(rewritten.intact && rewritten.commits.count == commits.count)
    }

    @Test func anIndexRecordingOtherParentsIsRebuilt() throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: 24, count: 20)
        let file = scratch.url.path + "/.git/docver/version-index"
        let store = VersionIndexStore(file: file, repository: scratch.repository)
        let expected = Self.commits(of: try store.load(covering: history.heads))
        // A well-formed file whose tip claims to be a root: it is not this repository's history.
        let tip = history.heads[0]
        let lie = IndexedCommit(id: tip, parents: [], changes: [[("a.txt", .added)]], mentioned: [])
        try AtomicFile.write(VersionIndexFile.header + VersionIndexFile.segment([lie]), to: file)
        #expect(Self.commits(of: try store.load(covering: history.heads)) == expected)
    }

    @Test func segmentsRoundTrip() throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: 25, count: 25)
        let index = try Self.index(of: history, in: scratch.repository)
        let commits = (0..<Int32(index.count)).map(index.indexedCommit)
        let data =
            VersionIndexFile.header + VersionIndexFile.segment(Array(commits.prefix(10))) + VersionIndexFile.segment(Array(commits.dropFirst(10)))
        let contents = try #require(VersionIndexFile.decode(data))
        #expect(contents.intact && contents.segments == 2)
        #expect(contents.commits == commits)
    }

    /// `log DOC` and `versions DOC` read the file for one document: that index must give every
    /// answer about the document the whole index gives (and the history walk), list each
    /// commit's whole changes, refuse questions about other documents, and append what it
    /// learns so that the file stays the whole index.
    @Test(arguments: [51, 52, 53] as [UInt64])
    func anIndexReadForOneDocumentAnswersAsTheWholeIndex(seed: UInt64) throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: seed, count: 40)
        let whole = try Self.index(of: history, in: scratch.repository)
        let plain = VersionGraph(repository: scratch.repository)
        for document in Self.documents {
            // A file of its own per document: the process keeps what it read, by file.
            let file = scratch.url.path + "/.git/docver/version-index-\(document.replacingOccurrences(of: "/", with: "-"))"
            let store = VersionIndexStore(file: file, repository: scratch.repository)
            let early = try store.load(covering: [history.commits[20]])  // written whole, then one more segment below
            let other = VersionIndexStore(file: file + "-copy", repository: scratch.repository)
            try FileManager.default.copyItem(atPath: file, toPath: file + "-copy")
            let partial = try other.load(covering: history.heads, document: document)
            #expect(partial.scope == document && partial.count == history.commits.count)
            let graph = VersionGraph(repository: scratch.repository, index: partial)
            for commit in history.commits {
                #expect(partial.touches(commit, document: document) == whole.touches(commit, document: document), "seed \(seed): \(document)")
                #expect(try graph.introducingCommit(of: document, from: commit) == plain.introducingCommit(of: document, from: commit))
                if early.contains(commit) {
                    // Read from the file (the later ones were learned from the repository: nil, the caller diffs trees).
                    let sorted = { (list: [(document: String, kind: IndexedChangeKind)]?) in list?.map { "\($0.document) \($0.kind)" }.sorted() }
                    #expect(sorted(partial.changes(of: commit)) == sorted(whole.changes(of: commit)))
                }
                let path = try DocumentPath(document)
                let current = try plain.currentVersion(of: path, at: commit)
                #expect(try graph.currentVersion(of: path, at: commit) == current)
                if let current {
                    #expect(try graph.history(of: path, after: current, limit: nil) == plain.history(of: path, after: current, limit: nil))
                }
            }
            let another = Self.documents.first { $0 != document }!
            #expect(partial.touches(history.heads[0], document: another) == nil)
            #expect(partial.introducingCommit(of: another, from: history.heads[0], absent: false) == nil)
            // The commits it learned were appended whole: the file is the whole index.
            let contents = try #require(VersionIndexFile.decode(FileSystem.contentsIfReadable(file + "-copy") ?? Data()))
            #expect(contents.intact && contents.segments == 2)
            var reread = VersionIndex()
            for commit in contents.commits { reread.add(commit) }
            #expect(Self.commits(of: reread) == Self.commits(of: whole))
        }
    }

    /// `log DOC` walks the index in the order libgit2's revwalk gives (the log's order before
    /// the index): the same order from every commit, with committer times that tie, run
    /// backwards and repeat across merges of two and three parents.
    @Test(arguments: [61, 62, 63, 64] as [UInt64])
    func theIndexWalksInTheRevwalksOrder(seed: UInt64) throws {
        let scratch = try TempRepository()
        var random = SeededRandom(seed: seed)
        var commits: [ObjectID] = []
        for step in 0..<60 {
            var parents: [ObjectID] = []
            if !commits.isEmpty, Int.random(in: 0..<8, using: &random) != 0 {
                for _ in 0..<(Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 2...3, using: &random) : 1) {
                    let parent = commits[Int.random(in: max(0, commits.count - 12)..<commits.count, using: &random)]
                    if !parents.contains(parent) { parents.append(parent) }
                }
            }
            let tree = try scratch.tree(["f\(step % 5).txt": "\(step)"])
            commits.append(
                try scratch.commit(
                    tree: tree, parents: parents, device: "d\(step % 3)", at: TempRepository.epoch,
                    committedAt: TempRepository.epoch + Int.random(in: 0..<6, using: &random)))
        }
        var index = VersionIndex()
        _ = try VersionIndexStore(file: "/nonexistent/version-index", repository: scratch.repository).extend(&index, to: commits)
        for start in commits {
            var expected: [ObjectID] = []
            let walk = try scratch.repository.revwalk(from: [start], topological: false)
            while let id = try walk.next() { expected.append(id) }
            var order = try #require(index.revwalkOrder(from: start))
            var found: [ObjectID] = []
            while let id = order.next() { found.append(id) }
            #expect(found == expected, "seed \(seed) from \(start.hex.prefix(8))")
        }
    }

    /// A process that asks about many documents one by one reads the whole index once, after
    /// a few one-document reads, rather than the file once per document.
    @Test func manyDocumentsInOneProcessReadTheWholeIndex() throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: 27, count: 20)
        let file = scratch.url.path + "/.git/docver/version-index-many"
        _ = try VersionIndexStore(file: file, repository: scratch.repository).load(covering: history.heads)
        try FileManager.default.copyItem(atPath: file, toPath: file + "-copy")
        let store = VersionIndexStore(file: file + "-copy", repository: scratch.repository)
        let scopes = try Self.documents.map { try store.load(covering: history.heads, document: $0).scope }
        #expect(
            Array(scopes.prefix(VersionIndexStore.documentReadLimit))
                == Self.documents.prefix(VersionIndexStore.documentReadLimit).map { Optional($0) })
        #expect(scopes.dropFirst(VersionIndexStore.documentReadLimit).allSatisfy { $0 == nil })
    }

    /// A damaged file is not read for one document either: the whole index is rebuilt.
    @Test func aDamagedIndexIsNotReadForOneDocument() throws {
        let scratch = try TempRepository()
        let history = try RandomHistory(scratch, seed: 26, count: 20)
        let file = scratch.url.path + "/.git/docver/version-index"
        let expected = Self.commits(of: try VersionIndexStore(file: file, repository: scratch.repository).load(covering: history.heads))
        var data = try #require(FileSystem.contentsIfReadable(file))
        data[data.count - 20] ^= 0x5A
        let copy = file + "-damaged"
        try AtomicFile.write(data, to: copy)
        let loaded = try VersionIndexStore(file: copy, repository: scratch.repository).load(covering: history.heads, document: "a.txt")
        #expect(loaded.scope == nil)
        #expect(Self.commits(of: loaded) == expected)
    }

    static func commits(of index: VersionIndex) -> [String: IndexedCommit] {
        Dictionary(
            uniqueKeysWithValues: (0..<Int32(index.count)).map { number in
                let commit = index.indexedCommit(number)
                return (commit.id.hex, commit)
            })
    }
}
