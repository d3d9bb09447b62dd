import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// `IndexRuns`: the version walks crossing each run of one-parent commits in one step must
/// answer exactly as the walks that pass every commit (``VersionWalk`` over
/// ``IndexedHistory``), in the same order. The oracle is that walk, on random histories:
/// long runs of saves, forks (several runs hanging from one commit), merges of two and three
/// lines, several roots, documents changed often, rarely or never, and merges that changed a
/// document against some parents only.
@Suite struct IndexRunsTests {
    static func id(_ number: Int) -> ObjectID { ObjectID(hex: String(format: "%040x", number + 1))! }

    /// A random history of `count` commits over `documents` documents, as the index holds it.
    static func randomIndex(count: Int, documents: Int, using random: inout SeededRandom) -> VersionIndex {
        var index = VersionIndex()
        let names = (0..<documents).map { "d\($0).txt" }
        for number in 0..<count {
            var parents: [Int] = []
            let shape = Int.random(in: 0..<100, using: &random)
            if number == 0 || shape < 2 {
                parents = []  // a root
            } else if shape < 80 || number < 3 {
                // Mostly the commit just before (a run of saves), sometimes an older one (a fork).
                parents = [Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0..<number, using: &random) : number - 1]
            } else {
                let wanted = Int.random(in: 2...3, using: &random)
                while parents.count < wanted {
                    let parent = Int.random(in: 0..<number, using: &random)
                    if !parents.contains(parent) { parents.append(parent) }
                }
            }
            let lists = (0..<max(parents.count, 1)).map { _ -> [(document: String, kind: IndexedChangeKind)] in
                // Document 0 changes often, the last never, the others now and then.
                names.indices.filter { document in
                    document != documents - 1
                        && Int.random(in: 0..<100, using: &random) < (document == 0 ? 40 : parents.count > 1 ? 30 : 6)
                }.map { (names[$0], IndexedChangeKind.modified) }
            }
            let added = index.add(
                IndexedCommit(id: id(number), parents: parents.map(id), changes: lists, mentioned: [], time: Int64(number)))
            precondition(added)
        }
        return index
    }

    static func documentNumber(_ index: VersionIndex, _ document: Int) -> Int32 { index.number(ofDocument: "d\(document).txt") ?? -1 }

    @Test(arguments: 0..<10)
    func theRunsAnswerAsTheWalkThatPassesEveryCommit(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) + 7100)
        let index = Self.randomIndex(count: Int.random(in: 40...400, using: &random), documents: 6, using: &random)
        let runs = IndexRuns(index)
        #expect(runs.describe(index))
        var crossed = 0
        for document in 0..<6 {
            let number = Self.documentNumber(index, document)
            let history = IndexedHistory(index: index, document: number)
            let throughRuns = IndexedHistory(index: index, document: number, runs: runs)
            for start in 0..<Int32(index.count) {
                #expect(
                    VersionWalk.introducingCommits(ofStateIn: throughRuns, at: start, limit: .max)
                        == VersionWalk.introducingCommits(ofStateIn: history, at: start, limit: .max),
                    "document \(document), start \(start)")
                for absent in [false, true] {
                    #expect(
                        VersionWalk.introducingCommit(in: throughRuns, from: start, absent: absent)
                            == VersionWalk.introducingCommit(in: history, from: start, absent: absent),
                        "document \(document), start \(start), absent \(absent)")
                }
                if case .base(let base)? = throughRuns.runStop(from: start), base != index.nodes[Int(start)].parents[0] { crossed += 1 }
            }
        }
        // (The histories have runs to cross: a test of the runs that never used one could not fail.)
        #expect(crossed > 0)
    }

    /// Through the index's walks, the memo hands out no runs until the searches passed as
    /// many commits as the index holds, then makes them; an index that grew is described
    /// again, and a search whose limit the index reaches never gets runs (they do not count
    /// what they cross). The answers are those of the walks without a memo throughout.
    @Test func theMemoMakesTheRunsOnceTheyPayAndFollowsTheIndex() throws {
        var random = SeededRandom(seed: 7200)
        var index = Self.randomIndex(count: 300, documents: 6, using: &random)
        let memo = IndexRunsMemo()
        #expect(!memo.hasRuns(for: index))
        // (Asked of documents present or not alike: the index's walks do not look at trees.)
        func ask(_ start: Int, _ document: Int, limit: Int = 100_000, memo: IndexRunsMemo) {
            let path = "d\(document).txt", id = Self.id(start)
            #expect(
                index.introducingCommits(ofStateOf: path, at: id, limit: limit, runs: memo)
                    == index.introducingCommits(ofStateOf: path, at: id, limit: limit), "start \(start), document \(document)")
            for absent in [false, true] {
                #expect(
                    index.introducingCommit(of: path, from: id, absent: absent, runs: memo)
                        == index.introducingCommit(of: path, from: id, absent: absent), "start \(start), document \(document)")
            }
        }
        var asked = 0
        while !memo.hasRuns(for: index) && asked < 10_000 {
            ask(Int.random(in: 0..<index.count, using: &random), Int.random(in: 0..<6, using: &random), memo: memo)
            asked += 1
        }
        #expect(memo.hasRuns(for: index))
        for _ in 0..<200 { ask(Int.random(in: 0..<index.count, using: &random), Int.random(in: 0..<6, using: &random), memo: memo) }
        // One more commit: the runs no longer describe the index, and answers stay right.
        let tip = index.count
        index.add(
            IndexedCommit(id: Self.id(tip), parents: [Self.id(tip - 1)], changes: [[("d1.txt", .modified)]], mentioned: [], time: 0))
        #expect(!memo.hasRuns(for: index))
        for start in [tip, tip - 1, 0] { ask(start, 1, memo: memo) }
        // A limit the index reaches: walked, never through runs.
        let small = IndexRunsMemo()
        for _ in 0..<50 { ask(tip, 1, limit: 10, memo: small) }
        #expect(!small.hasRuns(for: index))
    }
}
