import DocverKit
import Foundation
import Testing

/// A document that still holds conflict markers is not marked resolved (issue 11, item 9):
/// `markResolved` and `removeOtherVersions` refuse it, changing nothing, unless forced. The
/// document is checked as it is in the working tree (its saved contents, or its unsaved edits).
@Suite struct ResolveMarkersTests {
    /// The merge `resolve --markers` saves for the `a / alice|bob / c` fixture: markers on lines 2-8.
    static func markedMerge(loser: String) -> String {
        "a\n<<<<<<< bob (current)\nbob\n||||||| base\nb\n=======\nalice\n>>>>>>> alice (\(loser.prefix(12)))\nc\n"
    }

    /// Bob saved the merge with markers; the conflict with alice's version stays open.
    static func savedMarkers(_ scratch: Scratch) async throws -> ConflictFixture {
        let fixture = try ConflictFixture.text(scratch, base: "a\nb\nc\n", edits: ["a\nalice\nc\n", "a\nbob\nc\n"])
        let bob = fixture.devices[1]
        let outcome = try await bob.resolve(fixture.document, using: MergeStrategy(markers: true))
        guard case .mergedWithMarkers = outcome.resolution else {
            Issue.record("expected a merge with markers, got \(outcome.resolution)")
            return fixture
        }
        #expect(try bob.read("note.txt") == markedMerge(loser: fixture.losers[0]))
        return fixture
    }

