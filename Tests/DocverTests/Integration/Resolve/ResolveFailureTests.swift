import DocverKit
import Foundation
import Testing

/// A strategy that fails with an error of its own.
struct RefusingStrategy: ResolutionStrategy {
    struct Refused: Error, Equatable {}
    var name: String { "failing" }
    func resolve(_ conflict: Conflict, in container: Container) async throws -> Resolution { throw Refused() }
}

/// A strategy that takes its time: while it decides, another device's competing edit arrives.
struct DeliberatingStrategy: ResolutionStrategy {
    let meanwhile: @Sendable () throws -> Void
    var name: String { "slow" }
    func resolve(_ conflict: Conflict, in container: Container) async throws -> Resolution {
        try meanwhile()
        return .keep(conflict.current)
    }
}

/// Every way a resolution can fail leaves the container as it was; a dry run changes nothing;
/// `--markers` saves the markers and leaves the conflict open.
@Suite struct ResolveFailureTests {
    /// Nine lines; devices change lines 2 and 8 differently: two overlapping regions.
    static let nineLines = (1...9).map { "line \($0)\n" }.joined()
    static func nineLines(changing changes: [Int: String]) -> String {
        (1...9).map { changes[$0].map { "\($0)\n" } ?? "line \($0)\n" }.joined()
    }

    // MARK: Merges that cannot be done

    @Test func overlappingTextEditsFailAndReportTheRegions() async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(
            scratch, base: Self.nineLines,
            edits: [
                Self.nineLines(changing: [2: "alice 2", 8: "alice 8"]),
                Self.nineLines(changing: [2: "bob 2", 8: "bob 8"]),
            ])
        let (alice, bob) = (fixture.devices[0], fixture.devices[1])
        // Named by the lines of the two versions, which the user can open (not by lines of a
        // merged text nobody sees).
        let alices = "alice (\(fixture.losers[0].prefix(12)))"
        let regions = [
            "both devices changed the same lines: bob (current) line 2, \(alices) line 2",
            "both devices changed the same lines: bob (current) line 8, \(alices) line 8",
        ]

