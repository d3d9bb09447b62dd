import DocverKit
import Foundation
import Testing

/// Resolutions travel with sync like any save, and never make a version disappear silently.
@Suite struct ResolveSyncTests {
    @Test(arguments: [false, true])
    func aResolutionReachesEveryDevice(keepVersions: Bool) async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(
            scratch, ids: ["ann", "ben", "cat"], base: "base\n",
            edits: ["ann\n", "ben\n", "cat\n"], extra: ["other.txt": "other\n"])
        let (ann, ben, cat) = (fixture.devices[0], fixture.devices[1], fixture.devices[2])
        for device in fixture.devices {
            #expect(Set(try device.unresolvedConflictVersions(of: fixture.document).map(\.id)) == Set(fixture.losers))
        }

        let outcome = try await ann.resolve(fixture.document, using: LatestDateStrategy(), keepVersions: keepVersions)
        #expect(outcome.save != nil)
        // ben saves something unrelated before syncing: his sync integrates rather than fast-forwards.
        try ben.saveText("other, by ben\n", to: "other.txt")
        for device in [ann, ben, cat, ann, cat] { try device.sync() }
        try expectConverged(fixture.devices)

        for device in fixture.devices {
            #expect(try device.conflicts().isEmpty, "\(device.device.id) still reports a conflict")
            #expect(try device.status().inConflict.isEmpty)
            #expect(try device.read("note.txt") == "cat\n")
            #expect(try device.read("other.txt") == "other, by ben\n")
            let listed = try listedConflictVersions("note.txt", in: device)
            #expect(listed == (keepVersions ? Dictionary(uniqueKeysWithValues: fixture.losers.map { ($0, true) }) : [:]))
        }
        let cli = try docverJSON(["conflicts", "--json"], in: cat.root)
        #expect(cli.result.status == 0)
        #expect((cli.json as? [Any])?.isEmpty == true)
    }

    /// Resolution records name documents whatever their names hold (spaces, non-ASCII).
    @Test func aResolutionOfADocumentWithAnOddNameTravels() throws {
        let scratch = try Scratch()
        let name = "my notes/Reise plan (v2) – café.txt"
        let fixture = try ConflictFixture.text(
            scratch, document: name, base: "base\n", edits: ["ann\n", "ben\n"],
            staggered: true)
        let (ann, ben) = (fixture.devices[0], fixture.devices[1])
        let result = try docver(["resolve", name, "--strategy", "choose", "--keep", fixture.losers[0]], in: ann.root)
        #expect(result.status == 0, "\(result.stderr)")
        let recorded = try commitTrailers(of: #require(try ann.headID()), in: ann)
        #expect(recorded.contains("Docver-Resolved: \(fixture.losers[0]) my%20notes/Reise%20plan%20(v2)%20–%20café.txt"))
        for device in [ann, ben] { try device.sync() }
        try expectConverged([ann, ben])
        for device in [ann, ben] {
            #expect(try device.conflicts().isEmpty)
            #expect(try device.read(name) == "ann\n")
        }
    }

    /// ben edits the document before he sees ann's resolution. When the resolution changed the
    /// contents, ben's edit and the resolution compete: a new conflict, nothing lost. When it
    /// kept the current contents, ben's edit simply follows it.
    @Test(arguments: [true, false])
    func anEditMadeBeforeSeeingAResolutionIsNeverLost(resolutionChangesContents: Bool) async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, ids: ["ann", "ben"], base: "base\n", edits: ["ann\n", "ben\n"])
        let (ann, ben) = (fixture.devices[0], fixture.devices[1])
        let doc = fixture.document
        let oldLoser = fixture.losers[0]

        let strategy = resolutionChangesContents ? UserChoiceStrategy.version(oldLoser) : UserChoiceStrategy.version(fixture.winner)
        let resolution = try #require(try await ann.resolve(doc, using: strategy).save)
        scratch.clock.tick()
        let edit = try ben.saveText("ben, edited again\n", to: "note.txt")
        for device in [ann, ben, ann] { try device.sync() }
        try expectConverged([ann, ben])

        for device in [ann, ben] {
            let current = try #require(try device.currentVersion(of: doc))
            let versions = [current] + (try device.unresolvedConflictVersions(of: doc))
            let texts = try versions.map { try flatText(of: $0, in: device) }
            #expect(texts.contains("ben, edited again\n"), "ben's edit was lost on \(device.device.id)")
            #expect(!versions.contains { $0.id == oldLoser }, "the resolved version came back")
            if resolutionChangesContents {
                let conflict = try #require(try device.conflicts(doc).first, "no new conflict on \(device.device.id)")
                #expect(conflict.current.id == edit, "ben's edit is the newest")
                #expect(conflict.conflicts.map(\.id) == [resolution])
                #expect(try flatText(of: conflict.conflicts[0], in: device) == "ann\n")
            } else {
                #expect(try device.conflicts().isEmpty)
                #expect(try device.currentVersion(of: doc)?.id == edit)
            }
            #expect(try device.read("note.txt") == "ben, edited again\n")
        }
    }

    /// Two devices resolve the same conflict the same way without seeing each other: the
    /// resolutions agree, so syncing makes no new conflict.
    @Test(arguments: ["latest-date", "choose"])
    func identicalResolutionsOnTwoDevicesConverge(strategy: String) async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, ids: ["ann", "ben"], base: "base\n", edits: ["ann\n", "ben\n"])
        let (ann, ben) = (fixture.devices[0], fixture.devices[1])
        let loser = fixture.losers[0]
        var saves: [String] = []
        for device in [ann, ben] {
            let outcome =
                strategy == "latest-date"
                ? try await device.resolve(fixture.document, using: LatestDateStrategy())
                : try await device.resolve(fixture.document, using: UserChoiceStrategy.version(loser))
            saves.append(try #require(outcome.save))
        }
        #expect(saves[0] != saves[1], "each device recorded its own resolution")

        var reports: [SyncReport] = []
        for device in [ann, ben, ann, ben] { reports.append(try device.sync()) }
        #expect(reports.allSatisfy { $0.newConflicts.isEmpty }, "\(reports.map(\.newConflicts))")
        try expectConverged([ann, ben])
        #expect(try ann.headID() == ben.headID())
        let expected = strategy == "latest-date" ? "ben\n" : "ann\n"
        for device in [ann, ben] {
            #expect(try device.conflicts().isEmpty)
            #expect(try device.read("note.txt") == expected)
            #expect(try device.isReachable(saves[0]) && device.isReachable(saves[1]))
        }
        // Syncing again changes nothing.
        let head = try ann.headID()
        for device in [ann, ben] { #expect(!(try device.sync().integrated)) }
        #expect(try ann.headID() == head)
        #expect(try ben.headID() == head)
    }
}
