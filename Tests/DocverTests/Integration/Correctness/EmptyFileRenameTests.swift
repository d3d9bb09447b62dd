import DocverKit
import Foundation
import Testing

/// Issue 25, item 9: a rename needs content. Git leaves empty files out of rename detection;
/// so does docver, or an edit of one empty file follows the "rename" into another.
@Suite struct EmptyFileRenameTests {
    @Test(arguments: [false, true])
    func anEditOfAnEmptyFileDoesNotMoveIntoAnotherEmptyFile(deleterSyncsFirst: Bool) throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.write("", to: "first.txt")
        try alice.write("other\n", to: "other.txt")
        try alice.saveAll()
        try alice.sync(); try bob.sync()

        // Alice deletes the empty file and creates another empty file; Bob types into the first.
        try alice.remove("first.txt")
        try alice.write("", to: "second.txt")
        let aliceSave = try #require(try alice.saveAll())
        let bobEdit = try bob.saveText("bob's text\n", to: "first.txt")
        for device in deleterSyncsFirst ? [alice, bob, alice] : [bob, alice, bob] { try device.sync() }
        try expectConverged([alice, bob])

        for device in [alice, bob] {
            // Bob's edit stays where he made it, against Alice's deletion; her new file stays empty.
            #expect(try device.read("second.txt") == "", "\(device.device.id)")
            #expect(try device.read("first.txt") == "bob's text\n", "\(device.device.id)")
            let first = try DocumentPath("first.txt")
            #expect(try device.currentVersion(of: first)?.id == bobEdit)
            #expect(try device.unresolvedConflictVersions(of: first).map(\.id) == [aliceSave])
            #expect(try device.conflicts(DocumentPath("second.txt")).isEmpty)
        }
    }
}