    @Test func markResolvedRefusesADocumentWithMarkersAndChangesNothing() async throws {
        let scratch = try Scratch()
        let fixture = try await Self.savedMarkers(scratch)
        let bob = fixture.devices[1]
        let loser = fixture.losers[0]
        let before = try ResolveSnapshot(bob)
        let refusal = DocverError.conflictMarkersRemain(document: "note.txt", lines: ["lines 2-8"])
        #expect(refusal.description == "note.txt still contains conflict markers (lines 2-8)")

        #expect(throws: refusal) { try bob.markResolved(fixture.document) }
        #expect(throws: refusal) { try bob.markResolved(fixture.document, versions: [String(loser.prefix(8))]) }
        try expectContainerUnchanged(bob, since: before, "mark-resolved with markers")
        #expect(try bob.unresolvedConflictVersions(of: fixture.document).map(\.id) == [loser])
        // Errors about the request itself still come first.
        #expect(throws: DocverError.notAConflictVersion(version: fixture.winner, document: "note.txt")) {
            try bob.markResolved(fixture.document, versions: [fixture.winner])
        }
    }

    @Test func forceMarksTheDocumentResolvedAsItIs() async throws {
        let scratch = try Scratch()
        let fixture = try await Self.savedMarkers(scratch)
        let (alice, bob) = (fixture.devices[0], fixture.devices[1])
        let loser = fixture.losers[0]
        let marked = Self.markedMerge(loser: loser)

        let result = try bob.markResolved(fixture.document, force: true)
        #expect(try commitTrailers(of: result.id, in: bob).contains("Docver-Resolved: \(loser) note.txt"))
        #expect(try bob.conflicts().isEmpty)
        #expect(try bob.read("note.txt") == marked, "forcing changes no contents")
        #expect(try currentFlatText(fixture.document, in: bob) == marked)
        for device in [bob, alice] { try device.sync() }
        try expectConverged([alice, bob])
        #expect(try alice.conflicts().isEmpty)
    }

    @Test func markResolvedAcceptsTheDocumentOnceTheMarkersAreEditedAway() async throws {
        let scratch = try Scratch()
        let fixture = try await Self.savedMarkers(scratch)
        let bob = fixture.devices[1]
        let doc = fixture.document

        // Edited away but not saved: the working tree is what the next save (and sync) records,
        // so it is accepted, and the edit stays unsaved (mark-resolved does not save).
        try bob.write("a\nalice and bob\nc\n", to: "note.txt")
        try bob.markResolved(doc)
        #expect(try bob.conflicts().isEmpty)
        #expect(try bob.status().changed.map(\.document.path) == ["note.txt"])
        #expect(try bob.read("note.txt") == "a\nalice and bob\nc\n")
        #expect(try currentFlatText(doc, in: bob) == Self.markedMerge(loser: fixture.losers[0]))

        // Edited away and saved, on a fresh conflict.
        let other = try await Self.savedMarkers(try Scratch())
        let otherBob = other.devices[1]
        try otherBob.saveText("a\nalice and bob\nc\n", to: "note.txt")
        try otherBob.markResolved(other.document)
        #expect(try otherBob.conflicts().isEmpty)
        #expect(try otherBob.status().changed.isEmpty)
    }

    @Test func unsavedEditsThatAddMarkersAreRefusedAndStayUnsaved() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "one\n", edits: ["alice\n", "bob\n"])
        let alice = fixture.devices[0]
        // The saved version is clean; the working tree has a pasted merge.
        let pasted = "intro\n\n<<<<<<< mine\nalice\n=======\nbob\n>>>>>>> theirs\nmiddle\n<<<<<<< mine\nx\n>>>>>>> theirs\n"
        try alice.write(pasted, to: "note.txt")
        let before = try ResolveSnapshot(alice)
        #expect(throws: DocverError.conflictMarkersRemain(document: "note.txt", lines: ["lines 3-7, 9-11"])) {
            try alice.markResolved(fixture.document)
        }
        #expect(try ResolveSnapshot(alice) == before)
        #expect(try alice.read("note.txt") == pasted)
        #expect(try alice.status().changed.map(\.document.path) == ["note.txt"], "the edit stays unsaved")
        #expect(try alice.unresolvedConflictVersions(of: fixture.document).map(\.id) == fixture.losers)
    }

    /// Markers are git's: seven characters, then a space or the end of the line, and a
    /// `<<<<<<<` line counts only with a later `>>>>>>>` line.
    @Test func onlyGitsMarkerLinesCount() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "one\n", edits: ["alice\n", "bob\n"])
        let alice = fixture.devices[0]
        let doc = fixture.document
        let refused: [(text: String, lines: String)] = [
            ("<<<<<<<\nx\n>>>>>>>\n", "lines 1-3"),  // markers without labels
            ("a\r\n<<<<<<< ours\r\nx\r\n>>>>>>> theirs\r\n", "lines 2-4"),  // CRLF line ends
            ("<<<<<<< a\n<<<<<<< b\nx\n>>>>>>> c\n", "lines 1-4"),  // a region runs from its first opening line
            ("<<<<<<< a\nx\n>>>>>>> b", "lines 1-3"),  // no newline at the end
        ]
        for (text, lines) in refused {
            try alice.write(text, to: "note.txt")
            #expect(throws: DocverError.conflictMarkersRemain(document: "note.txt", lines: [lines]), "\(text.debugDescription)") {
                try alice.markResolved(doc)
            }
        }
        // None of these is a marked region.
        let accepted = """
            <<<<<<<< eight
            >>>>>>>> eight
             <<<<<<< indented
            >>>>>>> closing before any opening
            <<<<<<<x no space
            >>>>>>> y
            ======= a separator alone
            <<<<<<< an opening never closed

            """
        try alice.write(accepted, to: "note.txt")
        try alice.markResolved(doc)
        #expect(try alice.conflicts().isEmpty)
    }

    @Test func everyTextComponentOfAPackageIsCheckedAndBinaryOnesAreNot() async throws {
        let scratch = try Scratch()
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 3])
        let fixture = try ConflictFixture.make(
            scratch, document: "trip.imagenotes",
            base: ["trip.imagenotes/text.txt": Data("day one\nday two\n".utf8), "trip.imagenotes/img.png": png],
            edits: [
                ["trip.imagenotes/text.txt": Data("day one, windy\nday two\n".utf8)],
                ["trip.imagenotes/text.txt": Data("day one, calm\nday two\n".utf8)],
            ])
        let bob = fixture.devices[1]
        let doc = fixture.document
        let outcome = try await bob.resolve(doc, using: MergeStrategy(markers: true))
        guard case .mergedWithMarkers = outcome.resolution else {
            Issue.record("expected a merge with markers, got \(outcome.resolution)")
            return
        }
        // A binary component whose bytes look like markers is not text, and is not checked.
        try writeFixtureFiles(
            [
                "trip.imagenotes/raw.bin": Data("<<<<<<< a\n\0\n>>>>>>> b\n".utf8),
                "trip.imagenotes/notes/day.md": Data("<<<<<<< a\nx\n=======\ny\n>>>>>>> b\n".utf8),
            ], in: bob)
        try #require(try bob.save([doc]) != nil)
        let before = try ResolveSnapshot(bob)

        let refusal = DocverError.conflictMarkersRemain(
            document: "trip.imagenotes",
            lines: ["notes/day.md lines 1-5", "text.txt lines 1-7"])
        #expect(refusal.description == "trip.imagenotes still contains conflict markers (notes/day.md lines 1-5; text.txt lines 1-7)")
        #expect(throws: refusal) { try bob.markResolved(doc) }
        #expect(throws: refusal) { try bob.removeOtherVersions(of: doc) }
        try expectContainerUnchanged(bob, since: before, "a package with markers")

        try writeFixtureFiles(
            [
                "trip.imagenotes/text.txt": Data("day one, windy and calm\nday two\n".utf8),
                "trip.imagenotes/notes/day.md": Data("x and y\n".utf8),
            ], in: bob)
        try #require(try bob.save([doc]) != nil)
        try bob.markResolved(doc)
        #expect(try bob.conflicts().isEmpty)
    }

    @Test func removeOtherVersionsRefusesToResolveADocumentWithMarkers() async throws {
        let scratch = try Scratch()
        let fixture = try await Self.savedMarkers(scratch)
        let bob = fixture.devices[1]
        let loser = fixture.losers[0]
        let before = try ResolveSnapshot(bob)

        #expect(throws: DocverError.conflictMarkersRemain(document: "note.txt", lines: ["lines 2-8"])) {
            try bob.removeOtherVersions(of: fixture.document)
        }
        try expectContainerUnchanged(bob, since: before, "remove-other-versions with markers")
        #expect(try bob.unresolvedConflictVersions(of: fixture.document).map(\.id) == [loser])

        let result = try bob.removeOtherVersions(of: fixture.document, force: true)
        let recorded = try commitTrailers(of: result.id, in: bob)
        #expect(recorded.contains("Docver-Resolved: \(loser) note.txt"))
        #expect(recorded.contains("Docver-Removed: \(loser) note.txt"))
        #expect(try bob.conflicts().isEmpty)
        #expect(try bob.read("note.txt") == Self.markedMerge(loser: loser))
    }

    /// Removing versions that are already resolved settles nothing new, so it is not refused.
    @Test func removingOnlyResolvedVersionsIgnoresMarkers() async throws {
        let scratch = try Scratch()
        let fixture = try await Self.savedMarkers(scratch)
        let bob = fixture.devices[1]
        try bob.markResolved(fixture.document, force: true)
        #expect(try listedConflictVersions("note.txt", in: bob) == [fixture.losers[0]: true])
        let result = try bob.removeOtherVersions(of: fixture.document)
        let recorded = try commitTrailers(of: result.id, in: bob)
        #expect(recorded.contains("Docver-Removed: \(fixture.losers[0]) note.txt"))
        #expect(!recorded.contains { $0.hasPrefix("Docver-Resolved:") }, "nothing left to resolve")
        #expect(try listedConflictVersions("note.txt", in: bob).isEmpty)
    }
}
