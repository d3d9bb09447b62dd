import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// A commit's decision, read once from its trailers (docs/MODEL.md R8-R10, R26): which
/// records count, which are ignored, and what it says about each document.
@Suite struct DecisionTests {
    /// Random trailer paragraphs against a direct reading of the rules: a decision record
    /// counts only in a commit that names its device, was not made with plain `git commit`,
    /// and whose signature holds; a malformed one never counts; every other decision record
    /// is ignored, and other trailers are neither.
    /// (docs/MODEL.md: R26.)
    @Test(arguments: Seeds.make(6, salt: 40))
    func recordsCountExactlyWhereTheRulesSay(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let paths = ["a.txt", "caf\u{E9}.txt", "cafe\u{301}.txt", "A.txt", "notes/b.md"]
        let decisionKeys = [Trailer.resolved, Trailer.removed, Trailer.replaced]
        for _ in 0..<300 {
            var trailers: [(key: String, value: String)] = []
            if Bool.random(using: &random) { trailers.append((Trailer.device, "alice")) }
            if Int.random(in: 0..<4, using: &random) == 0 { trailers.append((Trailer.plainCommit, "true")) }
            if Int.random(in: 0..<3, using: &random) == 0 {
                trailers.append((Trailer.strategy, ["merge", "latest-date"].randomElement(using: &random)!))
            }
            for _ in 0..<Int.random(in: 0...5, using: &random) {
                let key = (decisionKeys + [Trailer.conflict, Trailer.restored]).randomElement(using: &random)!
                let path = paths.randomElement(using: &random)!
                let malformed = Int.random(in: 0..<5, using: &random) == 0
                trailers.append((key, malformed ? "xyz \(path)" : VersionRecord(path: path, version: random.hexID()).trailer(key).value))
            }
            trailers.shuffle(using: &random)
            let signed = Int.random(in: 0..<5, using: &random) != 0
            let decision = Decision(trailers: trailers, decisionsSigned: signed)

            let isOwnSave = signed && trailers.contains { $0.key == Trailer.device } && !trailers.contains { $0.key == Trailer.plainCommit }
            let decisionTrailers = trailers.filter { decisionKeys.contains($0.key) }
            let counted = decisionTrailers.filter { isOwnSave && VersionRecord(trailerValue: $0.value) != nil }
            #expect(decision.records.map(\.text) == counted.map { "\($0.key): \($0.value)" }, "seed \(seed): \(trailers)")
            #expect(decision.ignored.count == decisionTrailers.count - counted.count, "seed \(seed): \(trailers)")
            #expect(decision.carriesRecords == !decisionTrailers.isEmpty)
            #expect(decision.isMergeResolution == trailers.contains { $0.key == Trailer.strategy && $0.value == "merge" })
            for path in paths {
                let named = counted.compactMap { VersionRecord(trailerValue: $0.value) }.filter { $0.path.bytesEqual(path) }
                // Names are bytes: the NFC and NFD spellings of café, and A.txt and a.txt, are
                // different documents.
                #expect(decision.isAbout(path) == !named.isEmpty, "seed \(seed): \(path) in \(trailers)")
                var unique: [String] = []
                for record in named where !unique.contains(record.version) { unique.append(record.version) }
                #expect(decision.versions(of: path).map(\.hex) == unique)
            }
            #expect(decision.documents.count == Set(decision.records.map { ByteString($0.version.path) }).count)
        }
    }

    @Test func aReplaceIsADecisionButClosesNoConflict() {
        let version = String(repeating: "a", count: 40)
        let trailers = [(key: Trailer.device, value: "alice"), (key: Trailer.replaced, value: "\(version) notes.txt")]
        let decision = Decision(trailers: trailers)
        #expect(decision.isAbout("notes.txt"))
        var state = ConflictState()
        state.absorb(trailers)
        #expect(state.resolved.isEmpty && state.removed.isEmpty && state.ignored.isEmpty)
    }
}
