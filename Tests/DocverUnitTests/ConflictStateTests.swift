import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// The conflict state as three grow-only sets (docs/FORMAT.md, "The unresolved set"): any two
/// devices holding the same commits must agree, whatever order the commits arrived in.
@Suite struct ConflictStateTests {
    typealias Trailers = [(key: String, value: String)]

    /// A random history's commits, each a list of trailers, with the records a correct reader
    /// finds in them, tracked independently of ``ConflictState``.
    struct World {
        var commits: [Trailers] = []
        var conflicts: Set<ConflictRecord> = []
        var resolved: Set<VersionRecord> = []
        var removed: Set<VersionRecord> = []
        /// Records a commit may not carry (conflicts outside integrations, decisions outside
        /// a device's commits) or that are malformed: read, ignored, remembered as ignored.
        var ignored: Set<String> = []

        static let paths = ["a.txt", "b c.txt", "d/e.md", "100%.txt", "trip.imagenotes", "été.md"]

        init(seed: UInt64) {
            var random = SeededRandom(seed: seed)
            let versions = (0..<6).map { _ in random.hexID() }
            let bases: [String?] = [nil] + (0..<2).map { _ in random.hexID() }
            for _ in 0..<Int.random(in: 5...25, using: &random) {
                // An integration commit may carry conflict records, a device's commit decisions;
                // a plain commit neither.
                let kind = Int.random(in: 0..<5, using: &random)
                let isIntegration = kind < 2, isDevice = kind >= 2 && kind < 4
                var trailers: Trailers =
                    isIntegration
                    ? [(Trailer.integration, "1")]
                    : isDevice ? [(Trailer.device, "dev\(Int.random(in: 0...2, using: &random))")] : []
                func ignore(_ trailer: (key: String, value: String)) { ignored.insert("\(trailer.key): \(trailer.value)") }
                for _ in 0..<Int.random(in: 0...5, using: &random) {
                    let path = Self.paths.randomElement(using: &random)!
                    let version = versions.randomElement(using: &random)!
                    switch Int.random(in: 0..<8, using: &random) {
                    case 0, 1, 2:
                        let record = ConflictRecord(path: path, version: version, base: bases.randomElement(using: &random)!)
                        trailers.append(record.trailer)
                        if isIntegration { conflicts.insert(record) } else { ignore(record.trailer) }
                    case 3, 4:
                        let record = VersionRecord(path: path, version: version)
                        trailers.append(record.trailer(Trailer.resolved))
                        if isDevice { resolved.insert(record) } else { ignore(record.trailer(Trailer.resolved)) }
                    case 5:
                        let record = VersionRecord(path: path, version: version)
                        trailers.append(record.trailer(Trailer.removed))
                        if isDevice { removed.insert(record) } else { ignore(record.trailer(Trailer.removed)) }
                    case 6:
                        // Records the state does not keep, and a lower-case key docver does not write.
                        trailers.append(VersionRecord(path: path, version: version).trailer(Trailer.replaced))
                        trailers.append(("docver-resolved", "\(version) \(TrailerPath.encode(path))"))
                    default:
                        // Malformed records are ignored.
                        trailers.append((Trailer.conflict, version))
                        trailers.append((Trailer.resolved, "\(version) bad%Z9"))
                        trailers.append((Trailer.strategy, "merge"))
                        ignore((Trailer.conflict, version))
                        ignore((Trailer.resolved, "\(version) bad%Z9"))
                    }
                }
                commits.append(trailers)
            }
        }

        var expectedState: ConflictState {
            ConflictState(head: nil, conflicts: conflicts, resolved: resolved, removed: removed, ignored: ignored)
        }
    }

    static func absorbing(_ commits: some Sequence<Trailers>) -> ConflictState {
        var state = ConflictState()
        for trailers in commits { state.absorb(trailers) }
        return state
    }

    static func merged(_ a: ConflictState, _ b: ConflictState) -> ConflictState {
        var result = a
        result.merge(b)
        return result
    }

    static let seeds = Seeds.make(20, salt: 30)

