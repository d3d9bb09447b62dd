import DocverKit
import Foundation
import Synchronization
import Testing

/// The agent through the library's API, in this process.
@Suite struct AgentLibraryTests {
    /// Events collected from the agent's thread.
    final class Recorder: Sendable {
        private let events = Mutex<[AgentEvent]>([])
        func record(_ event: AgentEvent) { events.withLock { $0.append(event) } }
        var all: [AgentEvent] { events.withLock { $0 } }
        var retryDelays: [Duration] {
            all.compactMap { if case let .offline(_, _, retryIn) = $0.kind { retryIn } else { nil } }
        }
        var saves: [SaveResult] { all.compactMap { if case let .saved(result) = $0.kind { result } else { nil } } }
        var cameOnline: Bool { all.contains { if case .online = $0.kind { true } else { false } } }
    }

    @Test func settingsComeFromTheContainersConfig() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        #expect(try Agent.Configuration(container: alice) == Agent.Configuration())
        for arguments in [
            ["docver.agent.quietDelay", "0.7"], ["docver.agent.pollInterval", "3"], ["docver.agent.maxBackoff", "9"],
            ["--add", "docver.agent.ignore", "*.bak"], ["--add", "docver.agent.ignore", "build/*"],
            ["docver.agent.defaultIgnores", "false"],
        ] {
            _ = try alice.git(["config"] + arguments)
        }
        let configuration = try Agent.Configuration(container: alice)
        #expect(configuration.quietDelay == .milliseconds(700))
        #expect(configuration.pollInterval == .seconds(3))
        #expect(configuration.maximumBackoff == .seconds(9))
        #expect(configuration.ignore.patterns == ["*.bak", "build/*"])
        _ = try alice.git(["config", "docver.agent.defaultIgnores", "true"])
        #expect(try Agent.Configuration(container: alice).ignore.patterns == IgnoreList.defaultPatterns + ["*.bak", "build/*"])
        _ = try alice.git(["config", "docver.agent.pollInterval", "1e300"])
        #expect(throws: AgentError.badConfiguration(key: "docver.agent.pollinterval", value: "1e300")) {
            try Agent.Configuration(container: alice)
        }
        _ = try alice.git(["config", "docver.agent.pollInterval", "-1"])
        #expect(throws: AgentError.badConfiguration(key: "docver.agent.pollinterval", value: "-1")) {
            try Agent.Configuration(container: alice)
        }
    }

    /// While the remote is missing, autosaves go on, the retries back off 1×, 2×, 4×… up to
    /// the maximum; when the remote appears, the waiting saves are pushed.
    @Test func offlineBacksOffAndTheWaitingSavesArePushedOnReconnection() async throws {
        let scratch = try Scratch()
        let missing = scratch.path("later.git")
        // Added while it exists (adding a missing path fails at once), then gone.
        try runGit(["init", "-q", "--bare", missing.path], in: scratch.url)
        let alice = try scratch.device("alice", remote: missing)
        try FileManager.default.removeItem(at: missing)
        var configuration = Agent.Configuration(
            quietDelay: .milliseconds(50), pollInterval: .seconds(30),
            pushDelay: .milliseconds(10), initialBackoff: .milliseconds(100),
            maximumBackoff: .milliseconds(400))
        configuration.ignore = .standard
        let agent = try Agent(container: alice, configuration: configuration)
        let recorder = Recorder()
        let running = Task { try await agent.run { recorder.record($0) } }
        defer { agent.stop() }

        try await waitUntil("five offline retries") { recorder.retryDelays.count >= 5 }
        #expect(
            Array(recorder.retryDelays.prefix(5)) == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400),
                .milliseconds(400), .milliseconds(400),
            ])
        #expect(agent.status.online == false && agent.status.offlineSince != nil)

        // A loaded machine can stall the writer between creating the file and filling it for
        // longer than the quiet delay: then the empty file is saved first. Wait for the whole.
        try alice.write("saved while offline\n", to: "offline.txt")
        try await waitUntil("the offline autosave") {
            guard let version = try alice.currentVersion(of: DocumentPath("offline.txt")),
                try alice.contents(of: version) == .flat(Data("saved while offline\n".utf8))
            else { return false }
            return try recorder.saves.last?.id == alice.headID()
        }
        let saved = try #require(try alice.headID())

        try runGit(["init", "-q", "--bare", missing.path], in: scratch.url)
        try await waitUntil("the reconnection") { recorder.cameOnline }
        let remoteHead = try runGit(["rev-parse", "refs/heads/docver/alice"], in: missing).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(remoteHead == saved)
        #expect(agent.status.online && agent.status.saves == recorder.saves.count && agent.status.saves >= 1)

        agent.stop()
        try await running.value
        if case .stopped = recorder.all.last?.kind {} else { Issue.record("the last event is not 'stopped'") }
        #expect(Agent.runningPID(for: alice) == nil)
    }

    /// A folder created after the watch limit is reached cannot be watched: the agent warns,
    /// and its documents are still saved, found by scanning.
    @Test func documentsInFoldersBeyondTheWatchLimitAreStillSaved() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.write("x", to: "a/one.txt")
        let configuration = Agent.Configuration(quietDelay: .milliseconds(50), pollInterval: .milliseconds(300), maximumWatches: 2)
        let agent = try Agent(container: alice, configuration: configuration)
        let recorder = Recorder()
        let running = Task { try await agent.run { recorder.record($0) } }
        try await waitUntil("the first autosave") { !recorder.saves.isEmpty }
        try alice.write("beyond the limit\n", to: "b/two.txt")
        try await waitUntil("the warning") {
            recorder.all.contains { if case let .warning(message) = $0.kind { message.contains("inotify watch limit") } else { false } }
        }
        try await waitUntil("the document in the unwatched folder saved") {
            try alice.currentVersion(of: DocumentPath("b/two.txt")) != nil
        }
        // Later writes there are found by the periodic scans.
        try alice.write("written later\n", to: "b/two.txt")
        try await waitUntil("the later write saved") {
            guard let version = try alice.currentVersion(of: DocumentPath("b/two.txt")) else { return false }
            return try alice.contents(of: version) == .flat(Data("written later\n".utf8))
        }
        agent.stop()
        try await running.value
    }

    func waitUntil(_ what: String, _ condition: () throws -> Bool) async throws {
        try await waitFor(what, condition)
    }
}
