import DocverKit
import DocverTestSupport
import Foundation
import Testing

/// An agent runs for months, so what a poll allocates must be freed by the next: its resident
/// memory after warm-up stays within 3 MB of where it started, idle and with edits arriving.
/// (libgit2 1.5.1 leaked a PCRE2 match block for every config entry at each remote lookup:
/// +0.4 MB a second at a 1 s poll, docs/PERFORMANCE.md.)
///
/// The quick profile measures 30 polls after warm-up; `DOCVER_SOAK_SECONDS=600` measures 600
/// (about ten minutes) after a minute of warm-up.
@Suite struct AgentSoakTests {
    /// Polls measured after warm-up (about one a second).
    static let polls = ProcessInfo.processInfo.environment["DOCVER_SOAK_SECONDS"].flatMap(Int.init) ?? 30
    /// Seconds of warm-up: the caches every poll fills (libgit2's, the allocator's) fill first.
    static let warmUp = polls >= 300 ? 60.0 : 10.0
    /// How far the resident memory may move after warm-up.
    static let allowedGrowth = 3.0

    /// One RSS sample, taken after the agent's `syncs` count reached `syncs`.
    struct Sample: CustomStringConvertible {
        var seconds: Double
        var syncs: Int
        var megabytes: Double
        var description: String { String(format: "%.0fs/%d: %.1f", seconds, syncs, megabytes) }
    }

    static func median(_ values: some Collection<Double>) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Samples the agent's RSS once a second (a measurement, not a wait for readiness) through
    /// warm-up and then until it has made ``polls`` more syncs; returns the samples after
    /// warm-up. Fails when the agent stops syncing for five minutes.
    func measure(_ agent: AgentProcess, _ container: Container) async throws -> [Sample] {
        let clock = ContinuousClock()
        let start = clock.now
        var samples: [Sample] = []
        var firstMeasuredSyncs: Int?
        var lastProgress = (syncs: -1, at: clock.now)
        while true {
            try await Task.sleep(for: .seconds(1))
            guard let status = try Agent.status(of: container, timeout: .seconds(10)),
                let megabytes = agent.residentMegabytes
            else {
                throw TimedOut(what: "the agent's status; it printed: \(agent.output.suffix(2000))")
            }
            let now = clock.now
            if status.syncs != lastProgress.syncs {
                lastProgress = (status.syncs, now)
            } else if now - lastProgress.at > .seconds(300) {
                throw TimedOut(what: "another sync after \(status.syncs) (300 s); the agent printed: \(agent.output.suffix(2000))")
            }
            let elapsed = Double((now - start).components.seconds)
            guard elapsed >= Self.warmUp, status.syncs >= 5 else { continue }
            let first = firstMeasuredSyncs ?? status.syncs
            firstMeasuredSyncs = first
            samples.append(Sample(seconds: elapsed, syncs: status.syncs, megabytes: megabytes))
            if status.syncs - first >= Self.polls, samples.count >= 10 { return samples }
        }
    }

    /// The median of the last five samples against the median of the first five: single
    /// samples move with the allocator's timing, a leak moves them all.
    func expectFlat(_ samples: [Sample]) {
        let started = Self.median(samples.prefix(5).map(\.megabytes))
        let ended = Self.median(samples.suffix(5).map(\.megabytes))
        #expect(
            ended - started <= Self.allowedGrowth,
            "RSS grew from \(started) MB to \(ended) MB over \(samples.last!.syncs - samples.first!.syncs) polls: \(samples)")
    }

    @Test func anIdleAgentPollingEverySecondDoesNotGrow() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice", remote: try scratch.bareRemote())
        try alice.saveText("first\n", to: "note.txt")
        _ = try alice.sync()
        let agent = try await AgentProcess.start(alice, pollInterval: 1)
        let samples = try await measure(agent, alice)
        #expect(agent.terminate() == 0)
        expectFlat(samples)
        #expect(agent.events("saved").isEmpty && agent.events("offline").isEmpty, "\(agent.output)")
    }

    /// Every three seconds a document changes (an autosave and a sync that pushes it) and a
    /// client asks for the status, the documents and the conflicts (answers the agent serves).
    @Test func anAgentSavingEditsEveryFewSecondsDoesNotGrow() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice", remote: try scratch.bareRemote())
        try alice.saveText("first\n", to: "note.txt")
        _ = try alice.sync()
        let agent = try await AgentProcess.start(alice, pollInterval: 1)
        let editor = Task {
            var edit = 0
            while !Task.isCancelled {
                edit += 1
                try alice.write("edit \(edit)\n", to: "notes/note\(edit % 5).txt")
                _ = try alice.status()
                _ = try alice.query()
                _ = try alice.conflicts()
                try? await Task.sleep(for: .seconds(3))
            }
        }
        let samples: [Sample]
        do {
            samples = try await measure(agent, alice)
        } catch {
            editor.cancel()
            throw error
        }
        editor.cancel()
        try await editor.value
        let saves = try #require(try Agent.status(of: alice, timeout: .seconds(10))).saves
        #expect(agent.terminate() == 0)
        expectFlat(samples)
        #expect(saves >= Self.polls / 6, "only \(saves) autosaves: \(agent.output.suffix(2000))")
        #expect(agent.events("offline").isEmpty, "\(agent.output)")
        try expectFsckClean(alice.root)
    }
}
