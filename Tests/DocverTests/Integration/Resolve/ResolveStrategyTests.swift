import DocverKit
import Foundation
import Testing

/// An editor's own strategy: every version's text, current first, one after the other.
struct ConcatenateStrategy: ResolutionStrategy {
    var name: String { "concatenate" }

    func resolve(_ conflict: Conflict, in container: Container) async throws -> Resolution {
        var text = ""
        for version in [conflict.current] + conflict.conflicts.sorted(by: { $0.id < $1.id }) {
            guard case let .flat(data) = try container.contents(of: version) else {
                throw DocverError.notMergeable(document: conflict.document.path, reason: "not a flat document")
            }
            text += String(decoding: data, as: UTF8.self)
        }
        return .merged(.flat(Data(text.utf8)))
    }
}

/// Remembers what a closure was given (closures handed to strategies must be Sendable).
actor ChoiceRecorder<Value: Sendable> {
    private(set) var values: [Value] = []
    func record(_ value: Value) { values.append(value) }
}

/// The settings document of the JSON merge tests.
struct MergeSettings: Codable, Equatable {
    struct Inner: Codable, Equatable {
        var c: Int
        var d: Int
    }
    var a: Int
    var b: Inner
    var e: Bool?
    var list: [Int]
}

/// Each strategy, through the library and the CLI.
@Suite struct ResolveStrategyTests {
    // MARK: latest-date

    @Test(arguments: [false, true])
    func latestDateKeepsTheNewestVersionAndResolvesTheOthers(keepVersions: Bool) async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(
            scratch, ids: ["ann", "ben", "cat"], base: "base\n",
            edits: ["ann\n", "ben\n", "cat\n"])
        let ann = fixture.devices[0]
        let doc = fixture.document
        let newest = try ann.version(fixture.winner, of: doc)
        // The newest save is cat's: the last one, a second after the others.
        #expect(rankedByConflictRule(try fixture.saves.map { try ann.version($0, of: doc) }).first?.id == newest.id)

        let outcome = try await ann.resolve(doc, using: LatestDateStrategy(), keepVersions: keepVersions)
        #expect(outcome.resolution == .keep(newest))
        #expect(outcome.strategy == "latest-date")
        #expect(Set(outcome.resolved) == Set(fixture.losers))
        #expect(Set(outcome.removed) == (keepVersions ? [] : Set(fixture.losers)))
        let save = try #require(outcome.save)
        #expect(try ann.headID() == save)
        #expect(outcome.summary == "note.txt: kept version \(newest.shortID) from cat as current")

