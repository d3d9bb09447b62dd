import DocverKit
import Foundation
import Testing

/// Issue 11, items 3 and 4: a document's state (present, or absent) never depends on whether
/// its folder exists; a folder and a file may take each other's name.
@Suite struct FolderAbsenceTests {
    private func synced(_ ids: [String], _ scratch: Scratch, files: [String: String]) throws -> [Container] {
        let remote = try scratch.bareRemote()
        let devices = try ids.map { try scratch.device($0, remote: remote) }
        for (path, text) in files { try devices[0].write(text, to: path) }
        try devices[0].saveAll(message: "base")
        for device in devices { try device.sync() }
        return devices
    }

    @Test(arguments: [true, false])
    func deletionWithItsFolderAgainstAConcurrentEditIsAConflictVersion(inOneSave: Bool) throws {
        let scratch = try Scratch()
        let devices = try synced(["alice", "bob"], scratch, files: ["notes/e.md": "e\n", "notes/f.md": "f\n"])
        let (alice, bob) = (devices[0], devices[1])
        // Alice deletes both files: the folder vanishes. Bob edits e.md, later (so he wins).
        let deletion: String
        if inOneSave {
            try alice.remove("notes/e.md")
            try alice.remove("notes/f.md")
            deletion = try #require(try alice.saveAll(message: "delete the folder"))
        } else {
            deletion = try alice.deleteAndSave("notes/e.md")
            try alice.deleteAndSave("notes/f.md")  // the folder vanishes with this later save
        }
        scratch.clock.tick()
        try bob.saveText("e edited\n", to: "notes/e.md")
        try alice.sync(); try bob.sync(); try alice.sync()
        try expectConverged([alice, bob])

        let e = try DocumentPath("notes/e.md")
        let conflict = try #require(try alice.conflicts(e).first, "the deletion must be recorded, not dropped")
        #expect(conflict.conflicts.map(\.id) == [deletion])
        #expect(conflict.conflicts.first?.isDeletion == true)
        #expect(try alice.read("notes/e.md") == "e edited\n")
        // f.md was changed on one side only: its deletion stands.
        #expect(try alice.currentVersion(of: DocumentPath("notes/f.md"))?.isDeletion == true)
        try expectFsckClean(alice.root)
    }

    /// (docs/MODEL.md: R17.)
    @Test func aDeletionIsAttributedToItsOwnSaveWhenTheFolderGoesLater() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.write("e\n", to: "notes/e.md")
        try alice.write("f\n", to: "notes/f.md")
        try alice.saveAll(message: "base")
        let deletion = try alice.deleteAndSave("notes/e.md")
        scratch.clock.tick()
        try alice.deleteAndSave("notes/f.md")  // the folder vanishes here
        let current = try #require(try alice.currentVersion(of: DocumentPath("notes/e.md")))
        #expect(current.isDeletion)
        #expect(current.id == deletion, "e.md was deleted by its own save, not by the one that emptied the folder")
        let versions = try alice.history(of: DocumentPath("notes/e.md"))
        #expect(versions.count == 1 && !versions[0].isDeletion)
    }

    @Test func aFileTakesTheNameOfAFolderInOneSave() throws {
        let scratch = try Scratch()
        let devices = try synced(["alice", "bob"], scratch, files: ["notes/a.md": "a\n", "notes/b.md": "b\n"])
        let (alice, bob) = (devices[0], devices[1])
        try FileManager.default.removeItem(at: alice.root.appendingPathComponent("notes"))
        try alice.write("now a file\n", to: "notes")
        let save = try #require(try alice.save(nil, message: nil))
        #expect(
            Set(save.changes.map { "\($0.change.rawValue) \($0.document)" })
                == ["added notes", "deleted notes/a.md", "deleted notes/b.md"])
        try alice.sync(); try bob.sync()
        try expectConverged([alice, bob])
        #expect(try bob.read("notes") == "now a file\n")

        // And back: a folder takes the file's name.
        try FileManager.default.removeItem(at: bob.root.appendingPathComponent("notes"))
        try bob.write("inside\n", to: "notes/c.md")
        try bob.saveAll()
        try bob.sync(); try alice.sync()
        try expectConverged([alice, bob])
        #expect(try alice.read("notes/c.md") == "inside\n")
        try expectFsckClean(alice.root)
    }
}