    @Test(arguments: seeds)
    func absorbingReadsExactlyTheWellFormedRecords(seed: UInt64) {
        let world = World(seed: seed)
        #expect(Self.absorbing(world.commits) == world.expectedState, "seed \(seed)")
    }

    @Test(arguments: seeds)
    func absorbingInAnyOrderGivesTheSameState(seed: UInt64) {
        let world = World(seed: seed)
        var random = SeededRandom(seed: seed ^ 0xABCD)
        let reference = Self.absorbing(world.commits)
        for _ in 0..<5 {
            #expect(Self.absorbing(world.commits.shuffled(using: &random)) == reference, "seed \(seed)")
        }
        #expect(Self.absorbing(world.commits.reversed()) == reference, "seed \(seed)")
    }

    @Test(arguments: seeds)
    func absorbingTwiceChangesNothing(seed: UInt64) {
        let world = World(seed: seed)
        let once = Self.absorbing(world.commits)
        #expect(Self.absorbing(world.commits + world.commits) == once, "seed \(seed)")
        var again = once
        for trailers in world.commits { again.absorb(trailers) }
        #expect(again == once, "seed \(seed)")
    }

    @Test(arguments: seeds)
    func mergeIsAJoin(seed: UInt64) {
        let world = World(seed: seed)
        var random = SeededRandom(seed: seed ^ 0x1234)
        // Three overlapping subsets of the commits, as three devices might hold them.
        let subsets = (0..<3).map { _ in world.commits.filter { _ in Bool.random(using: &random) } }
        let (a, b, c) = (Self.absorbing(subsets[0]), Self.absorbing(subsets[1]), Self.absorbing(subsets[2]))
        #expect(Self.merged(a, b) == Self.merged(b, a), "commutative, seed \(seed)")
        #expect(Self.merged(Self.merged(a, b), c) == Self.merged(a, Self.merged(b, c)), "associative, seed \(seed)")
        #expect(Self.merged(a, a) == a, "idempotent, seed \(seed)")
        #expect(Self.merged(a, ConflictState()) == a, "the empty state is neutral, seed \(seed)")
        #expect(Self.merged(a, b) == Self.absorbing(subsets[0] + subsets[1]), "union of commits, seed \(seed)")
        #expect(
            Self.merged(Self.merged(a, b), c)
                == Self.absorbing(
                    world.commits.filter { commit in
                        subsets.contains { subset in subset.contains { Self.sameTrailers($0, commit) } }
                    }), "union of three, seed \(seed)")
    }

    static func sameTrailers(_ a: Trailers, _ b: Trailers) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    @Test(arguments: seeds)
    func unresolvedIsConflictsMinusResolvedMinusRemoved(seed: UInt64) {
        let world = World(seed: seed)
        let state = Self.absorbing(world.commits)
        let expected = world.conflicts.filter {
            !world.resolved.contains($0.versionRecord) && !world.removed.contains($0.versionRecord)
        }
        let byDocument = state.unresolvedByDocument()
        #expect(Set(byDocument.values.joined()) == expected, "seed \(seed)")
        #expect(byDocument.values.joined().count == expected.count, "no record listed twice, seed \(seed)")
        for (document, records) in byDocument {
            #expect(!records.isEmpty && records.allSatisfy { $0.path == document.path }, "seed \(seed): grouped under \(document)")
        }
    }

    @Test(arguments: seeds)
    func resolvedViewIsResolvedButNotRemoved(seed: UInt64) {
        let world = World(seed: seed)
        let state = Self.absorbing(world.commits)
        let expected = world.conflicts.filter {
            world.resolved.contains($0.versionRecord) && !world.removed.contains($0.versionRecord)
        }
        let byDocument = state.resolvedByDocument()
        #expect(Set(byDocument.values.joined()) == expected, "seed \(seed)")
        for (document, records) in byDocument {
            #expect(records.allSatisfy { $0.path == document.path }, "seed \(seed)")
        }
        // The two views never share a record.
        #expect(Set(byDocument.values.joined()).isDisjoint(with: state.unresolvedByDocument().values.joined()), "seed \(seed)")
    }

    @Test func worldsAreNotTrivial() {
        // The property tests above only mean something if the random worlds hold every kind of record.
        let worlds = Self.seeds.map(World.init)
        #expect(worlds.contains { !$0.resolved.isEmpty && !$0.removed.isEmpty && $0.conflicts.count > 3 })
        #expect(worlds.contains { !Self.absorbing($0.commits).unresolvedByDocument().isEmpty })
        #expect(worlds.contains { !Self.absorbing($0.commits).resolvedByDocument().isEmpty })
    }

    // MARK: Hand-made cases

    static let v1 = String(repeating: "1", count: 40), v2 = String(repeating: "2", count: 40)
    static let base = String(repeating: "b", count: 40)

    /// Trailers as an integration commit carries them (the only commits whose conflict records count).
    static func integration(_ records: Trailers) -> Trailers { [(Trailer.integration, "1")] + records }
    /// Trailers as a device's commit carries them (the only commits whose decisions count).
    static func decision(_ records: Trailers) -> Trailers { [(Trailer.device, "dev0")] + records }

    /// (docs/MODEL.md: R25, R27.)
    @Test func recordsOutsideTheCommitsThatMayCarryThemAreIgnoredAndRemembered() {
        var state = ConflictState()
        let conflict = ConflictRecord(path: "a.txt", version: Self.v1, base: nil).trailer
        let resolution = VersionRecord(path: "a.txt", version: Self.v1).trailer(Trailer.resolved)
        state.absorb([conflict])
        state.absorb(Self.decision([conflict]))
        #expect(state.conflicts.isEmpty, "a conflict record outside an integration commit")
        state.absorb(Self.integration([conflict]))
        state.absorb([resolution])
        state.absorb(Self.integration([resolution]))
        #expect(state.unresolvedByDocument().count == 1, "a resolution outside a device's commit")
        #expect(state.ignored.count == 2)
        state.absorb(Self.decision([resolution]))
        #expect(state.unresolvedByDocument().isEmpty)
        // A version that is not in the repository.
        var checked = ConflictState()
        checked.absorb(Self.integration([conflict]), exists: { version, _ in version != Self.v1 })
        #expect(checked.conflicts.isEmpty && checked.ignored.count == 1)
    }

    @Test func resolutionIsKeyedByPathAndVersion() {
        var state = ConflictState()
        state.absorb(
            Self.integration([
                ConflictRecord(path: "a.txt", version: Self.v1, base: nil).trailer,
                ConflictRecord(path: "b.txt", version: Self.v1, base: nil).trailer,
            ]))
        state.absorb(Self.decision([VersionRecord(path: "a.txt", version: Self.v1).trailer(Trailer.resolved)]))
        #expect(state.unresolvedByDocument() == [DocumentPath(trusted: "b.txt"): [ConflictRecord(path: "b.txt", version: Self.v1, base: nil)]])
        #expect(state.resolvedByDocument() == [DocumentPath(trusted: "a.txt"): [ConflictRecord(path: "a.txt", version: Self.v1, base: nil)]])
    }

    @Test func oneResolutionCoversRecordsOfTheSameVersionWithDifferentBases() {
        var state = ConflictState()
        state.absorb(
            Self.integration([
                ConflictRecord(path: "a.txt", version: Self.v1, base: nil).trailer,
                ConflictRecord(path: "a.txt", version: Self.v1, base: Self.base).trailer,
                ConflictRecord(path: "a.txt", version: Self.v2, base: Self.base).trailer,
            ]))
        #expect(state.unresolvedByDocument()[DocumentPath(trusted: "a.txt")]?.count == 3)
        state.absorb(Self.decision([VersionRecord(path: "a.txt", version: Self.v1).trailer(Trailer.resolved)]))
        #expect(state.unresolvedByDocument()[DocumentPath(trusted: "a.txt")] == [ConflictRecord(path: "a.txt", version: Self.v2, base: Self.base)])
        #expect(state.resolvedByDocument()[DocumentPath(trusted: "a.txt")]?.count == 2)
    }

    @Test func removalHidesAVersionFromBothViewsEvenWithoutResolution() {
        var state = ConflictState()
        state.absorb(Self.integration([ConflictRecord(path: "a.txt", version: Self.v1, base: nil).trailer]))
        state.absorb(Self.decision([VersionRecord(path: "a.txt", version: Self.v1).trailer(Trailer.removed)]))
        #expect(state.unresolvedByDocument().isEmpty)
        #expect(state.resolvedByDocument().isEmpty)
        #expect(state.conflicts.count == 1, "the record itself is kept: the sets only grow")
    }

    @Test func resolutionSeenBeforeItsConflictStillApplies() {
        var state = ConflictState()
        state.absorb(Self.decision([VersionRecord(path: "a.txt", version: Self.v1).trailer(Trailer.resolved)]))
        #expect(state.unresolvedByDocument().isEmpty)
        state.absorb(Self.integration([ConflictRecord(path: "a.txt", version: Self.v1, base: nil).trailer]))
        #expect(state.unresolvedByDocument().isEmpty)
        #expect(state.resolvedByDocument().count == 1)
    }

    @Test func sameRecordsIgnoresTheHead() {
        var a = ConflictState(), b = ConflictState()
        a.head = Self.v1
        b.head = Self.v2
        a.absorb(Self.integration([ConflictRecord(path: "x", version: Self.v1, base: nil).trailer]))
        b.absorb(Self.integration([ConflictRecord(path: "x", version: Self.v1, base: nil).trailer]))
        #expect(a.sameRecords(as: b))
        #expect(a != b)
        b.absorb(Self.decision([VersionRecord(path: "x", version: Self.v1).trailer(Trailer.removed)]))
        #expect(!a.sameRecords(as: b))
    }

    @Test func cacheEncodingHasTheDocumentedShapeAndRoundTrips() throws {
        var state = ConflictState(head: Self.v2)
        state.absorb(
            Self.integration([
                ConflictRecord(path: "a b.txt", version: Self.v1, base: Self.base).trailer,
                ConflictRecord(path: "c.txt", version: Self.v2, base: nil).trailer,
                VersionRecord(path: "a b.txt", version: Self.v1).trailer(Trailer.resolved),
                VersionRecord(path: "c.txt", version: Self.v2).trailer(Trailer.removed),
            ]))
        let data = try JSONEncoder().encode(state)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["format", "head", "conflicts", "resolved", "removed", "ignored", "setAside"])
        #expect(object["format"] as? Int == ConflictState.currentFormat)
        let conflicts = try #require(object["conflicts"] as? [[String: Any]])
        #expect(conflicts.allSatisfy { Set($0.keys).isSubset(of: ["path", "version", "base"]) && $0["path"] != nil })
        #expect(try JSONDecoder().decode(ConflictState.self, from: data) == state)
        // A cache written with an explicit null base reads the same.
        let written =
            #"{"format":3,"head":null,"conflicts":[{"path":"x","version":"v","base":null}],"resolved":[],"removed":[],"ignored":[],"setAside":[]}"#
        let decoded = try JSONDecoder().decode(ConflictState.self, from: Data(written.utf8))
        #expect(decoded.conflicts == [ConflictRecord(path: "x", version: "v", base: nil)])
        #expect(decoded.ignored.isEmpty)
        // A cache written before records were validated (no "ignored") is not read: it is rebuilt.
        let old = #"{"head":null,"conflicts":[],"resolved":[],"removed":[]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ConflictState.self, from: Data(old.utf8)) }
        // Nor one written before plain merges' set-aside versions were told apart (no "setAside").
        let older = #"{"head":null,"conflicts":[],"resolved":[],"removed":[],"ignored":[]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ConflictState.self, from: Data(older.utf8)) }
        // Nor one of format 1 (no "format"), written before plain merges set decisions aside,
        // one of format 2, before plain merges of new content set sides aside, nor one of a
        // format this docver does not know.
        for format in ["", #""format":1,"#, #""format":2,"#, #""format":4,"#] {
            let other = #"{"# + format + #""head":null,"conflicts":[],"resolved":[],"removed":[],"ignored":[],"setAside":[]}"#
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(ConflictState.self, from: Data(other.utf8)) }
        }
    }
}
