import DocverKit
import Foundation
import Testing

/// The library's first hour: mistakes show where they are made, results say what they hold.
@Suite struct LibraryFirstHourTests {
    /// A remote at a local path that does not exist fails when it is added, not at the first
    /// sync, and nothing is configured.
    @Test func addingARemoteAtAMissingPathFailsAtOnce() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let missing = scratch.path("nowhere/notes.git").path
        #expect {
            try alice.addRemote("origin", url: missing)
        } throws: { error in
            guard case DocverError.noRepositoryAt = error else { return false }
            return true
        }
        #expect(try alice.remotes().isEmpty)
        // A bare repository there is fine, and so is a network URL (not contacted).
        let remote = try scratch.bareRemote()
        try alice.addRemote("origin", url: remote.path)
        try alice.addRemote("server", url: "https://example.invalid/notes.git")
        #expect(try alice.remotes().map(\.name) == ["origin", "server"])
    }

    /// `clone` names what it returns.
    @Test func cloneReturnsANamedResult() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try alice.saveText("hello\n", to: "note.txt")
        try alice.sync()
        let cloned = try Container.clone(from: remote.path, to: scratch.path("phone"), device: Device(id: "phone"))
        #expect(cloned.container.device.id == "phone")
        #expect(cloned.report.integrated)
        #expect(try cloned.container.read("note.txt") == "hello\n")
    }
}
