import DocverKit
import Foundation
import Testing

/// A ManagedDocument meets the world: conflicts brought by a sync run in another process,
/// newer versions saved by another process, the CLI saving at the same time, failed saves.
@Suite struct EditorOutsideChangesTests {
    /// Two devices that share `note.txt` ("first\n") through a bare remote.
    private func twoDevices(_ scratch: Scratch) throws -> (alice: Container, bob: Container) {
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", name: "Alice's Laptop", remote: remote)
        let bob = try scratch.device("bob", name: "Bob's Phone", remote: remote)
        try alice.saveText("first\n", to: "note.txt")
        try alice.sync()
        try bob.sync()
        #expect(try bob.read("note.txt") == "first\n")
        return (alice, bob)
    }

    @Test func conflictFromAnotherDeviceIsNoticedByPollingAndResolved() async throws {
        let scratch = try Scratch()
        let (alice, bob) = try twoDevices(scratch)
        let clock = ManualClock()
        let poll = Duration.seconds(10)
        let doc = try textDocument(alice, "note.txt", clock: clock, pollInterval: poll)
        try await doc.open()
        let states = Recorder(await doc.stateChanges())
        let events = Recorder(await doc.events())

        // Alice saves in the editor; Bob, later, saves a competing version and pushes it.
        try await doc.edit { $0.text = "alice\n" }
        try await doc.save()
        let aliceVersion = try #require(try alice.currentVersion(of: DocumentPath("note.txt")))
        scratch.clock.tick()
        let bobSave = try bob.saveText("bob\n", to: "note.txt")
        try bob.sync()

        // Alice's CLI syncs in another process; the editor notices at its next poll.
        let sync = try docverSucceeds("sync", in: alice)
        #expect(sync.stdout.contains("note.txt: ") && sync.stdout.contains("see 'docver conflicts'"), "\(sync.stdout)")
        try await clock.waitForSleeper(until: clock.now.advanced(by: poll))
        clock.advance(by: poll)
        try await states.wait("the conflict") { $0.last == .inConflict }

        // Bob's later version is current everywhere: the editor reloads it, editing
        // disabled meanwhile; Alice's version is kept as a conflict version.
        #expect(states.all == [.editingDisabled, [.editingDisabled, .inConflict], .inConflict])
        #expect(await doc.state == .inConflict)
        #expect(await doc.model?.text == "bob\n")
        #expect(await !doc.hasUnsavedChanges)
        try await events.wait { $0.contains(.reloaded(version: bobSave)) }
        let conflicts = try await doc.conflictVersions()
        #expect(conflicts.map(\.id) == [aliceVersion.id])
        #expect(conflicts.map(\.device.name) == ["Alice's Laptop"])
        #expect(try await doc.currentVersion()?.device.name == "Bob's Phone")

        // Resolving returns the document to normal.
        let outcome = try await doc.resolve(using: LatestDateStrategy())
        guard case let .keep(kept) = outcome.resolution else { Issue.record("latest-date keeps a version"); return }
        #expect(kept.id == bobSave)
        #expect(outcome.resolved == [aliceVersion.id])
        #expect(await doc.state == .normal)
        try await states.wait("back to normal") { $0.last == .normal }
        #expect(try await doc.conflictVersions().isEmpty)
        #expect(await doc.model?.text == "bob\n")

        // The editor keeps working after the conflict.
        try await doc.edit { $0.text = "bob, then alice\n" }
        try await doc.close()
        #expect(try alice.currentText("note.txt") == "bob, then alice\n")
        try expectFsckClean(alice.root)
    }

    @Test func conflictWonByTheEditorAndResolvedByTheCLI() async throws {
        let scratch = try Scratch()
        let (alice, bob) = try twoDevices(scratch)
        let doc = try textDocument(alice, "note.txt")
        try await doc.open()
        let states = Recorder(await doc.stateChanges())

        // Bob saves first; Alice's editor saves later, so Alice's version wins.
        let bobSave = try bob.saveText("bob\n", to: "note.txt")
        try bob.sync()
        #expect(try bob.currentVersion(of: DocumentPath("note.txt"))?.id == bobSave)
        scratch.clock.tick()
        try await doc.edit { $0.text = "alice\n" }
        try await doc.save()

        try docverSucceeds("sync", in: alice)
        await doc.checkForChanges()

        // The version the editor holds stayed current: no reload, just the conflict.
        try await states.wait("the conflict") { !$0.isEmpty }
        #expect(states.all == [.inConflict])
        #expect(await doc.state == .inConflict)
        #expect(await doc.model?.text == "alice\n")
        #expect(try await doc.conflictVersions().map(\.id) == [bobSave])

        // Another process resolves; the editor's next check sees the conflict gone.
        let resolved = try docverSucceeds("resolve", "note.txt", "--strategy", "latest-date", in: alice)
        #expect(resolved.stdout.contains("note.txt"))
        await doc.checkForChanges()
        try await states.wait("back to normal") { $0.last == .normal }
        #expect(await doc.state == .normal)
        #expect(await doc.model?.text == "alice\n")
        #expect(try alice.currentText("note.txt") == "alice\n")
        try await doc.close()
        try expectFsckClean(alice.root)
    }

