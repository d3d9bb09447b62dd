import Foundation
import Testing

@testable import DocverKit

/// The integrator and the key-value store's reserved folder: each key's file is decided by the
/// current-version rule like a flat document, but its losers are not conflict records.
@Suite struct KeyValueIntegrationTests {
    @Test func aKeyWrittenOnSeveralSidesIsDecidedByTheRuleWithoutAConflictRecord() throws {
        let scratch = try TempRepository()
        let bg = KeyValueFiles.path(ofKey: "bg"), fg = KeyValueFiles.path(ofKey: "fg")
        func value(_ key: String, _ number: Int64) -> String {
            String(decoding: KeyValueFiles.contents(key: key, value: .int(number)), as: UTF8.self)
        }
        let base = try scratch.commit(["notes.txt": "base", bg: value("bg", 0)], at: 0)
        let alice = try scratch.commit(on: base, changing: ["notes.txt": "alice", bg: value("bg", 1)], device: "alice", at: 300)
        let bob = try scratch.commit(
            on: base, changing: ["notes.txt": "bob", bg: value("bg", 2), fg: value("fg", 5)],
            device: "bob", at: 200)
        let carol = try scratch.commit(on: base, changing: [bg: nil], device: "carol", at: 400)
        var commits: Set<ObjectID> = []
        for order in IntegratorTests.permutations([alice, bob, carol]) {
            let integration = try Integrator(repository: scratch.repository).integrate(Array(order.dropFirst()), into: order[0])
            let head = try #require(integration.head)
            commits.insert(head)
            // The document's loser is recorded; the key's losers (bob's value, carol's removal) are not.
            #expect(integration.conflicts.map(\.path) == ["notes.txt"])
            let tree = try scratch.repository.tree(scratch.repository.commit(head).treeID)
            // Alice's value is the latest; carol's later removal loses to it (a value beats a removal).
            let entry = try #require(try tree.entry(atPath: bg))
            #expect(KeyValueFiles.parse(try scratch.repository.blob(entry.id).data)?.value == .int(1))
            // A key written on one side only is simply taken.
            #expect(try tree.entry(atPath: fg) != nil)
            let message = try scratch.repository.commit(head).message
            #expect(!message.contains(".docver"), "no conflict record names the store: \(message)")
        }
        #expect(commits.count == 1, "every order writes the same commit")
    }
}
