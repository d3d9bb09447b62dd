import DocverKit
import Foundation
import Testing

/// C handles must outlive the C calls they are passed to. An integration commit with many
/// conflict records has a message larger than libgit2's object cache keeps (4 KB), so when it
/// is the parent of the next save, only docver's wrapper owns it: if the wrapper were released
/// before `git_commit_create` ran, the save would record a parent read from freed memory.
/// Optimised builds shorten lifetimes most, so CI also runs this suite with `-c release`.
@Suite struct CoreLifetimeTests {
    @Test func aSaveOnTopOfALargeIntegrationRecordsItsRealParent() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let names = (0..<80).map { "notes/document-with-a-long-name-\($0).txt" }
        for name in names { try alice.write("base\n", to: name) }
        _ = try alice.save()
        try alice.sync()
        let (bob, _) = try Container.clone(from: remote.path, to: scratch.path("bob"), device: Device(id: "bob"))
        for name in names {
            try alice.write("alice\n", to: name)
            try bob.write("bob\n", to: name)
        }
        try bob.sync()
        try alice.sync()  // integrates: 80 conflict records in one commit message
        let integration = try #require(try alice.headID())
        let message = try alice.git(["cat-file", "commit", integration])
        #expect(message.utf8.count > 8192)

        for round in 0..<20 {
            try alice.write("edit \(round)\n", to: "notes/extra.txt")
            let before = try #require(try alice.headID())
            let save = try #require(try alice.save([DocumentPath("notes/extra.txt")]))
            let parents = try alice.git(["rev-list", "--parents", "-n", "1", save.id])
                .split(separator: " ").dropFirst().map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            #expect(parents == [before])
        }
        try expectFsckClean(alice.root)
    }
}
