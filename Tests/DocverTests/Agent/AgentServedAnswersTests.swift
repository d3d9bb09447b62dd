@testable import DocverKit
import DocverTestSupport
import Foundation
import Synchronization
import Testing

/// `ls`, `conflicts` and the metadata query ask a running agent: what it serves must always
/// be what the library computes from the repository, whatever happened just before.
@Suite struct AgentServedAnswersTests {
    /// Random saves on two devices, syncs that bring conflicts, resolutions and plain git
    /// commits; after each step, whatever the agent serves (at once, and once it has an
    /// answer) equals the direct computation.
    @Test(arguments: [UInt64(31), 32])
    func theServedDocumentsAndConflictsAreAlwaysTheComputedOnes(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("start\n", to: "a.txt")
        try alice.sync()
        try bob.sync()
        // No autosave and no sync of its own after the first: only the test moves things.
        let agent = try Agent(container: alice, configuration: Agent.Configuration(quietDelay: .seconds(86_400), pollInterval: .seconds(86_400)))
        let warnings = Mutex<[String]>([])
        let running = Task { try await agent.run { event in if case let .warning(text) = event.kind { warnings.withLock { $0.append(text) } } } }
        try await waitFor("the agent's first sync") { agent.status.lastSync != nil }
        let names = ["a.txt", "b.txt", "notes/c.md", "book.pages/index.xml"]
        var servedDocuments = 0
        var servedConflicts = 0
        for step in 0..<20 {
            let name = names.randomElement(using: &random)!
            switch Int.random(in: 0..<6, using: &random) {
            case 0: try alice.saveText("alice \(step)\n", to: name)
            case 5:
                // Both edit one document: the next sync of Alice's brings a conflict.
                try alice.saveText("alice \(step)\n", to: name)
                try bob.saveText("bob \(step)\n", to: name)
                try bob.sync()
            case 1:
                try bob.saveText("bob \(step)\n", to: name)
                try bob.sync()
            case 2: _ = try alice.sync()
            case 3:
                if let conflict = try alice.computeConflicts().first {
                    _ = try await alice.resolve(conflict.document, using: LatestDateStrategy())
                }
            default:
                try alice.write("plain \(step)\n", to: "plain.txt")
                _ = try alice.git(["add", "plain.txt"])
                _ = try alice.git(["-c", "user.name=Git User", "-c", "user.email=git@example.com", "commit", "-q", "-m", "plain"])
            }
            // At once: the agent may still hold answers for the state before; it must not serve them.
            if let served = Agent.servedDocuments(of: alice) {
                #expect(served == (try alice.computeQuery(DocumentQuery())), "seed \(seed) step \(step): documents at once")
            }
            if let served = Agent.servedConflicts(of: alice) {
                #expect(served == (try alice.computeConflicts()), "seed \(seed) step \(step): conflicts at once")
            }
            // After a miss the agent computes them: then it serves, and serves the truth.
            var documents: [MetadataItem]?
            var conflicts: [Conflict]?
            try await waitFor("seed \(seed) step \(step): served answers; warnings: \(warnings.withLock { $0 })") {
                documents = documents ?? Agent.servedDocuments(of: alice)
                conflicts = conflicts ?? Agent.servedConflicts(of: alice)
                return documents != nil && conflicts != nil
            }
            #expect(documents == (try alice.computeQuery(DocumentQuery())), "seed \(seed) step \(step): documents")
            #expect(conflicts == (try alice.computeConflicts()), "seed \(seed) step \(step): conflicts")
            // The public API gives the same, filtered as asked.
            #expect(try alice.query(DocumentQuery(types: ["txt"])) == (try alice.computeQuery(DocumentQuery(types: ["txt"]))))
            #expect(try alice.conflicts(DocumentPath("a.txt")) == (try alice.computeConflicts().filter { $0.document.path == "a.txt" }))
            servedDocuments += documents?.isEmpty == false ? 1 : 0
            servedConflicts += conflicts?.isEmpty == false ? 1 : 0
        }
        #expect(servedDocuments == 20)
        #expect(servedConflicts > 0, "seed \(seed): the steps made conflicts")
        #expect(warnings.withLock { $0 }.isEmpty)
        agent.stop()
        try await running.value
        #expect(Agent.servedDocuments(of: alice) == nil, "no agent, nothing served")
    }

    /// The CLI's `ls --json` and `conflicts --json` print the same with and without an agent.
    @Test func theCLIPrintsTheSameWithAndWithoutTheAgent() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("start\n", to: "a.txt")
        try alice.sync()
        try bob.sync()
        try alice.saveText("alice\n", to: "a.txt")
        try bob.saveText("bob\n", to: "a.txt")
        try bob.sync()
        try alice.sync()
        try alice.saveText("more\n", to: "notes/b.md")
        try alice.sync() // the agent's first sync then moves nothing
        let ls = try docverSucceeds("ls", "--json", in: alice).stdout
        let conflicts = try docverSucceeds("conflicts", "--json", in: alice).stdout
        #expect(conflicts.contains("a.txt"))

        let agent = try Agent(container: alice, configuration: Agent.Configuration(quietDelay: .seconds(86_400), pollInterval: .seconds(86_400)))
        let running = Task { try await agent.run { _ in } }
        try await waitFor("the agent's first sync") { agent.status.lastSync != nil }
        try await waitFor("the agent serves both") {
            Agent.servedDocuments(of: alice) != nil && Agent.servedConflicts(of: alice) != nil
        }
        #expect(try docverSucceeds("ls", "--json", in: alice).stdout == ls)
        #expect(try docverSucceeds("conflicts", "--json", in: alice).stdout == conflicts)
        agent.stop()
        try await running.value
    }

    /// Working out an answer takes seconds in a large container (the documents of 3,000 took
    /// 5 s): the agent does it off its loop, so an autosave meanwhile is not held up.
    @Test func computingAnAnswerDoesNotHoldUpAutosaves() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("start\n", to: "a.txt")
        let agent = try Agent(container: alice, configuration: Agent.Configuration(quietDelay: .milliseconds(50)))
        // Every answer takes 4 s to compute, as in a very large container.
        agent.answerDelayForTesting.store(4000, ordering: .relaxed)
        let scanned = Mutex(false)
        let saved = Mutex<ContinuousClock.Instant?>(nil)
        let running = Task {
            try await agent.run { event in
                switch event.kind {
                case .scanned: scanned.withLock { $0 = true }
                case .saved: saved.withLock { $0 = $0 ?? .now }
                default: break
                }
            }
        }
        try await waitFor("the agent's first scan") { scanned.withLock { $0 } }
        #expect(Agent.servedDocuments(of: alice) == nil, "a miss: the agent starts computing the documents")
        try await Task.sleep(for: .milliseconds(100))
        let written = ContinuousClock.now
        try alice.write("edited while the agent computes\n", to: "b.txt")
        try await waitFor("the autosave") { saved.withLock { $0 } != nil }
        let delay = try #require(saved.withLock { $0 }) - written
        #expect(delay < .seconds(2), "the autosave came \(delay) after the write")
        agent.stop()
        try await running.value
    }
}