    @Test func editsWhileTheUserChoosesAreRefusedNotLost() async throws {
        let scratch = try Scratch()
        let (alice, bob) = try twoDevices(scratch)
        let doc = try textDocument(alice, "note.txt")
        try await doc.open()
        try await doc.edit { $0.text = "alice\n" }
        try await doc.save()
        try bob.saveText("bob\n", to: "note.txt")
        try bob.sync()
        try docverSucceeds("sync", in: alice)
        await doc.checkForChanges()
        #expect(await doc.state.contains(.inConflict))

        // While the resolver's interface is up, the editor (reentrant across the wait) gets an edit.
        let editAccepted = ErrorLog()  // records "accepted" when the edit goes through
        let strategy = UserChoiceStrategy { conflict in
            let stateDuringChoice = await doc.state
            #expect(stateDuringChoice.contains(.editingDisabled), "editing is disabled while resolving")
            do {
                try await doc.edit { $0.text = "typed while choosing\n" }
                editAccepted.handler(CancellationError())
            } catch let error as DocverError {
                #expect(error == .editingDisabled("note.txt"))
            }
            return conflict.conflicts.first
        }
        _ = try await doc.resolve(using: strategy)

        // The edit was either refused or kept: never accepted and then silently dropped.
        if !editAccepted.all.isEmpty {
            let model = await doc.model?.text
            let versions =
                try [alice.currentVersion(of: DocumentPath("note.txt"))!]
                + alice.unresolvedConflictVersions(of: DocumentPath("note.txt")) + alice.history(of: DocumentPath("note.txt"))
            let texts = try versions.compactMap { version -> String? in
                guard case let .flat(data) = try alice.contents(of: version) else { return nil }
                return String(decoding: data, as: UTF8.self)
            }
            #expect(
                model == "typed while choosing\n" || texts.contains("typed while choosing\n"),
                "an accepted edit was lost by the resolution")
        }
        #expect(await doc.state == .normal)
        #expect(try alice.currentText("note.txt") == "alice\n", "the chosen version is current")
        try await doc.close()
    }

    @Test func cancelledResolutionKeepsTheConflictAndEditing() async throws {
        let scratch = try Scratch()
        let (alice, bob) = try twoDevices(scratch)
        let doc = try textDocument(alice, "note.txt")
        try await doc.open()
        let states = Recorder(await doc.stateChanges())
        try await doc.edit { $0.text = "alice\n" }
        try await doc.save()
        try bob.saveText("bob\n", to: "note.txt")
        try bob.sync()
        try docverSucceeds("sync", in: alice)
        await doc.checkForChanges()
        let refs = try refSnapshot(alice.root)

        await expectDocverError(.cancelled(document: "note.txt")) {
            try await doc.resolve(using: UserChoiceStrategy { _ in nil })
        }
        #expect(await doc.state == .inConflict)
        #expect(try refSnapshot(alice.root) == refs, "a cancelled resolution changes nothing")
        try await states.wait { $0.suffix(2) == [[.inConflict, .editingDisabled], .inConflict] }
        try await doc.edit { $0.text += "more\n" }
        try await doc.close()
    }

    @Test func newerVersionFromAnotherProcessIsReloaded() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("mine\n", to: "note.txt")
        try alice.saveText("unrelated\n", to: "other.txt")
        let clock = ManualClock()
        let poll = Duration.seconds(1)
        let doc = try textDocument(alice, "note.txt", clock: clock, pollInterval: poll)
        try await doc.open()
        let states = Recorder(await doc.stateChanges())
        let events = Recorder(await doc.events())

        // A save of another document changes nothing for the editor.
        try alice.write("unrelated, edited\n", to: "other.txt")
        try docverSucceeds("save", "other.txt", in: alice)
        await doc.checkForChanges()
        #expect(await doc.state == .normal)
        #expect(await doc.model?.text == "mine\n")

        // Another process saves a newer version of the document.
        try alice.write("theirs\n", to: "note.txt")
        try docverSucceeds("save", "note.txt", in: alice)
        let newer = try #require(try alice.currentVersion(of: DocumentPath("note.txt")))
        try await clock.waitForSleeper(until: clock.now.advanced(by: poll))
        clock.advance(by: poll)
        try await states.wait("the reload") { $0.last == .normal }
        try await events.wait("the reload") { !$0.isEmpty }

        // Exactly these: the save of the other document announced nothing.
        #expect(states.all == [.editingDisabled, .normal], "editing is disabled while the newer version loads")
        #expect(events.all == [.reloaded(version: newer.id)])
        #expect(await doc.model?.text == "theirs\n")
        #expect(await !doc.hasUnsavedChanges)
        #expect(await doc.fileModificationDate == newer.modified)
        #expect(try alice.conflictTexts("note.txt").isEmpty)

        // Editing works again, based on the reloaded version: no conflict.
        try await doc.edit { $0.text = "theirs, then mine\n" }
        try await doc.save()
        #expect(await doc.state == .normal)
        #expect(try alice.currentText("note.txt") == "theirs, then mine\n")
        #expect(try alice.conflictTexts("note.txt").isEmpty)
        try await doc.close()
        try expectFsckClean(alice.root)
    }

    @Test func unsavedEditsSurviveAReloadAndCompete() async throws {
        let scratch = try Scratch()
        let (alice, bob) = try twoDevices(scratch)
        let doc = try textDocument(alice, "note.txt")
        try await doc.open()
        let states = Recorder(await doc.stateChanges())
        let events = Recorder(await doc.events())

        // Alice types but has not saved; Bob saves a newer version and Alice's CLI syncs it in.
        try await doc.edit { $0.text = "alice, unsaved\n" }
        try bob.saveText("bob\n", to: "note.txt")
        try bob.sync()
        try docverSucceeds("sync", in: alice)
        #expect(try alice.read("note.txt") == "bob\n")

        await doc.checkForChanges()

        // The edits were saved against the version they were made on, then the winner loaded.
        try await events.wait("the reload") { $0.contains { if case .reloaded = $0 { true } else { false } } }
        let saved = events.all.compactMap { event -> String? in
            if case let .editsSavedIntoConflict(version) = event { version } else { nil }
        }
        #expect(saved.count == 1)
        let texts = try Set([alice.currentText("note.txt")].compactMap { $0 } + alice.conflictTexts("note.txt"))
        #expect(texts == ["alice, unsaved\n", "bob\n"], "both versions exist: one current, one a conflict version")
        #expect(await doc.model?.text == (try alice.currentText("note.txt")))
        #expect(await !doc.hasUnsavedChanges)
        #expect(await doc.state == .inConflict)
        try await states.wait("the conflict") { $0.last == .inConflict }
        #expect(states.all.first == .editingDisabled)
        #expect(try alice.read("note.txt") == alice.currentText("note.txt"))
        if let version = saved.first {
            let all = try [alice.currentVersion(of: DocumentPath("note.txt"))!] + alice.unresolvedConflictVersions(of: DocumentPath("note.txt"))
            let mine = try #require(all.first { $0.id == version })
            #expect(try alice.contents(of: mine) == .flat(Data("alice, unsaved\n".utf8)))
        }

        // After a sync, Bob sees the same versions.
        try docverSucceeds("sync", in: alice)
        try bob.sync()
        try expectConverged([alice, bob])
        try await doc.close()
    }

    @Test func unsavedEditsBeatADeletionFromAnotherProcess() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("start\n", to: "note.txt")
        let doc = try textDocument(alice, "note.txt")
        try await doc.open()
        try await doc.edit { $0.text = "still typing\n" }

        try alice.remove("note.txt")
        try docverSucceeds("save", "note.txt", in: alice)
        await doc.checkForChanges()

        // A modification wins over a deletion: the edits are current, the deletion a conflict version.
        #expect(try alice.currentText("note.txt") == "still typing\n")
        #expect(try alice.unresolvedConflictVersions(of: DocumentPath("note.txt")).map(\.isDeletion) == [true])
        #expect(await doc.model?.text == "still typing\n")
        #expect(await doc.state == .inConflict)
        #expect(await !doc.hasUnsavedChanges)
        #expect(try alice.read("note.txt") == "still typing\n")
        try await doc.close()
        try expectFsckClean(alice.root)
    }

    @Test func editsMadeOutsideTheEditorAreSavedBeforeTheEditorsSave() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("start\n", to: "note.txt")
        let doc = try textDocument(alice, "note.txt")
        try await doc.open()

        // Another program changes the file without saving; then the editor saves its edits.
        try alice.write("changed in another program\n", to: "note.txt")
        try await doc.edit { $0.text = "changed in the editor\n" }
        try await doc.save()

        // Neither is lost: both are versions, competing under the conflict rules.
        let texts = try Set([alice.currentText("note.txt")].compactMap { $0 } + alice.conflictTexts("note.txt"))
        #expect(texts == ["changed in another program\n", "changed in the editor\n"])
        #expect(await doc.state == .inConflict)
        #expect(await doc.model?.text == (try alice.currentText("note.txt")))
        #expect(try alice.read("note.txt") == alice.currentText("note.txt"))
        #expect(try alice.status().changed.isEmpty)
        try await doc.close()
        try expectFsckClean(alice.root)
    }

    @Test func saveOnAStaleBaseCompetesInsteadOfOverwriting() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("start\n", to: "note.txt")
        let doc = try textDocument(alice, "note.txt")
        try await doc.open()

        // Another process saves a newer version; the editor saves before its next poll.
        try alice.write("theirs\n", to: "note.txt")
        try docverSucceeds("save", "note.txt", in: alice)
        try await doc.edit { $0.text = "mine\n" }
        try await doc.save()

        let texts = try Set([alice.currentText("note.txt")].compactMap { $0 } + alice.conflictTexts("note.txt"))
        #expect(texts == ["theirs\n", "mine\n"], "the newer version was not silently replaced")
        #expect(await doc.state == .inConflict)
        #expect(await doc.model?.text == (try alice.currentText("note.txt")))
        #expect(await !doc.hasUnsavedChanges)
        try await doc.close()
        try expectFsckClean(alice.root)
    }

    @Test func deletionByAnotherProcessIsReportedOnceAndSavingMakesTheDocumentAgain() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("start\n", to: "note.txt")
        let clock = ManualClock()
        let poll = Duration.seconds(1)
        let doc = try textDocument(alice, "note.txt", clock: clock, pollInterval: poll)
        try await doc.open()
        let errors = ErrorLog()
        await doc.setErrorHandler(errors.handler)

        try alice.remove("note.txt")
        try docverSucceeds("save", "note.txt", in: alice)
        // Several polls see the same deletion: the editor hears of it once.
        for _ in 0..<3 {
            try await clock.waitForSleeper(until: clock.now.advanced(by: poll))
            clock.advance(by: poll)
        }
        try await clock.waitForSleeper(until: clock.now.advanced(by: poll))  // the third check is done
        await doc.checkForChanges()
        #expect(errors.all == ["no such document: note.txt"])
        #expect(await doc.state == .normal)
        #expect(await doc.model?.text == "start\n", "the editor keeps what it shows")

        // Saving makes the document again.
        try await doc.edit { $0.text = "kept after all\n" }
        try await doc.save()
        #expect(try alice.currentText("note.txt") == "kept after all\n")
        #expect(try alice.read("note.txt") == "kept after all\n")
        #expect(errors.all.count == 1)
        try await doc.close()
        try expectFsckClean(alice.root)
    }

    @Test func editorAndCLISavingAtOnceLoseNothing() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let doc = try textDocument(alice, "editor.txt")
        try await doc.create(TextModel(text: "editor 0\n"))
        try alice.saveText("cli 0\n", to: "cli.txt")
        let before = try commitCount("HEAD", in: alice.root)
        let rounds = 40

        let script = """
            set -u
            for i in $(seq 1 \(rounds)); do
              printf 'cli %s\\n' "$i" > cli.txt
              out=$("$DOCVER" save cli.txt 2>&1) || { echo "round $i: $out" >&2; exit 1; }
              case "$out" in *"saved 1 document"*) ;; *) echo "round $i: $out" >&2; exit 1 ;; esac
            done
            """
        let root = alice.root
        let cli = Task.detached {
            try runProcess("/bin/bash", ["-c", script], in: root, environment: ["DOCVER": docverExecutable])
        }
        for round in 1...rounds {
            try await doc.edit { $0.text = "editor \(round)\n" }
            try await doc.save()
            #expect(await doc.state == .normal)
        }
        let result = try await cli.value
        #expect(result.status == 0, "the CLI save loop failed: \(result.stderr)")
        await doc.checkForChanges()
        #expect(await doc.state == .normal)
        #expect(await doc.model?.text == "editor \(rounds)\n")

        #expect(try commitCount("HEAD", in: alice.root) == before + 2 * rounds, "one commit per save, no more, no less")
        #expect(try alice.versionCount("editor.txt") == rounds + 1)
        #expect(try alice.versionCount("cli.txt") == rounds + 1)
        #expect(try alice.log(of: DocumentPath("editor.txt")).count == rounds + 1)
        #expect(try alice.log(of: DocumentPath("cli.txt")).count == rounds + 1)
        #expect(try alice.currentText("editor.txt") == "editor \(rounds)\n")
        #expect(try alice.currentText("cli.txt") == "cli \(rounds)\n")
        #expect(try alice.conflicts().isEmpty)
        let parents = try alice.git(["rev-list", "--parents", "HEAD"]).split(separator: "\n")
        #expect(parents.filter { $0.split(separator: " ").count > 2 }.isEmpty, "one straight line of saves")
        #expect(try alice.status().changed.isEmpty)
        #expect(try alice.git(["status", "--porcelain"]).isEmpty)
        try await doc.close()
        try expectFsckClean(alice.root)
    }

    @Test func failedSaveSetsSavingErrorUntilASaveSucceeds() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("fine\n", to: "note.txt")
        let doc = try textDocument(alice, "note.txt")
        try await doc.open()
        let errors = ErrorLog()
        await doc.setErrorHandler(errors.handler)
        let states = Recorder(await doc.stateChanges())

        // Block the object the save must write (permissions would not stop root).
        let (text, blocker) = try blockObjectWrite(in: alice, textPrefix: "edit")
        let refs = try refSnapshot(alice.root)

        try await doc.edit { [text] in $0.text = text }
        await #expect(throws: (any Error).self) { try await doc.save() }

        #expect(await doc.state == .savingError)
        #expect(errors.all.count == 1, "the error handler hears of the failure: \(errors.all)")
        #expect(await doc.hasUnsavedChanges, "the edits are still there to save")
        #expect(await doc.model?.text == text)
        #expect(try refSnapshot(alice.root) == refs, "a failed save changes no reference")
        #expect(try alice.read("note.txt") == "fine\n")

        // Once the obstacle is gone, the next save succeeds and clears the error.
        try FileManager.default.removeItem(at: blocker)
        try await doc.save()
        #expect(await doc.state == .normal)
        try await states.wait { $0 == [.savingError, .normal] }
        #expect(try alice.currentText("note.txt") == text)
        #expect(errors.all.count == 1)
        try await doc.close()
        try expectFsckClean(alice.root)
    }

    @Test func failedAutosaveSetsSavingError() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("fine\n", to: "note.txt")
        let clock = ManualClock()
        let doc = try textDocument(alice, "note.txt", clock: clock, autosaveDelay: .seconds(2))
        try await doc.open()
        let errors = ErrorLog()
        await doc.setErrorHandler(errors.handler)
        let states = Recorder(await doc.stateChanges())

        let (text, blocker) = try blockObjectWrite(in: alice, textPrefix: "autosaved")

        try await doc.edit { [text] in $0.text = text }
        try await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(2)))
        clock.advance(by: .seconds(2))
        try await states.wait("the failed autosave") { $0 == [.savingError] }
        #expect(errors.all.count == 1)
        #expect(await doc.hasUnsavedChanges)

        try FileManager.default.removeItem(at: blocker)
        try await doc.close()
        #expect(try alice.currentText("note.txt") == text)
        try await states.wait { $0 == [.savingError, .normal, .closed] }
    }

    /// Finds a text whose blob would go into a loose-object folder that does not exist yet and
    /// puts a plain file where that folder goes: writing the blob then fails for any user, root
    /// included, before any reference moves. Remove the returned file to let saves succeed again.
    private func blockObjectWrite(in container: Container, textPrefix: String) throws -> (text: String, blocker: URL) {
        for attempt in 0..<10_000 {
            let text = "\(textPrefix) \(attempt)\n"
            let id = try runProcess("/usr/bin/git", ["hash-object", "--stdin"], in: container.root, input: Data(text.utf8))
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let blocker = container.root.appendingPathComponent(".git/objects/\(id.prefix(2))")
            if id.count == 40, !FileManager.default.fileExists(atPath: blocker.path) {
                try Data("in the way".utf8).write(to: blocker)
                return (text, blocker)
            }
        }
        throw TimedOut(what: "a free loose-object folder")
    }
}
