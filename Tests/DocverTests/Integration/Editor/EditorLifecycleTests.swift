import DocverKit
import Foundation
import Testing

/// ManagedDocument's lifecycle: create, open, edit and save, save-as, revert, close, delete,
/// and change counting. Every test runs on a manual clock, so no autosave fires behind its back.
@Suite struct EditorLifecycleTests {
    @Test func createSavesTheFirstVersion() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let doc = try textDocument(alice, "notes/todo.txt")
        #expect(await doc.state == .closed)
        let events = Recorder(await doc.events())

        try await doc.create(TextModel(text: "buy milk\n"))

        #expect(await doc.state == .normal)
        #expect(await !doc.hasUnsavedChanges)
        #expect(try alice.read("notes/todo.txt") == "buy milk\n")
        let current = try #require(try alice.currentVersion(of: DocumentPath("notes/todo.txt")))
        #expect(current.device.id == "alice")
        #expect(!current.isDeletion)
        #expect(await doc.fileModificationDate == current.modified)
        #expect(await doc.fileType == "txt")
        #expect(await doc.displayName == "todo")
        try await events.wait { $0 == [.saved(version: current.id)] }
        #expect(try alice.status().changed.isEmpty)
        try await doc.close()
        try expectFsckClean(alice.root)
    }

    @Test func createFailsWhenTheDocumentExists() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("saved\n", to: "saved.txt")
        try alice.write("not saved yet\n", to: "loose.txt")
        let before = try refSnapshot(alice.root)

        for name in ["saved.txt", "loose.txt"] {
            let doc = try textDocument(alice, name)
            let errors = ErrorLog()
            await doc.setErrorHandler(errors.handler)
            await expectDocverError(.documentExists(name)) { try await doc.create(TextModel(text: "new\n")) }
            #expect(errors.all.count == 1, "the error handler hears of the failure")
            #expect(await doc.state == .closed)
            #expect(await doc.model == nil)
        }
        #expect(try alice.read("saved.txt") == "saved\n")
        #expect(try alice.read("loose.txt") == "not saved yet\n")
        #expect(try refSnapshot(alice.root) == before, "a refused create changes nothing")
    }

    @Test func createAfterADeletionMakesTheDocumentAgain() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("old\n", to: "note.txt")
        try alice.deleteAndSave("note.txt")
        let doc = try textDocument(alice, "note.txt")
        try await doc.create(TextModel(text: "again\n"))
        #expect(try alice.currentText("note.txt") == "again\n")
        try await doc.close()
    }

    @Test func openLoadsTheCurrentVersion() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("one\n", to: "note.txt")
        try alice.saveText("two\n", to: "note.txt")
        try alice.saveText("other\n", to: "other.txt")
        let doc = try textDocument(alice, "note.txt")

        try await doc.open()

        #expect(await doc.model == TextModel(text: "two\n"))
        #expect(await doc.state == .normal)
        #expect(await !doc.hasUnsavedChanges)
        let current = try #require(try await doc.currentVersion())
        #expect(await doc.fileModificationDate == current.modified)
        #expect(try await doc.history().count == 1)
        #expect(try await doc.conflictVersions().isEmpty)
        try await doc.close()
        #expect(await doc.state == .closed)
    }

    @Test func openFailsForAMissingDocument() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("x\n", to: "other.txt")
        let doc = try textDocument(alice, "missing.txt")
        let errors = ErrorLog()
        await doc.setErrorHandler(errors.handler)
        await expectDocverError(.noSuchDocument("missing.txt")) { try await doc.open() }
        #expect(errors.all.count == 1)
        #expect(await doc.state == .closed)
        await expectDocverError(.documentNotOpen("missing.txt")) { try await doc.edit { $0.text = "no" } }
        await expectDocverError(.documentNotOpen("missing.txt")) { try await doc.save() }
    }

    @Test func editAndSaveMakeANewVersion() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("draft\n", to: "note.txt")
        let doc = try textDocument(alice, "note.txt")
        try await doc.open()
        let events = Recorder(await doc.events())
        let commits = try commitCount("HEAD", in: alice.root)

        try await doc.edit { $0.text = "final\n" }
        #expect(await doc.hasUnsavedChanges)
        #expect(await doc.model?.text == "final\n")
        #expect(try alice.read("note.txt") == "draft\n", "an edit is in memory until saved")

        try await doc.save()

        #expect(await !doc.hasUnsavedChanges)
        #expect(await doc.state == .normal)
        #expect(try alice.read("note.txt") == "final\n")
        #expect(try alice.currentText("note.txt") == "final\n")
        #expect(try alice.versionCount("note.txt") == 2)
        #expect(try commitCount("HEAD", in: alice.root) == commits + 1)
        let current = try #require(try alice.currentVersion(of: DocumentPath("note.txt")))
        try await events.wait { $0 == [.saved(version: current.id)] }
        #expect(await doc.fileModificationDate == current.modified)
        #expect(try alice.status().changed.isEmpty, "the working tree matches the saved version")
        #expect(try alice.git(["status", "--porcelain"]).isEmpty)
        try await doc.close()
        try expectFsckClean(alice.root)
    }

    @Test func saveAsMakesANewDocumentAndFollowsIt() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("original\n", to: "note.txt")
        try alice.saveText("taken\n", to: "taken.txt")
        let doc = try textDocument(alice, "note.txt")
        try await doc.open()
        try await doc.edit { $0.text = "copy\n" }

        await expectDocverError(.documentExists("taken.txt")) { try await doc.save(as: DocumentPath("taken.txt")) }
        #expect(try alice.currentText("taken.txt") == "taken\n")
        #expect(await doc.path.path == "note.txt")

        try await doc.save(as: DocumentPath("archive/copy.txt"))

        #expect(await doc.path.path == "archive/copy.txt")
        #expect(await doc.displayName == "copy")
        #expect(await !doc.hasUnsavedChanges)
        #expect(try alice.currentText("archive/copy.txt") == "copy\n")
        #expect(try alice.read("archive/copy.txt") == "copy\n")
        #expect(try alice.currentText("note.txt") == "original\n", "the original keeps its version")
        #expect(try alice.versionCount("note.txt") == 1)

        // Later saves go to the new document.
        try await doc.edit { $0.text = "copy, edited\n" }
        try await doc.save()
        #expect(try alice.currentText("archive/copy.txt") == "copy, edited\n")
        #expect(try alice.currentText("note.txt") == "original\n")
        try await doc.close()
        try expectFsckClean(alice.root)
    }

    @Test func revertDiscardsUnsavedEdits() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("kept\n", to: "note.txt")
        let clock = ManualClock()
        let doc = try textDocument(alice, "note.txt", clock: clock)
        try await doc.open()
        let refs = try refSnapshot(alice.root)

        try await doc.edit { $0.text = "thrown away\n" }
        try await doc.revert()

        #expect(await doc.model?.text == "kept\n")
        #expect(await !doc.hasUnsavedChanges)
        #expect(await doc.state == .normal)
        #expect(try refSnapshot(alice.root) == refs, "reverting saves nothing")
        // The autosave the edit scheduled is gone with it.
        clock.advance(by: .seconds(60))
        #expect(try refSnapshot(alice.root) == refs)
        #expect(try alice.read("note.txt") == "kept\n")
        try await doc.close()
    }

    @Test func closeSavesUnsavedEditsFirst() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("before\n", to: "note.txt")
        let doc = try textDocument(alice, "note.txt")
        try await doc.open()
        let states = Recorder(await doc.stateChanges())
        try await doc.edit { $0.text = "after\n" }

        try await doc.close()

        #expect(await doc.state == .closed)
        #expect(await !doc.hasUnsavedChanges)
        #expect(try alice.currentText("note.txt") == "after\n")
        #expect(try alice.read("note.txt") == "after\n")
        #expect(try alice.versionCount("note.txt") == 2)
        try await states.wait { $0 == [.closed] }
        await expectDocverError(.documentNotOpen("note.txt")) { try await doc.edit { $0.text = "late" } }

        // Closing again does nothing; closing a clean document saves nothing.
        let refs = try refSnapshot(alice.root)
        try await doc.close()
        try await doc.open()
        try await doc.close()
        #expect(try refSnapshot(alice.root) == refs)
    }

    @Test func deleteRecordsADeletion() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("short-lived\n", to: "note.txt")
        try alice.saveText("stays\n", to: "other.txt")
        let doc = try textDocument(alice, "note.txt")
        try await doc.open()

        try await doc.delete()

        #expect(await doc.state == .closed)
        #expect(!FileManager.default.fileExists(atPath: alice.root.appendingPathComponent("note.txt").path))
        let current = try #require(try alice.currentVersion(of: DocumentPath("note.txt")))
        #expect(current.isDeletion, "the deletion is a version of its own")
        #expect(current.device.id == "alice")
        let history = try alice.history(of: DocumentPath("note.txt"))
        #expect(history.count == 1)
        #expect(try history.first.map { try alice.contents(of: $0) } == .flat(Data("short-lived\n".utf8)))
        #expect(try alice.documents().map(\.path.path) == ["other.txt"])
        #expect(try alice.status().changed.isEmpty)
        #expect(try alice.git(["status", "--porcelain"]).isEmpty)
        try expectFsckClean(alice.root)
    }

    @Test func changeCountTracksDoneUndoneRedoneAndCleared() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let clock = ManualClock()
        let doc = try textDocument(alice, "note.txt", clock: clock)
        try await doc.create(TextModel(text: "x"))
        #expect(await !doc.hasUnsavedChanges)

        await doc.updateChangeCount(.done)
        #expect(await doc.hasUnsavedChanges)
        await doc.updateChangeCount(.undone)
        #expect(await !doc.hasUnsavedChanges)
        await doc.updateChangeCount(.done)
        await doc.updateChangeCount(.done)
        await doc.updateChangeCount(.undone)
        #expect(await doc.hasUnsavedChanges)
        await doc.updateChangeCount(.redone)
        #expect(await doc.hasUnsavedChanges)
        await doc.updateChangeCount(.cleared)
        #expect(await !doc.hasUnsavedChanges)

        // An edit counts as done; a save clears.
        try await doc.edit { $0.text = "y" }
        #expect(await doc.hasUnsavedChanges)
        try await doc.save()
        #expect(await !doc.hasUnsavedChanges)

        // Cleared means clean: no autosave follows.
        let refs = try refSnapshot(alice.root)
        await doc.updateChangeCount(.done)
        await doc.updateChangeCount(.cleared)
        clock.advance(by: .seconds(60))
        #expect(try refSnapshot(alice.root) == refs)
        try await doc.close()
        #expect(try refSnapshot(alice.root) == refs, "closing a clean document saves nothing")
    }

    @Test func packageDocumentRoundTrips() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let path = try DocumentPath("trip.notebook")
        let doc = ManagedDocument<PackageModel>(
            container: alice, path: path,
            configuration: .init(clock: ManualClock()))
        let first = FilePackage(files: ["text.txt": Data("day one\n".utf8), "media/photo.bin": Data([0, 1, 2])])
        try await doc.create(PackageModel(package: first))
        #expect(try alice.currentVersion(of: path)?.kind == .package)
        #expect(try Data(contentsOf: alice.root.appendingPathComponent("trip.notebook/media/photo.bin")) == Data([0, 1, 2]))

        try await doc.edit { $0.package.files["text.txt"] = Data("day two\n".utf8) }
        try await doc.close()

        let reopened = ManagedDocument<PackageModel>(container: alice, path: path, configuration: .init(clock: ManualClock()))
        try await reopened.open()
        #expect(await reopened.model?.package.files == ["text.txt": Data("day two\n".utf8), "media/photo.bin": Data([0, 1, 2])])
        try await reopened.close()
        try expectFsckClean(alice.root)
    }
}