        let before = try ResolveSnapshot(bob)
        let result = try docver(["resolve", "note.txt", "--strategy", "merge"], in: bob.root)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.first == "docver: error: cannot merge note.txt: " + regions.joined(separator: "; "))
        #expect(result.stderr.contains("hint: resolve with --strategy choose, or save the merge with --markers"))
        try expectContainerUnchanged(bob, since: before, "overlapping text via the CLI")
        #expect(try bob.conflicts(fixture.document).first?.conflicts.map(\.id) == fixture.losers)

        let aliceBefore = try ResolveSnapshot(alice)
        await #expect(throws: DocverError.mergeFailed(document: "note.txt", reasons: regions)) {
            try await alice.resolve(fixture.document, using: MergeStrategy())
        }
        try expectContainerUnchanged(alice, since: aliceBefore, "overlapping text via the library")
    }

    /// A content merge holds every version in memory: a version above docver.maxMergeSize is
    /// refused before anything is read, by the merge and by a merge tool, and nothing changes.
    @Test func aVersionAboveTheMergeSizeIsRefusedBeforeItIsRead() async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(
            scratch, base: Self.nineLines,
            edits: [
                Self.nineLines(changing: [2: "alice 2"]),
                Self.nineLines(changing: [8: "bob 8"]),
            ])
        let bob = fixture.latest
        _ = try runGit(["config", "docver.maxMergeSize", "40"], in: bob.root)
        _ = try runGit(["config", "mergetool.cat.cmd", #"cat "$LOCAL" > "$MERGED""#], in: bob.root)
        let before = try ResolveSnapshot(bob)
        for arguments in [["--strategy", "merge"], ["--tool", "cat"]] {
            let result = try docver(["resolve", "note.txt"] + arguments, in: bob.root)
            #expect(result.status == 1)
            #expect(
                result.stderrLines.first
                    == "docver: error: cannot merge note.txt: bob's version (\(fixture.winner.prefix(12))) is 62 bytes, above docver.maxMergeSize (40); choose a version",
                "\(result.stderr)")
        }
        try expectContainerUnchanged(bob, since: before, "above the merge size")
        // Under the limit (k: KiB, as in git), the same merge is made.
        _ = try runGit(["config", "docver.maxMergeSize", "1k"], in: bob.root)
        let merged = try docver(["resolve", "note.txt", "--strategy", "merge"], in: bob.root)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try bob.read("note.txt") == Self.nineLines(changing: [2: "alice 2", 8: "bob 8"]))
    }

    @Test func theSameJSONKeyChangedDifferentlyFailsNamingItsPath() async throws {
        let scratch = try Scratch()
        let base = #"{"a": 1, "b": {"c": 1, "d": 1}}"#
        let fixture = try ConflictFixture.text(
            scratch, document: "settings.json", base: base,
            edits: [#"{"a": 2, "b": {"c": 2, "d": 1}}"#, #"{"a": 1, "b": {"c": 3, "d": 1}}"#])
        let alice = fixture.devices[0]
        let before = try ResolveSnapshot(alice)
        await #expect(
            throws: DocverError.mergeFailed(
                document: "settings.json",
                reasons: ["$.b.c changed to different values on both devices"])
        ) {
            try await alice.resolve(fixture.document, using: MergeStrategy())
        }
        try expectContainerUnchanged(alice, since: before, "conflicting JSON key via the library")
        let result = try docver(["resolve", "settings.json", "--strategy", "merge"], in: alice.root)
        #expect(result.status == 1)
        #expect(result.stderr.contains("$.b.c changed to different values on both devices"))
        try expectContainerUnchanged(alice, since: before, "conflicting JSON key via the CLI")
    }

    @Test func aBinaryDocumentIsNotMergeable() async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.make(
            scratch, document: "photo.png",
            base: ["photo.png": Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 3])],
            edits: [
                ["photo.png": Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 4])],
                ["photo.png": Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 5])],
            ])
        let alice = fixture.devices[0]
        let before = try ResolveSnapshot(alice)
        await #expect(throws: DocverError.notMergeable(document: "photo.png", reason: "its contents are binary; choose a version")) {
            try await alice.resolve(fixture.document, using: MergeStrategy())
        }
        // Markers cannot help binary contents either.
        await #expect(throws: DocverError.notMergeable(document: "photo.png", reason: "its contents are binary; choose a version")) {
            try await alice.resolve(fixture.document, using: MergeStrategy(markers: true))
        }
        let result = try docver(["resolve", "photo.png", "--strategy", "merge"], in: alice.root)
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot merge photo.png: its contents are binary; choose a version"))
        try expectContainerUnchanged(alice, since: before, "binary document")
    }

    @Test func aPackageComponentChangedOnBothDevicesFailsNamingTheComponent() async throws {
        let scratch = try Scratch()
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 3])
        let fixture = try ConflictFixture.make(
            scratch, document: "trip.imagenotes",
            base: ["trip.imagenotes/text.txt": Data("day one\n".utf8), "trip.imagenotes/img.png": png],
            edits: [["trip.imagenotes/img.png": png + Data([1])], ["trip.imagenotes/img.png": png + Data([2])]])
        let alice = fixture.devices[0]
        let before = try ResolveSnapshot(alice)
        await #expect(
            throws: DocverError.mergeFailed(
                document: "trip.imagenotes",
                reasons: ["component img.png changed on both devices: its contents are binary; choose a version"])
        ) {
            try await alice.resolve(fixture.document, using: MergeStrategy())
        }
        try expectContainerUnchanged(alice, since: before, "package component changed on both devices")
    }

    // MARK: Versions that cannot be chosen

    @Test func unknownVersionIDsChangeNothing() async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"])
        let bob = fixture.devices[1]
        let unknown = fixture.saves.contains { $0.hasPrefix("deadbeef") } ? "feedface" : "deadbeef"
        let before = try ResolveSnapshot(bob)

        let cli = try docver(["resolve", "note.txt", "--strategy", "choose", "--keep", unknown], in: bob.root)
        #expect(cli.status == 1)
        #expect(cli.stderr.contains("version \(unknown) is not an unresolved conflict version of note.txt"))
        await #expect(throws: DocverError.notAConflictVersion(version: "abc", document: "note.txt")) {
            try await bob.resolve(fixture.document, using: UserChoiceStrategy.version("abc"))
        }
        #expect(throws: DocverError.noSuchVersion(unknown)) { try bob.replace(fixture.document, with: unknown) }
        #expect(throws: DocverError.noSuchVersion(unknown)) { try bob.markResolved(fixture.document, versions: [unknown]) }
        #expect(throws: DocverError.noSuchVersion("not-hex")) { try bob.replace(fixture.document, with: "not-hex") }
        let replace = try docver(["replace", "note.txt", unknown], in: bob.root)
        #expect(replace.status == 1)
        #expect(
            replace.stderrLines == [
                "docver: error: no such version: \(unknown)",
                "hint: list the versions of note.txt with 'docver versions note.txt --all'",
            ])
        try expectContainerUnchanged(bob, since: before, "unknown version ids")
    }

    @Test func anAmbiguousVersionIDChangesNothing() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"])
        let bob = fixture.devices[1]
        let loser = fixture.losers[0]
        // Store a blob whose id starts with the same four digits as the conflict version.
        let prefix = String(loser.prefix(4))
        let search = """
            import hashlib, sys
            prefix = sys.argv[1]
            i = 0
            while True:
                body = ("filler %d\\n" % i).encode()
                if hashlib.sha1(b"blob %d\\0" % len(body) + body).hexdigest().startswith(prefix):
                    sys.stdout.write(body.decode()); break
                i += 1
            """
        let filler = try runProcess("/usr/bin/python3", ["-c", search, prefix]).stdoutData
        let blob = try runProcess("/usr/bin/git", ["hash-object", "-w", "--stdin"], in: bob.root, input: filler)
        try #require(blob.stdout.hasPrefix(prefix), "the blob should share the version's prefix: \(blob.stdout)")

        let before = try ResolveSnapshot(bob)
        #expect(throws: DocverError.ambiguousVersion(prefix)) { try bob.replace(fixture.document, with: prefix) }
        #expect(throws: DocverError.ambiguousVersion(prefix)) { try bob.markResolved(fixture.document, versions: [prefix]) }
        let cli = try docver(["replace", "note.txt", prefix], in: bob.root)
        #expect(cli.status == 1)
        #expect(cli.stderrLines == ["docver: error: version id '\(prefix)' is ambiguous", "hint: give more digits of the version id"])
        try expectContainerUnchanged(bob, since: before, "ambiguous version id")
        // More digits find it.
        try bob.replace(fixture.document, with: String(loser.prefix(12)))
        #expect(try bob.read("note.txt") == "alice\n")
    }

    @Test func aVersionOfAnotherDocumentIsRefused() async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"], extra: ["other.txt": "other\n"])
        let bob = fixture.devices[1]
        let other = try bob.saveText("other, edited\n", to: "other.txt")
        let before = try ResolveSnapshot(bob)

        #expect(throws: DocverError.versionOfAnotherDocument(version: other, document: "note.txt")) {
            try bob.replace(fixture.document, with: other)
        }
        #expect(throws: DocverError.versionOfAnotherDocument(version: other, document: "note.txt")) {
            try bob.markResolved(fixture.document, versions: [other])
        }
        await #expect(throws: DocverError.notAConflictVersion(version: other, document: "note.txt")) {
            try await bob.resolve(fixture.document, using: UserChoiceStrategy.version(other))
        }
        // A closure returning a version of another document is refused too.
        await #expect(throws: DocverError.notAConflictVersion(version: other, document: "note.txt")) {
            try await bob.resolve(fixture.document, using: UserChoiceStrategy { _ in try bob.version(other, of: DocumentPath("other.txt")) })
        }
        let cli = try docver(["resolve", "note.txt", "--strategy", "choose", "--keep", other], in: bob.root)
        #expect(cli.status == 1)
        #expect(cli.stderr.contains("is not an unresolved conflict version of note.txt"))
        let replace = try docver(["replace", "note.txt", String(other.prefix(12))], in: bob.root)
        #expect(replace.status == 1)
        #expect(replace.stderr.contains("version \(other.prefix(12)) is not a version of note.txt"))
        try expectContainerUnchanged(bob, since: before, "a version of another document")
    }

    @Test func aDocumentNotInConflictIsRefused() async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"], extra: ["other.txt": "other\n"])
        let alice = fixture.devices[0]
        let other = try DocumentPath("other.txt")
        let before = try ResolveSnapshot(alice)

        for strategy in [LatestDateStrategy() as any ResolutionStrategy, MergeStrategy(), UserChoiceStrategy.version(fixture.base)] {
            await #expect(throws: DocverError.notInConflict("other.txt")) {
                try await alice.resolve(other, using: strategy)
            }
        }
        // A document never saved is no document at all.
        await #expect(throws: DocverError.noSuchDocument("missing.txt")) {
            try await alice.resolve(DocumentPath("missing.txt"), using: LatestDateStrategy())
        }
        #expect(throws: DocverError.notInConflict("other.txt")) { try alice.markResolved(other) }
        #expect(throws: DocverError.noSuchDocument("missing.txt")) { try alice.markResolved(DocumentPath("missing.txt")) }
        #expect(throws: DocverError.noOtherVersions(document: "other.txt")) { try alice.removeOtherVersions(of: other) }
        #expect(throws: DocverError.noSuchDocument("missing.txt")) { try alice.removeOtherVersions(of: DocumentPath("missing.txt")) }
        for arguments in [
            ["resolve", "other.txt", "--strategy", "latest-date"], ["resolve", "other.txt", "--strategy", "choose"],
            ["mark-resolved", "other.txt"],
        ] {
            let result = try docver(arguments, in: alice.root)
            #expect(result.status == 1, "\(arguments)")
            #expect(
                result.stderrLines == [
                    "docver: error: other.txt is not in conflict",
                    "hint: list documents in conflict with 'docver conflicts'",
                ], "\(arguments)")
        }
        try expectContainerUnchanged(alice, since: before, "documents not in conflict")

        // Unsaved edits of a document not in conflict stay unsaved: the refusal writes nothing.
        try alice.write("edited, not saved\n", to: "other.txt")
        let edited = try ResolveSnapshot(alice)
        await #expect(throws: DocverError.notInConflict("other.txt")) { try await alice.resolve(other, using: LatestDateStrategy()) }
        #expect(try ResolveSnapshot(alice) == edited, "resolve saved the edits of a document it refused")
        #expect(try alice.status().changed.map(\.document) == [other])
    }

    @Test func chooseWithoutATerminalAndWithoutVersionListsTheVersions() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(
            scratch, names: ["Alice's Laptop", "Bob's Phone"], base: "base\n",
            edits: ["alice\n", "bob\n"])
        let alice = fixture.devices[0]
        let before = try ResolveSnapshot(alice)
        let result = try docver(["resolve", "note.txt", "--strategy", "choose"], in: alice.root, input: Data("1\n".utf8))
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        let line = try #require(result.stderrLines.first)
        #expect(line.hasPrefix("docver: error: note.txt needs a choice of version: "))
        #expect(line.contains("\(fixture.winner.prefix(12)) (Bob's Phone, "))
        #expect(line.contains("\(fixture.losers[0].prefix(12)) (Alice's Laptop, "))
        #expect(
            result.stderrLines.last
                == "hint: pass --keep with the id of the version to keep (docver resolve note.txt --keep \(fixture.winner.prefix(12))), or run on a terminal to choose interactively"
        )
        try expectContainerUnchanged(alice, since: before, "choose without a terminal")
    }

    /// With several documents, each is resolved on its own: one failing does not undo or stop
    /// the others, and the exit status says something failed.
    @Test func resolvingAllGoesOnPastADocumentThatFails() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.make(
            scratch, document: "easy.txt",
            base: ["easy.txt": Data(Self.nineLines.utf8), "hard.txt": Data(Self.nineLines.utf8)],
            edits: [
                [
                    "easy.txt": Data(Self.nineLines(changing: [1: "alice 1"]).utf8),
                    "hard.txt": Data(Self.nineLines(changing: [5: "alice 5"]).utf8),
                ],
                [
                    "easy.txt": Data(Self.nineLines(changing: [9: "bob 9"]).utf8),
                    "hard.txt": Data(Self.nineLines(changing: [5: "bob 5"]).utf8),
                ],
            ])
        let alice = fixture.devices[0]
        let hardBefore = try alice.read("hard.txt")

        let (result, json) = try docverJSON(["resolve", "--all", "--strategy", "merge", "--json"], in: alice.root)
        #expect(result.status == 1)
        let entries = try #require(json as? [[String: Any]])
        #expect(entries.map { $0["document"] as? String } == ["easy.txt", "hard.txt"])
        #expect(entries.map { $0["outcome"] as? String } == ["merged", "failed"])
        #expect(entries[0]["save"] is String)
        #expect((entries[1]["error"] as? String)?.hasPrefix("cannot merge hard.txt: both devices changed the same lines") == true)
        #expect(try alice.read("easy.txt") == Self.nineLines(changing: [1: "alice 1", 9: "bob 9"]))
        #expect(try alice.read("hard.txt") == hardBefore)
        #expect(try alice.documentsInConflict().map(\.document.path) == ["hard.txt"])
        #expect(try alice.status().changed.isEmpty)
    }

    // MARK: Strategies that give up

    @Test func aStrategyThatThrowsOrCancelsChangesNothing() async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"])
        let alice = fixture.devices[0]
        let before = try ResolveSnapshot(alice)
        await #expect(throws: RefusingStrategy.Refused()) { try await alice.resolve(fixture.document, using: RefusingStrategy()) }
        await #expect(throws: DocverError.cancelled(document: "note.txt")) {
            try await alice.resolve(fixture.document, using: UserChoiceStrategy { _ in nil })
        }
        try expectContainerUnchanged(alice, since: before, "a failing strategy")
        #expect(try alice.unresolvedConflictVersions(of: fixture.document).map(\.id) == fixture.losers)
    }

    /// A version that arrives while the strategy decides is never discarded by it.
    @Test func aConflictThatChangesWhileTheStrategyDecidesIsNotResolved() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let (ann, ben, cat) = (
            try scratch.device("ann", remote: remote), try scratch.device("ben", remote: remote),
            try scratch.device("cat", remote: remote)
        )
        try ann.saveText("base\n", to: "note.txt")
        for device in [ann, ben, cat] { try device.sync() }
        let annSave = try ann.saveText("ann\n", to: "note.txt")
        scratch.clock.tick()
        let benSave = try ben.saveText("ben\n", to: "note.txt")
        scratch.clock.tick()
        let catSave = try cat.saveText("cat\n", to: "note.txt")
        for device in [ann, ben, ann] { try device.sync() }
        let doc = try DocumentPath("note.txt")
        #expect(try ann.conflicts(doc).first?.conflicts.map(\.id) == [annSave])

        let strategy = DeliberatingStrategy {
            try cat.sync()  // cat's competing edit reaches the remote...
            try ann.sync()  // ...and ann while ann's strategy is still deciding.
        }
        await #expect(throws: DocverError.conflictChanged(document: "note.txt")) {
            try await ann.resolve(doc, using: strategy)
        }
        let conflict = try #require(try ann.conflicts(doc).first)
        #expect(conflict.current.id == catSave)
        #expect(Set(conflict.conflicts.map(\.id)) == [annSave, benSave], "nothing was resolved")
        #expect(try ann.log(limit: 1).first?.kind == .integration)
    }

    // MARK: Dry runs and markers

    @Test func aDryRunChangesNothingEvenWithUnsavedEdits() async throws {
        let scratch = try Scratch()
        let base = (1...5).map { "line \($0)\n" }.joined()
        let fixture = try ConflictFixture.text(
            scratch, base: base,
            edits: [
                base.replacingOccurrences(of: "line 1", with: "alice 1"),
                base.replacingOccurrences(of: "line 5", with: "bob 5"),
            ],
            extra: ["other.txt": "other\n"])
        let alice = fixture.devices[0]
        try alice.write("an unsaved edit\n", to: "other.txt")
        let before = try ResolveSnapshot(alice)

        let latest = try await alice.resolve(fixture.document, using: LatestDateStrategy(), dryRun: true)
        #expect(latest.save == nil)
        #expect(latest.resolved == fixture.losers)
        #expect(latest.removed == fixture.losers)
        #expect(latest.summary == "note.txt: would keep version \(fixture.winner.prefix(12)) from bob as current")
        let merge = try await alice.resolve(fixture.document, using: MergeStrategy(), keepVersions: true, dryRun: true)
        #expect(
            merge.resolution
                == .merged(
                    .flat(
                        Data(
                            base.replacingOccurrences(of: "line 1", with: "alice 1")
                                .replacingOccurrences(of: "line 5", with: "bob 5").utf8))))
        #expect(merge.removed.isEmpty)
        #expect(merge.summary == "note.txt: would save the merge of 2 versions as current")

        let (result, json) = try docverJSON(["resolve", "note.txt", "--strategy", "merge", "--dry-run", "--json"], in: alice.root)
        #expect(result.status == 0, "\(result.stderr)")
        let entry = try #require((json as? [[String: Any]])?.first)
        #expect(entry["dryRun"] as? Bool == true)
        #expect(entry["outcome"] as? String == "merged")
        #expect(jsonNullOrMissing(entry["save"]))
        let text = try docver(["resolve", "--all", "--strategy", "latest-date", "--dry-run"], in: alice.root)
        #expect(text.status == 0)
        #expect(text.stdout.contains("would keep version"))

        let after = try ResolveSnapshot(alice)
        #expect(after == before, "a dry run changed the container")
        #expect(try alice.read("other.txt") == "an unsaved edit\n")
        #expect(try alice.status().changed.map(\.document.path) == ["other.txt"], "the unsaved edit stays unsaved")
        #expect(try alice.unresolvedConflictVersions(of: fixture.document).map(\.id) == fixture.losers)
    }

    @Test func markersSaveTheMergeLabelledWithDeviceNamesAndLeaveTheConflictOpen() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(
            scratch, names: ["Alice's Laptop", "Bob's Phone"], base: "a\nb\nc\n",
            edits: ["a\nalice\nc\n", "a\nbob\nc\n"])
        let bob = fixture.devices[1]
        let loser = fixture.losers[0]
        let oldHead = try #require(try bob.headID())

        let (result, json) = try docverJSON(["resolve", "note.txt", "--strategy", "merge", "--markers", "--json"], in: bob.root)
        #expect(result.status == 1, "the conflict is still open: scripts must notice")
        let entry = try #require((json as? [[String: Any]])?.first)
        #expect(entry["outcome"] as? String == "mergedWithMarkers")
        #expect(entry["resolved"] as? [String] == [])
        let expected = """
            a
            <<<<<<< Bob's Phone (current)
            bob
            ||||||| base
            b
            =======
            alice
            >>>>>>> Alice's Laptop (\(loser.prefix(12)))
            c

            """
        #expect(try bob.read("note.txt") == expected)
        let current = try #require(try bob.currentVersion(of: fixture.document))
        #expect(current.id != fixture.winner)
        #expect(try bob.git(["rev-parse", current.id + "^"]).trimmingCharacters(in: .whitespacesAndNewlines) == oldHead)
        #expect(try flatText(of: current, in: bob) == expected)
        let recorded = try commitTrailers(of: current.id, in: bob)
        #expect(recorded.contains("Docver-Strategy: merge"))
        #expect(!recorded.contains { $0.hasPrefix("Docver-Resolved:") || $0.hasPrefix("Docver-Removed:") })
        #expect(try bob.unresolvedConflictVersions(of: fixture.document).map(\.id) == [loser], "the conflict stays open")
        #expect(try bob.status().changed.isEmpty)

        // The user edits the markers away and marks the conflict resolved.
        try bob.saveText("a\nalice and bob\nc\n", to: "note.txt")
        #expect(try docver(["mark-resolved", "note.txt"], in: bob.root).status == 0)
        #expect(try bob.conflicts().isEmpty)
    }
}
