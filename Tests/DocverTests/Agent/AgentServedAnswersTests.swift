import DocverTestSupport
import Foundation
import Synchronization
import Testing

@testable import DocverKit

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
            if let served = alice.servedDocuments() {
                #expect(served == (try alice.computeQuery(DocumentQuery())), "seed \(seed) step \(step): documents at once")
            }
            if let served = alice.servedConflicts() {
                #expect(served == (try alice.computeConflicts()), "seed \(seed) step \(step): conflicts at once")
            }
            // After a miss the agent computes them: then it serves, and serves the truth.
            var documents: [MetadataItem]?
            var conflicts: [Conflict]?
            try await waitFor("seed \(seed) step \(step): served answers; warnings: \(warnings.withLock { $0 })") {
                documents = documents ?? alice.servedDocuments()
                conflicts = conflicts ?? alice.servedConflicts()
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
        #expect(alice.servedDocuments() == nil, "no agent, nothing served")
    }

    /// The CLI's `ls --json` and `conflicts --json` print the same with and without an agent.
    @Test func theCLIPrintsTheSameWithAndWithoutTheAgent() async throws {
        let scratch = try Scratch()
        let (alice, _, _) = try twoDevicesInConflict(scratch, base: "start\n", file: "a.txt")
        try alice.saveText("more\n", to: "notes/b.md")
        try alice.sync()  // the agent's first sync then moves nothing
        let ls = try docverSucceeds("ls", "--json", in: alice).stdout
        let conflicts = try docverSucceeds("conflicts", "--json", in: alice).stdout
        #expect(conflicts.contains("a.txt"))

        let agent = try Agent(container: alice, configuration: Agent.Configuration(quietDelay: .seconds(86_400), pollInterval: .seconds(86_400)))
        let running = Task { try await agent.run { _ in } }
        try await waitFor("the agent's first sync") { agent.status.lastSync != nil }
        try await waitFor("the agent serves both") {
            alice.servedDocuments() != nil && alice.servedConflicts() != nil
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
        #expect(alice.servedDocuments() == nil, "a miss: the agent starts computing the documents")
        try await waitFor("the agent to compute the documents") { agent.isAnsweringForTesting }
        let written = ContinuousClock.now
        try alice.write("edited while the agent computes\n", to: "b.txt")
        try await waitFor("the autosave") { saved.withLock { $0 } != nil }
        let delay = try #require(saved.withLock { $0 }) - written
        // Held up, the autosave would come after the answer, 4 s after the miss; it comes in
        // about the quiet delay (50 ms), so the bound is the answer's time, not a speed.
        #expect(delay < .seconds(4), "the autosave came \(delay) after the write")
        agent.stop()
        try await running.value
    }

    /// An agent that does not answer (stopped with SIGSTOP, or too busy) costs a command one
    /// short wait: `status` does not ask it again for the conflicts, and `ls` and `conflicts`
    /// print the right answer at once, worked out directly.
    @Test func anAgentThatDoesNotAnswerCostsOneShortWait() async throws {
        let scratch = try Scratch()
        let (alice, _, _) = try twoDevicesInConflict(scratch, base: "start\n", file: "a.txt")
        try alice.write("unsaved\n", to: "notes/b.md")
        let commands = [["status", "--json"], ["ls", "--json"], ["conflicts", "--json"]]
        let expected = try commands.map { try docver($0, in: alice.root).stdout }
        #expect(expected[2].contains("a.txt"))
        let expectedStatus = try alice.status()

        let agent = try await AgentProcess.start(alice, quietDelay: 86_400, pollInterval: 86_400)
        try await waitFor("the agent serves the status, the documents and the conflicts") {
            Agent.cachedStatus(of: alice, timeout: .seconds(1)) != nil
                && alice.served(.documents, timeout: 1000) != nil && alice.served(.conflicts, timeout: 1000) != nil
        }
        #expect(kill(agent.pid, SIGSTOP) == 0)
        defer { kill(agent.pid, SIGCONT) }
        for (command, output) in zip(commands, expected) {
            let clock = ContinuousClock()
            let started = clock.now
            let result = try docver(command, in: alice.root)
            let took = clock.now - started
            #expect(result.status == 0 && result.stdout == output, "\(command): \(result.stderr)")
            // Did not hang on the stopped agent (the wait is 20 ms; the exact check is the
            // count of attempts below, a bound this generous holds on a busy machine).
            #expect(took < .seconds(20), "\(command) took \(took) with a stopped agent")
        }
        // In this process: one attempt for the whole status, none for what follows.
        let socket = alice.root.path + "/.git/docver/agent.sock"
        let before = SocketClient.attempts.withLock { $0[socket] ?? 0 }
        let status = try Agent.cachedStatus(of: alice) ?? alice.status()
        #expect(status == expectedStatus)
        #expect(try alice.documents() == (try alice.computeQuery(DocumentQuery())))
        #expect(try alice.conflicts() == (try alice.computeConflicts()))
        #expect(SocketClient.attempts.withLock { $0[socket] ?? 0 } == before + 1)
        kill(agent.pid, SIGCONT)
        #expect(agent.terminate() == 0)
    }

    /// A client that connects and sends nothing holds up no other client.
    @Test func aSilentClientHoldsUpNobody() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("start\n", to: "a.txt")
        let agent = try Agent(container: alice, configuration: Agent.Configuration(quietDelay: .seconds(86_400)))
        let running = Task { try await agent.run { _ in } }
        try await waitFor("a served status") { Agent.cachedStatus(of: alice, timeout: .seconds(1)) != nil }
        var silent: [Int32] = []
        defer { silent.forEach { close($0) } }
        for _ in 0..<4 {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = try UnixSocket.address(alice.root.path + "/.git/docver/agent.sock")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(connected == 0)
            silent.append(descriptor)
        }
        // At once, although four clients before them send nothing.
        var answered = 0
        for _ in 0..<5 where Agent.cachedStatus(of: alice, timeout: .milliseconds(200)) != nil {
            answered += 1
        }
        #expect(answered == 5, "with old servers the silent clients held the agent 1 s each")
        agent.stop()
        try await running.value
    }
}
