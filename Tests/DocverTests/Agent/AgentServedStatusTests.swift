import DocverKit
import DocverTestSupport
import Foundation
import Synchronization
import Testing

/// `docver status` asks a running agent: what the agent serves must always be what the
/// library computes from the working tree, even right after a write.
@Suite struct AgentServedStatusTests {
    /// Random writes, deletions, ignored files, mode changes, saves and resolutions-free
    /// conflicts; after each step, a served status (when the agent vouches for one) equals
    /// the computed one, and once the tree is quiet the agent does serve.
    @Test(arguments: [UInt64(21), 22])
    func theServedStatusIsAlwaysTheComputedOne(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("start\n", to: "a.txt")
        // No autosave during the test (a day's quiet delay) and no remote: only the test writes.
        let agent = try Agent(container: alice, configuration: Agent.Configuration(quietDelay: .seconds(86_400)))
        let warnings = Mutex<[String]>([])
        let running = Task { try await agent.run { event in if case let .warning(text) = event.kind { warnings.withLock { $0.append(text) } } } }
        let names = ["a.txt", "b.txt", "notes/c.txt", "notes/.c.txt.swp", "book.pages/index.xml", "x~", "deep/er/d.md"]
        var served = 0
        for step in 0..<25 {
            let name = names.randomElement(using: &random)!
            switch Int.random(in: 0..<6, using: &random) {
            case 0, 1, 2: try alice.write("step \(step) \(random.next())\n", to: name)
            case 3: try? alice.remove(name)
            case 4:
                if FileManager.default.fileExists(atPath: alice.root.path + "/" + name) {
                    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: alice.root.path + "/" + name)
                }
            default: _ = try alice.save(nil)
            }
            // At once: the agent may not have heard of the change yet; it must not answer then.
            if let cached = Agent.cachedStatus(of: alice) {
                #expect(cached == (try alice.status()), "seed \(seed) step \(step): served at once")
                served += 1
            }
            // Once quiet, the agent serves, and serves the truth.
            var settled: ContainerStatus?
            do {
                try await waitFor("seed \(seed) step \(step): a served status") {
                    settled = Agent.cachedStatus(of: alice)
                    return settled != nil
                }
            } catch {
                throw TimedOut(what: "\(error); the agent warned: \(warnings.withLock { $0 }); its status: \(agent.status)")
            }
            let cached = try #require(settled)
            #expect(cached == (try alice.status()), "seed \(seed) step \(step)")
            served += 1
        }
        #expect(served >= 25)
        #expect(warnings.withLock { $0 }.isEmpty)
        agent.stop()
        try await running.value
        // Without an agent there is nothing to ask.
        #expect(Agent.cachedStatus(of: alice) == nil)
    }

    /// A status the agent failed to compute (here: an unreadable index) is computed again
    /// at the next request once the failure is gone, although nothing in the tree changed.
    @Test func aFailedStatusIsComputedAgainOnRequest() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("start\n", to: "a.txt")
        try alice.write("edited\n", to: "a.txt")
        let index = alice.root.appendingPathComponent(".git/index")
        let good = try Data(contentsOf: index)
        try Data("not an index".utf8).write(to: index)
        #expect(throws: (any Error).self) { try alice.status() }
        let warnings = Mutex<[String]>([])
        let agent = try Agent(container: alice, configuration: Agent.Configuration(quietDelay: .seconds(86_400)))
        let running = Task { try await agent.run { event in if case let .warning(text) = event.kind { warnings.withLock { $0.append(text) } } } }
        try await waitFor("the agent's warning") {
            warnings.withLock { $0 }.contains { $0.contains("cannot compute the status to serve") }
        }
        #expect(Agent.cachedStatus(of: alice) == nil)
        try good.write(to: index)
        var served: ContainerStatus?
        try await waitFor("a served status after the repair") {
            served = Agent.cachedStatus(of: alice)
            return served != nil
        }
        #expect(served == (try alice.status()))
        #expect(served?.changed.map(\.document.path) == ["a.txt"])
        agent.stop()
        try await running.value
    }

    @Test func theCLIUsesTheServedStatusAndPrintsTheSame() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("start\n", to: "a.txt")
        let direct = try docver("status", "--json", in: alice.root)
        try alice.write("edited\n", to: "a.txt")
        try alice.write("swap\n", to: ".a.txt.swp")
        let withoutAgent = try docver("status", "--json", in: alice.root)
        let agent = try await AgentProcess.start(alice, quietDelay: 86_400)
        do {
            try await waitFor("the agent to serve") { Agent.cachedStatus(of: alice) != nil }
        } catch {
            throw TimedOut(what: "\(error); the agent printed: \(agent.output)")
        }
        let withAgent = try docver("status", "--json", in: alice.root)
        #expect(withAgent.status == 0)
        #expect(withAgent.stdout == withoutAgent.stdout)
        #expect(withAgent.stdout != direct.stdout)
        agent.terminate()
    }
}
