import DocverKit
import Foundation
import Testing

/// Saves: their commit metadata and trailers, no-change saves, history order, restore.
@Suite struct CoreSaveTests {
    private func trailers(_ revision: String, in container: Container) throws -> [String] {
        let message = try container.git(["log", "-1", "--format=%B", revision])
        let parsed = try runProcess(
            "/usr/bin/git", ["interpret-trailers", "--parse"], in: container.root,
            input: Data(message.utf8))
        #expect(parsed.status == 0)
        return parsed.stdout.split(separator: "\n").map(String.init)
    }

    private func field(_ format: String, _ revision: String = "HEAD", in container: Container) throws -> String {
        try container.git(["log", "-1", "--format=\(format)", revision]).trimmingCharacters(in: .newlines)
    }

    /// Changes as the body lines of a save ("added: a.txt").
    private func lines(_ changes: [DocumentChange]) -> [String] {
        changes.map { "\($0.change.rawValue): \($0.document.path)" }
    }

    @Test func aSaveIsACommitOnTheDeviceBranchWithDeviceMetadata() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice-laptop", name: "Alice's Laptop")
        let id = try alice.saveText("hello\n", to: "note.txt")

        #expect(try alice.git(["symbolic-ref", "HEAD"]) == "refs/heads/docver/alice-laptop\n")
        #expect(try alice.git(["rev-parse", "refs/heads/docver/alice-laptop"]) == id + "\n")
        #expect(try field("%an|%ae|%cn|%ce", in: alice) == "Alice's Laptop|alice-laptop@docver|Alice's Laptop|alice-laptop@docver")
        #expect(try field("%s", in: alice) == "Save note.txt")
        #expect(try field("%P", in: alice).isEmpty)
        #expect(
            try alice.git(["log", "-1", "--format=%B"])
                == "Save note.txt\n\nadded: note.txt\n\nDocver-Device: alice-laptop\nDocver-Device-Name: Alice's Laptop\n\n")
        #expect(try trailers("HEAD", in: alice) == ["Docver-Device: alice-laptop", "Docver-Device-Name: Alice's Laptop"])
        #expect(try field("%(trailers:key=Docver-Device,valueonly)", in: alice) == "alice-laptop")
        try expectFsckClean(alice.root)
    }

    @Test func bodyLinesListAddedModifiedAndDeletedDocuments() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.write("1", to: "keep.txt")
        try alice.write("1", to: "gone.txt")
        try alice.write("p", to: "trip.imagenotes/text.txt")
        let first = try #require(try alice.save())
        #expect(first.changes.map(\.change) == [.added, .added, .added])
        #expect(try field("%s", in: alice) == "Save 3 documents")

        try alice.write("2", to: "keep.txt")
        try alice.remove("gone.txt")
        try alice.write("new", to: "folder/new.txt")
        try alice.write("q", to: "trip.imagenotes/img/p.png")
        let second = try #require(try alice.save(nil, message: "Tidy up"))
        #expect(Set(lines(second.changes)) == ["modified: keep.txt", "deleted: gone.txt", "added: folder/new.txt", "modified: trip.imagenotes"])
        #expect(try field("%s", in: alice) == "Tidy up")
        let body = try alice.git(["log", "-1", "--format=%b"]).split(separator: "\n").map(String.init)
        #expect(
            Set(body.filter { !$0.hasPrefix("Docver-") }) == [
                "added: folder/new.txt", "deleted: gone.txt", "modified: keep.txt", "modified: trip.imagenotes",
            ])
        #expect(try trailers("HEAD", in: alice) == ["Docver-Device: alice", "Docver-Device-Name: alice"])
        // The log entry reads the same changes back.
        let entry = try #require(try alice.log(limit: 1).first)
        #expect(entry.id == second.id)
        #expect(entry.subject == "Tidy up")
        #expect(entry.kind == .save)
        #expect(Set(entry.changes) == Set(second.changes))
        try expectFsckClean(alice.root)
    }

    @Test func aMultiLineMessageKeepsItsBodyBeforeTheChangeLines() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.write("x", to: "a.txt")
        _ = try #require(try alice.save(nil, message: "Subject line\n\nWhy it changed.\nSigned-off-by: Alice <a@example.com>"))
        #expect(try field("%s", in: alice) == "Subject line")
        let message = try alice.git(["log", "-1", "--format=%B"])
        #expect(message.contains("Why it changed.\n"))
        #expect(message.contains("added: a.txt\n"))
        #expect(try trailers("HEAD", in: alice) == ["Docver-Device: alice", "Docver-Device-Name: alice"])
    }

    @Test func messagesThatForgeRecordsAreRejected() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("x", to: "a.txt")
        try alice.write("y", to: "a.txt")
        let before = try refSnapshot(alice.root)
        for message in ["ok\n\nDocver-Device: mallory", "Docver-Device: mallory", "a\0b"] {
            #expect(throws: DocverError.self) { try alice.save(nil, message: message) }
        }
        #expect(try refSnapshot(alice.root) == before)
    }

    @Test func saveWithNothingChangedReturnsNilAndCreatesNoCommit() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        #expect(try alice.save() == nil)  // empty container
        #expect(try refSnapshot(alice.root).isEmpty)
        try alice.saveText("x", to: "a.txt")
        let before = try refSnapshot(alice.root)
        #expect(try alice.save() == nil)
        #expect(try alice.save([DocumentPath("a.txt")]) == nil)
        #expect(try alice.save(nil, message: "nothing") == nil)
        // Touching a file without changing its bytes is no change either.
        try alice.write("x", to: "a.txt")
        #expect(try alice.save() == nil)
        #expect(try refSnapshot(alice.root) == before)
        #expect(try alice.status().changed.isEmpty)
        #expect(try commitCount("HEAD", in: alice.root) == 1)
    }

    @Test func savingNamedDocumentsLeavesOthersUnsaved() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.write("a", to: "a.txt")
        try alice.write("b", to: "b.txt")
        let result = try #require(try alice.save([DocumentPath("a.txt")]))
        #expect(lines(result.changes) == ["added: a.txt"])
        #expect(try lines(alice.status().changed) == ["added: b.txt"])
        // A component path saves its whole package.
        try alice.write("t", to: "p.pkg/text.txt")
        try alice.write("u", to: "p.pkg/more.txt")
        let package = try #require(try alice.save([DocumentPath("p.pkg/text.txt")]))
        #expect(lines(package.changes) == ["added: p.pkg"])
        #expect(try alice.git(["ls-tree", "-r", "--name-only", "HEAD"]) == "a.txt\np.pkg/more.txt\np.pkg/text.txt\n")
    }

    @Test func historyIsNewestFirstAndLogFollowsTheBranch() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let a1 = try alice.saveText("one", to: "a.txt")
        let b1 = try alice.saveText("b", to: "b.txt")
        let a2 = try alice.saveText("two", to: "a.txt")
        let b2 = try alice.saveText("bb", to: "b.txt")
        let a3 = try alice.saveText("three", to: "a.txt")
        let a = try DocumentPath("a.txt")

        let current = try #require(try alice.currentVersion(of: a))
        #expect(current.id == a3)
        #expect(current.size == 5)
        #expect(current.kind == .flat)
        #expect(current.device.id == "alice")
        #expect(current.document == a)
        #expect(!current.isDeletion)
        #expect(try alice.history(of: a).map(\.id) == [a2, a1])
        #expect(try alice.history(of: a, limit: 1).map(\.id) == [a2])
        #expect(try alice.history(of: DocumentPath("b.txt")).map(\.id) == [b1])
        #expect(try alice.currentVersion(of: DocumentPath("b.txt"))?.id == b2)
        let history = try alice.history(of: a)
        #expect(history[0].modified >= history[1].modified)
        #expect(try history.map { try alice.contents(of: $0) } == [.flat(Data("two".utf8)), .flat(Data("one".utf8))])

        #expect(try alice.log().map(\.id) == [a3, b2, a2, b1, a1])
        #expect(try alice.log(limit: 2).map(\.id) == [a3, b2])
        #expect(try alice.log(of: a).map(\.id) == [a3, a2, a1])
        let documents = try alice.documents()
        #expect(documents.map(\.document.path) == ["a.txt", "b.txt"])
        #expect(documents.map(\.current.id) == [a3, b2])
    }

    /// (docs/MODEL.md: R16.)
    @Test func deletionIsAVersionAndTheDocumentCanComeBack() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let a = try DocumentPath("a.txt")
        let first = try alice.saveText("one", to: "a.txt")
        try alice.remove("a.txt")
        let deletion = try #require(try alice.save([a]))
        #expect(lines(deletion.changes) == ["deleted: \(a.path)"])
        let current = try #require(try alice.currentVersion(of: a))
        #expect(current.isDeletion)
        #expect(current.id == deletion.id)
        #expect(try alice.contents(of: current) == .deleted)
        #expect(try alice.documents().isEmpty)
        let restored = try alice.restore(a, to: String(first.prefix(8)))
        #expect(try alice.read("a.txt") == "one")
        #expect(try alice.currentVersion(of: a)?.id == restored.id)
        #expect(try alice.history(of: a).map(\.id) == [deletion.id, first])
    }

    @Test func restoreMakesANewSaveWithTheOldContents() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let a = try DocumentPath("a.txt")
        let v1 = try alice.saveText("version one\n", to: "a.txt")
        let v2 = try alice.saveText("version two\n", to: "a.txt")
        try alice.saveText("other", to: "b.txt")
        let before = try commitCount("HEAD", in: alice.root)

        let result = try alice.restore(a, to: String(v1.prefix(6)))
        #expect(result.id != v1 && result.id != v2)
        #expect(lines(result.changes) == ["modified: \(a.path)"])
        #expect(try commitCount("HEAD", in: alice.root) == before + 1)
        #expect(try alice.git(["rev-parse", "HEAD"]) == result.id + "\n")
        let current = try #require(try alice.currentVersion(of: a))
        #expect(current.id == result.id)
        #expect(try alice.contents(of: current) == alice.contents(of: alice.version(v1, of: a)))
        #expect(try alice.read("a.txt") == "version one\n")
        #expect(try alice.git(["show", "HEAD:a.txt"]) == "version one\n")
        #expect(try alice.git(["show", "HEAD:b.txt"]) == "other")
        #expect(try alice.history(of: a).map(\.id) == [v2, v1])
        #expect(try field("%s", in: alice) == "Restore a.txt to version \(v1.prefix(12))")
        #expect(try trailers("HEAD", in: alice).contains("Docver-Restored: \(v1) a.txt"))
        #expect(try alice.status().changed.isEmpty)
        #expect(try alice.git(["status", "--porcelain"]).isEmpty)
        try expectFsckClean(alice.root)
    }

    @Test func restoreSavesUnsavedEditsFirst() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let a = try DocumentPath("a.txt")
        let v1 = try alice.saveText("one", to: "a.txt")
        try alice.saveText("two", to: "a.txt")
        try alice.write("unsaved edit", to: "a.txt")
        try alice.restore(a, to: v1)
        #expect(try alice.read("a.txt") == "one")
        let history = try alice.history(of: a)
        #expect(try alice.contents(of: history[0]) == .flat(Data("unsaved edit".utf8)))
        #expect(history.count == 3)
    }

    @Test func restoreOfAPackageBringsBackEveryComponent() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let trip = try DocumentPath("trip.imagenotes")
        try alice.write("text one", to: "trip.imagenotes/text.txt")
        try alice.write("img", to: "trip.imagenotes/images/a.png")
        let v1 = try #require(try alice.save([trip])).id
        try alice.write("text two", to: "trip.imagenotes/text.txt")
        try alice.remove("trip.imagenotes/images")
        try alice.write("extra", to: "trip.imagenotes/extra.txt")
        _ = try #require(try alice.save([trip]))
        try alice.restore(trip, to: v1)
        let contents = try alice.contents(of: #require(try alice.currentVersion(of: trip)))
        #expect(contents == .package(FilePackage(files: ["text.txt": Data("text one".utf8), "images/a.png": Data("img".utf8)])))
        #expect(try alice.read("trip.imagenotes/text.txt") == "text one")
        #expect(try alice.read("trip.imagenotes/images/a.png") == "img")
        #expect(!FileManager.default.fileExists(atPath: alice.root.path + "/trip.imagenotes/extra.txt"))
        #expect(try alice.status().changed.isEmpty)
        #expect(try alice.currentVersion(of: trip)?.kind == .package)
        #expect(try alice.currentVersion(of: trip)?.size == Int64("text one".utf8.count + 3))
    }
}
