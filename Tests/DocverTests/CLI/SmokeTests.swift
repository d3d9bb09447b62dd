import DocverKit
import Foundation
import Testing

@Suite struct SmokeTests {
    @Test func saveThenReadBackCurrentVersion() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let id = try alice.saveText("hello\n", to: "note.txt")
        let current = try #require(try alice.currentVersion(of: DocumentPath("note.txt")))
        #expect(current.id == id)
        #expect(try alice.contents(of: current) == .flat(Data("hello\n".utf8)))
        try expectFsckClean(alice.root)
    }

    @Test func cliPrintsVersion() throws {
        let result = try docver("--version")
        #expect(result.status == 0)
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0.1.0")
    }
}
