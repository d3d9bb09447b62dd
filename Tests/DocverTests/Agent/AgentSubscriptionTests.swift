import DocverKit
import DocverTestSupport
import Foundation
import Testing

/// While the agent runs, live queries and editors subscribe to it and hear of every move of a
/// reference at once — whoever moved it — instead of polling. The clocks here never advance:
/// a poll can never fire, so every update the tests see came through the subscription.
@Suite struct AgentSubscriptionTests {
    private func startAgent(_ container: Container) async throws -> (Agent, Task<Void, any Error>) {
        // No autosave (a day's quiet delay) and no remote: only the test writes.
        let agent = try Agent(container: container, configuration: Agent.Configuration(quietDelay: .seconds(86_400)))
        let running = Task { try await agent.run { _ in } }
        try await waitFor("the agent answers") { (try? Agent.status(of: container)) != nil }
        return (agent, running)
    }

    @Test func aLiveQueryHearsOfSavesByOtherProcessesAndPlainGitWithoutPolling() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("a\n", to: "a.txt")
        let (agent, running) = try await startAgent(alice)
        let clock = ManualClock()
        let updates = Recorder(alice.liveQuery(DocumentQuery(types: ["txt"]), pollInterval: .seconds(3600), clock: clock))
        try await updates.wait("the initial results") { !$0.isEmpty }
        try await waitFor("the query subscribes") { agent.status.subscribers == 1 }

        // A save by the CLI, another process.
        try alice.write("b\n", to: "b.txt")
        try docverSucceeds("save", "b.txt", in: alice)
        try await updates.wait("the CLI's save") { $0.last?.map(\.path.path) == ["a.txt", "b.txt"] }

        // A commit made with plain git on the device branch.
        try alice.write("c\n", to: "c.txt")
        _ = try alice.git(["add", "c.txt"])
        _ = try alice.git(["-c", "user.name=Git User", "-c", "user.email=git@example.com", "commit", "-q", "-m", "plain"])
        try await updates.wait("the plain git commit") { $0.last?.map(\.path.path) == ["a.txt", "b.txt", "c.txt"] }
        #expect(clock.now == ManualClock().now, "the clock never moved: no poll fired")

        agent.stop()
        try await running.value
    }

    @Test func whenTheAgentStopsTheQueryPollsAndSubscribesAgainWhenItReturns() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("a\n", to: "a.txt")
        var (agent, running) = try await startAgent(alice)
        let clock = ManualClock()
        let poll = Duration.seconds(60)
        let updates = Recorder(alice.liveQuery(pollInterval: poll, clock: clock))
        try await updates.wait("the initial results") { !$0.isEmpty }
        try await waitFor("the query subscribes") { agent.status.subscribers == 1 }

        // The agent stops: the subscription ends and the query polls.
        agent.stop()
        try await running.value
        try await clock.waitForSleepers(1)
        try alice.saveText("b\n", to: "b.txt")
        #expect(updates.all.count == 1, "nothing tells the query before its poll")
        clock.advance(by: poll)
        try await updates.wait("the poll's update") { $0.last?.count == 2 }

        // A new agent: the next poll subscribes again, and from then on no poll is needed.
        (agent, running) = try await startAgent(alice)
        try await clock.waitForSleepers(1)
        clock.advance(by: poll)
        try await waitFor("the query subscribes again") { agent.status.subscribers == 1 }
        try alice.saveText("c\n", to: "c.txt")
        try await updates.wait("the update through the new subscription") { $0.last?.count == 3 }

        agent.stop()
        try await running.value
    }

    @Test func anOpenDocumentReloadsANewerVersionSavedElsewhereWithoutPolling() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("first\n", to: "note.txt")
        let (agent, running) = try await startAgent(alice)
        let clock = ManualClock()
        let doc = try textDocument(alice, "note.txt", clock: clock, pollInterval: .seconds(3600))
        try await doc.open()
        let events = Recorder(await doc.events())
        try await waitFor("the editor subscribes") { agent.status.subscribers == 1 }

        try alice.write("second\n", to: "note.txt")
        try docverSucceeds("save", "note.txt", in: alice)
        try await events.wait("the reload") { $0.contains { if case .reloaded = $0 { true } else { false } } }
        #expect(await doc.model?.text == "second\n")
        try await doc.close()
        try await waitFor("the closed editor unsubscribes") { agent.status.subscribers == 0 }

        agent.stop()
        try await running.value
    }
}