        let recorded = try commitTrailers(of: save, in: ann)
        #expect(recorded.contains("Docver-Strategy: latest-date"))
        for loser in fixture.losers {
            #expect(recorded.contains("Docver-Resolved: \(loser) note.txt"))
            #expect(recorded.contains("Docver-Removed: \(loser) note.txt") == !keepVersions)
        }
        #expect(try ann.conflicts().isEmpty)
        #expect(try ann.read("note.txt") == "cat\n")
        #expect(try currentFlatText(doc, in: ann) == "cat\n")
        #expect(Set(try ann.resolvedConflictVersions(of: doc).map(\.id)) == (keepVersions ? Set(fixture.losers) : []))
        let listed = try listedConflictVersions("note.txt", in: ann)
        #expect(listed == (keepVersions ? Dictionary(uniqueKeysWithValues: fixture.losers.map { ($0, true) }) : [:]))
        #expect(try ann.status().changed.isEmpty)
        try expectFsckClean(ann.root)
    }

    /// As in integration (SyncConflictTests.modificationBeatsDeletion), a modification beats a
    /// deletion: latest-date keeps the edit even when the deletion is newer, and nothing is
    /// deleted.
    @Test func latestDateNeverPrefersANewerDeletionOverAnEdit() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let editor = try scratch.device("editor", remote: remote)
        let remover = try scratch.device("remover", remote: remote)
        try editor.saveText("base\n", to: "note.txt")
        for device in [editor, remover] { try device.sync() }
        let edit = try editor.saveText("edited\n", to: "note.txt")
        scratch.clock.tick()
        let deletion = try remover.deleteAndSave("note.txt")
        for device in [editor, remover, editor] { try device.sync() }
        let doc = try DocumentPath("note.txt")
        let conflict = try #require(try remover.conflicts(doc).first)
        #expect(conflict.current.id == edit)
        #expect(conflict.conflicts.map(\.id) == [deletion])
        #expect(conflict.conflicts[0].modified > conflict.current.modified, "the deletion is the newer version")

        let outcome = try await remover.resolve(doc, using: LatestDateStrategy())
        #expect(outcome.resolution == .keep(conflict.current))
        #expect(outcome.removed == [deletion])
        #expect(try remover.read("note.txt") == "edited\n")
        #expect(try remover.currentVersion(of: doc)?.isDeletion == false)
        #expect(try remover.conflicts().isEmpty)
        for device in [remover, editor] { try device.sync() }
        try expectConverged([editor, remover])
        #expect(try editor.read("note.txt") == "edited\n")
    }

    /// The same rule the other way round: when the current version is a deletion (the document
    /// was deleted after the conflict arose) and an unresolved conflict version is an edit,
    /// latest-date keeps the edit, though the deletion is newer; the CLI's dry run says so, as
    /// docs/RESOLVING.md shows. A deletion is kept only when every version is one.
    @Test func latestDateKeepsAnUnresolvedEditOverACurrentDeletion() async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"])
        let bob = fixture.devices[1]
        let doc = fixture.document
        let loser = fixture.losers[0]
        // (The fixture's saves are dated in the past: this one is newer at once.)
        let deletion = try bob.deleteAndSave("note.txt")
        let conflict = try #require(try bob.conflicts(doc).first, "deleting does not resolve the conflict")
        #expect(conflict.current.id == deletion)
        #expect(conflict.current.isDeletion)
        #expect(conflict.conflicts.map(\.id) == [loser])
        #expect(conflict.current.modified > conflict.conflicts[0].modified, "the deletion is the newer version")

        let dryRun = try docver(["resolve", "note.txt", "--strategy", "latest-date", "--dry-run"], in: bob.root)
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.stdout == "note.txt: would keep version \(loser.prefix(12)) from alice as current\n")
        let outcome = try await bob.resolve(doc, using: LatestDateStrategy())
        #expect(outcome.resolution == .keep(conflict.conflicts[0]))
        #expect(try bob.read("note.txt") == "alice\n")
        #expect(try bob.currentVersion(of: doc)?.isDeletion == false)
        #expect(try bob.conflicts().isEmpty)
    }

    @Test func latestDateThroughTheCLIResolvesEveryDocumentWithAll() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.make(
            scratch, base: ["note.txt": Data("base\n".utf8), "todo.txt": Data("todo\n".utf8)],
            edits: [
                ["note.txt": Data("alice\n".utf8), "todo.txt": Data("alice todo\n".utf8)],
                ["note.txt": Data("bob\n".utf8), "todo.txt": Data("bob todo\n".utf8)],
            ])
        let alice = fixture.devices[0]
        #expect(try alice.documentsInConflict().map(\.document.path) == ["note.txt", "todo.txt"])

        let (result, json) = try docverJSON(
            ["resolve", "--all", "--strategy", "latest-date", "--keep-versions", "--json"],
            in: alice.root)
        #expect(result.status == 0, "\(result.stderr)")
        let entries = try #require(json as? [[String: Any]])
        #expect(entries.map { $0["document"] as? String } == ["note.txt", "todo.txt"])
        for entry in entries {
            #expect(entry["strategy"] as? String == "latest-date")
            #expect(entry["outcome"] as? String == "keep")
            #expect(entry["version"] as? String == fixture.winner)
            #expect(entry["resolved"] as? [String] == fixture.losers)
            #expect(entry["removed"] as? [String] == [])
            #expect(entry["dryRun"] as? Bool == false)
            #expect(entry["save"] is String)
            #expect(jsonNullOrMissing(entry["error"]))
        }
        #expect(try alice.conflicts().isEmpty)
        #expect(try alice.read("note.txt") == "bob\n")
        #expect(try alice.read("todo.txt") == "bob todo\n")
        #expect(try listedConflictVersions("todo.txt", in: alice) == [fixture.losers[0]: true])

        let none = try docver(["resolve", "--all", "--strategy", "latest-date"], in: alice.root)
        #expect(none.status == 0)
        #expect(none.stdout == "no conflicts\n")
    }

    // MARK: merge

    @Test func mergeCombinesNonOverlappingTextEditsOfThreeDevices() throws {
        let scratch = try Scratch()
        let base = (1...9).map { "line \($0)\n" }.joined()
        func edited(_ line: Int, _ text: String) -> String {
            (1...9).map { $0 == line ? "\(text)\n" : "line \($0)\n" }.joined()
        }
        let fixture = try ConflictFixture.text(
            scratch, ids: ["ann", "ben", "cat"], base: base,
            edits: [
                edited(1, "ann's first line"), edited(5, "ben's middle line"),
                edited(9, "cat's last line"),
            ])
        let ben = fixture.devices[1]
        let expected = (1...9).map {
            $0 == 1 ? "ann's first line\n" : $0 == 5 ? "ben's middle line\n" : $0 == 9 ? "cat's last line\n" : "line \($0)\n"
        }.joined()

        let (result, json) = try docverJSON(["resolve", "note.txt", "--strategy", "merge", "--json"], in: ben.root)
        #expect(result.status == 0, "\(result.stderr)")
        let entry = try #require((json as? [[String: Any]])?.first)
        #expect(entry["outcome"] as? String == "merged")
        #expect(jsonNullOrMissing(entry["version"]))
        #expect(Set(entry["resolved"] as? [String] ?? []) == Set(fixture.losers))
        #expect(try ben.read("note.txt") == expected)
        #expect(try currentFlatText(fixture.document, in: ben) == expected)
        let current = try #require(try ben.currentVersion(of: fixture.document))
        #expect(current.device.id == "ben", "the merge is a new save of the resolving device")
        #expect(try commitTrailers(of: current.id, in: ben).contains("Docver-Strategy: merge"))
        #expect(try ben.conflicts().isEmpty)
        #expect(try ben.status().changed.isEmpty)
    }

    @Test func mergeOfJSONCombinesDifferentKeys() async throws {
        let scratch = try Scratch()
        let base = #"{"a": 1, "b": {"c": 1, "d": 1}, "list": [1, 2]}"# + "\n"
        let fixture = try ConflictFixture.text(
            scratch, document: "settings.json", base: base,
            edits: [
                #"{"a": 2, "b": {"c": 7, "d": 1}, "list": [1, 2]}"#,
                #"{"a": 1, "b": {"c": 1, "d": 5}, "e": true, "list": [1, 2]}"#,
            ])
        let alice = fixture.devices[0]

        let outcome = try await alice.resolve(fixture.document, using: MergeStrategy())
        guard case let .merged(.flat(data)) = outcome.resolution else {
            Issue.record("expected a merged flat document, got \(outcome.resolution)")
            return
        }
        let expected = MergeSettings(a: 2, b: .init(c: 7, d: 5), e: true, list: [1, 2])
        #expect(try JSONDecoder().decode(MergeSettings.self, from: data) == expected)
        #expect(try JSONDecoder().decode(MergeSettings.self, from: Data(alice.read("settings.json").utf8)) == expected)
        #expect(try alice.conflicts().isEmpty)
    }

    @Test func mergeOfAPackageKeepsATextEditAndAnImageEditFromDifferentDevices() async throws {
        let scratch = try Scratch()
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52])
        let newImage = png + Data([0, 0xAB, 0xCD])
        let fixture = try ConflictFixture.make(
            scratch, document: "trip.imagenotes",
            base: ["trip.imagenotes/text.txt": Data("day one\n".utf8), "trip.imagenotes/img.png": png],
            edits: [
                ["trip.imagenotes/text.txt": Data("day one, by alice\n".utf8)],
                ["trip.imagenotes/img.png": newImage],
            ])
        let alice = fixture.devices[0]
        // Integration kept one package whole: bob's, with the old text.
        #expect(try alice.read("trip.imagenotes/text.txt") == "day one\n")

        let outcome = try await alice.resolve(fixture.document, using: MergeStrategy())
        let expected = FilePackage(files: ["text.txt": Data("day one, by alice\n".utf8), "img.png": newImage])
        #expect(outcome.resolution == .merged(.package(expected)))
        let current = try #require(try alice.currentVersion(of: fixture.document))
        #expect(current.kind == .package)
        #expect(try alice.contents(of: current) == .package(expected))
        #expect(try alice.read("trip.imagenotes/text.txt") == "day one, by alice\n")
        #expect(try Data(contentsOf: alice.root.appendingPathComponent("trip.imagenotes/img.png")) == newImage)
        #expect(try alice.conflicts().isEmpty)
        #expect(try alice.status().changed.isEmpty)
        try expectFsckClean(alice.root)
    }

    /// `.gitattributes` selects a merge driver configured the git way, given %O %A %B %P;
    /// `.gitattributes` is saved with docver before the conflict, or committed with plain git
    /// after it and synced.
    @Test(arguments: [false, true])
    func mergeRunsTheDriverThatGitattributesSelects(attributesCommittedWithPlainGit: Bool) throws {
        let scratch = try Scratch()
        let attributes = "*.ini merge=mine\n"
        var base = ["settings.ini": Data("[core]\nname = base\n".utf8)]
        if !attributesCommittedWithPlainGit { base[".gitattributes"] = Data(attributes.utf8) }
        let fixture = try ConflictFixture.make(
            scratch, document: "settings.ini", base: base,
            edits: [["settings.ini": Data("[core]\nname = alice\n".utf8)], ["settings.ini": Data("[core]\nname = bob\n".utf8)]])
        let (alice, bob) = (fixture.devices[0], fixture.devices[1])
        if attributesCommittedWithPlainGit {
            try alice.write(attributes, to: ".gitattributes")
            _ = try alice.git(["add", ".gitattributes"])
            _ = try alice.git(["commit", "-q", "-m", "Merge .ini files with the mine driver"])
            try alice.sync()
            try bob.sync()
            #expect(try bob.read(".gitattributes") == attributes)
            #expect(try bob.conflicts(fixture.document).first?.conflicts.map(\.id) == fixture.losers)
        }
        let driver = scratch.path("merge-mine.sh")
        try """
        #!/bin/sh
        # merge-mine.sh BASE CURRENT OTHER PATH: the result goes into CURRENT.
        { echo "; merged by mine for $4"; cat "$2"; echo "; base"; cat "$1"; echo "; other"; cat "$3"; } > "$2.new" && mv "$2.new" "$2"

        """.write(to: driver, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: driver.path)

        // Named in .gitattributes but not configured: not mergeable, nothing changes.
        var before = try ResolveSnapshot(alice)
        let unconfigured = try docver(["resolve", "settings.ini", "--strategy", "merge"], in: alice.root)
        #expect(unconfigured.status == 1)
        #expect(unconfigured.stderr.contains("merge driver 'mine' has no merge.mine.driver command in git config"))
        try expectContainerUnchanged(alice, since: before, "unconfigured driver")

        // A driver reporting a conflict: the merge fails, nothing changes.
        _ = try alice.git(["config", "merge.mine.driver", "exit 1"])
        before = try ResolveSnapshot(alice)
        let failing = try docver(["resolve", "settings.ini", "--strategy", "merge"], in: alice.root)
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("merge driver 'mine' reported a conflict (exit 1)"))
        try expectContainerUnchanged(alice, since: before, "failing driver")

        _ = try bob.git(["config", "merge.mine.driver", "\(driver.path) %O %A %B %P"])
        let result = try docver(["resolve", "settings.ini", "--strategy", "merge"], in: bob.root)
        #expect(result.status == 0, "\(result.stderr)")
        let expected = "; merged by mine for settings.ini\n[core]\nname = bob\n; base\n[core]\nname = base\n; other\n[core]\nname = alice\n"
        #expect(try bob.read("settings.ini") == expected)
        #expect(try currentFlatText(fixture.document, in: bob) == expected)
        #expect(try bob.conflicts().isEmpty)
    }

    // MARK: choose

    @Test func chooseWithVersionKeepsThatVersion() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"])
        let bob = fixture.devices[1]
        let loser = fixture.losers[0]

        let result = try docver(["resolve", "note.txt", "--strategy", "choose", "--keep", String(loser.prefix(7))], in: bob.root)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "note.txt: kept version \(loser.prefix(12)) from alice as current\n")
        #expect(try bob.read("note.txt") == "alice\n")
        let current = try #require(try bob.currentVersion(of: fixture.document))
        #expect(current.device.id == "bob")
        let recorded = try commitTrailers(of: current.id, in: bob)
        #expect(recorded.contains("Docver-Strategy: choose"))
        #expect(recorded.contains("Docver-Resolved: \(loser) note.txt"))
        #expect(recorded.contains("Docver-Removed: \(loser) note.txt"))
        #expect(try bob.conflicts().isEmpty)
    }

    @Test func chooseThroughALibraryClosure() async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(
            scratch, ids: ["ann", "ben", "cat"], base: "base\n",
            edits: ["ann\n", "ben\n", "cat\n"])
        let ann = fixture.devices[0]
        let seen = ChoiceRecorder<Conflict>()
        let strategy = UserChoiceStrategy { conflict in
            await seen.record(conflict)
            return conflict.conflicts.first { $0.device.id == "ben" }
        }
        let outcome = try await ann.resolve(fixture.document, using: strategy, keepVersions: true)
        let given = try #require(await seen.values.first)
        #expect(await seen.values.count == 1)
        #expect(given.document == fixture.document)
        #expect(given.current.id == fixture.winner)
        #expect(Set(given.conflicts.map(\.id)) == Set(fixture.losers))
        #expect(given.base?.id == fixture.base)
        #expect(outcome.strategy == "choose")
        #expect(outcome.resolution == .keep(try ann.version(fixture.saves[1], of: fixture.document)))
        #expect(outcome.removed.isEmpty)
        #expect(try ann.read("note.txt") == "ben\n")
        #expect(try ann.conflicts().isEmpty)
        #expect(Set(try ann.resolvedConflictVersions(of: fixture.document).map(\.id)) == Set(fixture.losers))

        // UserChoiceStrategy.version picks by id prefix, the current version included.
        let other = try ConflictFixture.text(try Scratch(), base: "base\n", edits: ["alice\n", "bob\n"])
        let keep = try await other.devices[0].resolve(other.document, using: UserChoiceStrategy.version(String(other.winner.prefix(6))))
        #expect(keep.resolution == .keep(try other.devices[0].version(other.winner, of: other.document)))
        #expect(try other.devices[0].read("note.txt") == "bob\n")
    }

    // MARK: an editor's own strategy

    @Test func aCustomStrategyIsAppliedAndRecordedByName() async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"])
        let alice = fixture.devices[0]
        let outcome = try await alice.resolve(fixture.document, using: ConcatenateStrategy())
        let expected = "bob\nalice\n"  // the current version first, then the conflict version
        #expect(outcome.resolution == .merged(.flat(Data(expected.utf8))))
        #expect(outcome.strategy == "concatenate")
        #expect(outcome.resolved == fixture.losers)
        #expect(try alice.read("note.txt") == expected)
        let save = try #require(outcome.save)
        let recorded = try commitTrailers(of: save, in: alice)
        #expect(recorded.contains("Docver-Strategy: concatenate"))
        #expect(recorded.contains("Docver-Resolved: \(fixture.losers[0]) note.txt"))
        let subject = try alice.git(["log", "-1", "--format=%s", save]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(subject == "Resolve conflict in note.txt (concatenate)")
        #expect(try alice.conflicts().isEmpty)
    }

    /// Unsaved edits of the document are saved before resolving, so they are never lost.
    @Test func resolvingSavesUnsavedEditsFirst() async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"])
        let alice = fixture.devices[0]
        try alice.write("alice, unsaved\n", to: "note.txt")
        let outcome = try await alice.resolve(fixture.document, using: UserChoiceStrategy.version(fixture.losers[0]))
        #expect(try alice.read("note.txt") == "alice\n")
        let history = try alice.history(of: fixture.document)
        let unsaved = try #require(history.first)
        #expect(try flatText(of: unsaved, in: alice) == "alice, unsaved\n")
        #expect(try alice.git(["log", "-1", "--format=%s", unsaved.id]).hasPrefix("Save before resolving"))
        #expect(outcome.save != nil)
        #expect(try alice.status().changed.isEmpty)
    }
}
