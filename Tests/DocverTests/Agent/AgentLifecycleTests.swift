import DocverKit
import DocverTestSupport
import Foundation
import Testing

/// The agent's process life: background start, stop and status, stale files of a killed
/// agent, SIGTERM, SIGKILL at random moments, and bad input.
@Suite struct AgentLifecycleTests {
    func pidFile(_ container: Container) -> String { container.root.path + "/.git/docver/agent.pid" }
    func socketFile(_ container: Container) -> String { container.root.path + "/.git/docver/agent.sock" }

    @Test func startReportsARunningAgentAndStopStopsIt() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let notRunning = try docver("agent", "status", in: alice.root)
        #expect(notRunning.status == 0 && notRunning.stdout.contains("no agent is running"))

        let started = try docver("agent", "start", "--quiet-delay", "0.2", in: alice.root)
        #expect(started.status == 0, "\(started.stderr)")
        let pidText = try String(contentsOfFile: pidFile(alice), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let pid = try #require(Int32(pidText))
        #expect(started.stdout.contains("agent started") && started.stdout.contains("pid \(pid)"), "\(started.stdout)")
        #expect(Self.isAlive(pid))
        // The socket is its owner's only.
        let attributes = try FileManager.default.attributesOfItem(atPath: socketFile(alice))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        // A second start starts nothing and names the running agent.
        let again = try docver("agent", "start", in: alice.root)
        #expect(again.status == 0 && again.stdout.contains("already running") && again.stdout.contains("pid \(pid)"), "\(again.stdout)")
        #expect(Agent.runningPID(for: alice) == pid)
        // So does a foreground agent, as an error with a status of its own (systemd's unit
        // does not restart it then).
        let foreground = try docver("agent", in: alice.root)
        #expect(
            foreground.status == 3 && foreground.stderrLines == ["docver: error: an agent is already running for this container (pid \(pid))"],
            "\(foreground.stderr)")

        // The background agent autosaves.
        try alice.write("by the background agent\n", to: "note.txt")
        try await waitFor("the autosave") { try alice.currentVersion(of: DocumentPath("note.txt")) != nil }

        let status = try docver("agent", "status", "--json", in: alice.root)
        let json = try #require(try parseCLIJSON(status) as? [String: Any])
        #expect(json["running"] as? Bool == true && json["pid"] as? Int == Int(pid) && json["answering"] as? Bool == true)
        #expect((json["saves"] as? Int ?? 0) >= 1)

        let stopped = try docver("agent", "stop", in: alice.root)
        #expect(stopped.status == 0 && stopped.stdout.contains("agent stopped (pid \(pid))"), "\(stopped.stdout)")
        #expect(!Self.isAlive(pid))
        #expect(!FileManager.default.fileExists(atPath: socketFile(alice)))
        let log = try String(contentsOfFile: alice.root.path + "/.git/docver/agent.log", encoding: .utf8)
        #expect(log.split(separator: "\n").last?.contains(#""event":"stopped""#) == true, "\(log)")
        let stopAgain = try docver("agent", "stop", in: alice.root)
        #expect(stopAgain.status == 0 && stopAgain.stdout.contains("no agent is running"))
        try expectFsckClean(alice.root)
    }

    @Test func theFilesOfAKilledAgentAreRecognizedAsStaleAndReplaced() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let first = try await AgentProcess.start(alice)
        let oldPID = first.pid
        first.kill()
        // The killed agent's pid file and socket are still there, but nobody holds them.
        #expect(FileManager.default.fileExists(atPath: pidFile(alice)))
        #expect(FileManager.default.fileExists(atPath: socketFile(alice)))
        #expect(Agent.runningPID(for: alice) == nil)
        let status = try docver("agent", "status", in: alice.root)
        #expect(status.stdout.contains("no agent is running"), "\(status.stdout)")

        let second = try await AgentProcess.start(alice)
        #expect(second.pid != oldPID)
        #expect(Agent.runningPID(for: alice) == second.pid)
        #expect(try Agent.status(of: alice)?.pid == second.pid)
        #expect(second.terminate() == 0)
    }

    /// A writer killed while it updated the branch leaves `<branch>.lock`, which would refuse
    /// every later save: the agent removes it once it is old and nobody holds it open, and a
    /// fresh one held open by a process is waited for, never removed.
    @Test func aBranchLockLeftByAKilledWriterDoesNotBlockAutosaves() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("first\n", to: "note.txt")
        let lockPath = alice.root.path + "/.git/refs/heads/docver/alice.lock"
        #expect(FileManager.default.createFile(atPath: lockPath, contents: Data()))
        // Held open by a live process (this test): never removed, however old.
        let holder = try FileHandle(forReadingFrom: URL(fileURLWithPath: lockPath))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: lockPath)
        let agent = try await AgentProcess.start(alice, quietDelay: 0.05)
        try alice.write("second\n", to: "note.txt")
        // The agent says when the autosave it has due waits for the open lock: only then is
        // "nothing was saved, the lock is still there" a finding rather than a race.
        func warned(_ words: String) -> Bool {
            agent.events("warning").contains { ($0["message"] as? String).map { $0.contains("alice.lock") && $0.contains(words) } == true }
        }
        try await waitFor("the agent to wait for the open lock", timeout: 60) { warned("a process has it open") }
        #expect(FileManager.default.fileExists(atPath: lockPath))
        #expect(agent.events("saved").isEmpty)
        // Closed and old: stale, removed, and the edit is saved.
        try holder.close()
        try await waitFor("the autosave after the stale lock") { !agent.events("saved").isEmpty }
        #expect(!FileManager.default.fileExists(atPath: lockPath))
        #expect(warned("removed"))
        #expect(agent.terminate() == 0)
        #expect(try alice.currentContents()["note.txt"] == .flat(Data("second\n".utf8)))
        try expectFsckClean(alice.root)
    }

    /// What the agent repairs (here: a record of an interrupted write it cannot read) is a
    /// `warning` event like any other with --json, never a plain `docver: warning:` line.
    @Test func repairsAreWarningEvents() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("first\n", to: "note.txt")
        try Data("not a record".utf8).write(to: alice.root.appendingPathComponent(".git/docver/intent"))
        let agent = try await AgentProcess.start(alice, quietDelay: 0.05)
        try alice.write("second\n", to: "note.txt")
        try await waitFor("the autosave") { !agent.events("saved").isEmpty }
        #expect(agent.terminate() == 0)
        #expect(agent.events("warning").contains { ($0["message"] as? String)?.contains("interrupted write") == true }, "\(agent.output)")
        let lines = agent.output.split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasPrefix("{") }, "\(agent.output)")
        #expect(!FileManager.default.fileExists(atPath: alice.root.path + "/.git/docver/intent"))
    }

    /// While documents wait for their quiet delay and a sync is due, the agent sleeps: the
    /// overdue sync once made its wait a busy loop.
    @Test func anAgentWaitingForTheQuietDelaySleeps() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let agent = try await AgentProcess.start(alice, quietDelay: 30, pollInterval: 0.2)
        try alice.write("waiting\n", to: "note.txt")
        try await waitFor("the agent to have a document waiting") { try Agent.status(of: alice)?.pendingDocuments == 1 }
        func cpuSeconds() throws -> Double {
            let stat = try String(contentsOfFile: "/proc/\(agent.pid)/stat", encoding: .utf8)
            let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
            return (Double(fields[11])! + Double(fields[12])!) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
        // A window of at least 2 s of wall time (the sleep is the measurement, not a wait for
        // readiness), and a bound in CPU time, which a busy machine does not inflate: a
        // sleeping agent uses a few milliseconds, a busy loop all the CPU it is given. The
        // idle agent's CPU as a figure is measured by Benchmarks/bench_agent.py.
        let before = try cpuSeconds()
        try await Task.sleep(for: .seconds(2))
        let used = try cpuSeconds() - before
        #expect(used < 0.5, "the agent used \(used) s of CPU in 2 s while waiting")
        agent.terminate()
    }

    @Test func sigtermFinishesAndExitsCleanly() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let agent = try await AgentProcess.start(alice, quietDelay: 0.05)
        try alice.write("saved before the end\n", to: "note.txt")
        try await waitFor("the autosave") { !agent.events("saved").isEmpty }
        try alice.write("written as it stops\n", to: "late.txt")
        #expect(agent.terminate() == 0)
        #expect(agent.events.last?["event"] as? String == "stopped")
        #expect(Agent.runningPID(for: alice) == nil)
        // Whatever was not saved yet is still in the working tree; the next start saves it.
        let next = try await AgentProcess.start(alice, quietDelay: 0.05)
        try await waitFor("the late file saved") { try alice.status().changed.isEmpty }
        next.terminate()
        #expect(try alice.currentContents()["late.txt"] == .flat(Data("written as it stops\n".utf8)))
        try expectFsckClean(alice.root)
    }

    /// SIGKILL while the agent autosaves and syncs, at random moments: every edit ends up
    /// saved, on both devices, and git fsck stays clean. DOCVER_AGENT_KILLS sets the number
    /// of kills (default 5; 50 for the long profile).
    ///
    /// Each kill is counted by where it landed: the agent is stopped (SIGSTOP) first, then the
    /// test looks whether it holds the container's writer lock (a save or a sync in progress)
    /// and whether its start-up scan was done. Every other round aims: it waits for the agent
    /// to take the writer lock and kills it then. With 20 kills or more, at least a third must
    /// land mid-save or mid-sync, or the test proves little.
    @Test func sigkillAtAnyMomentLosesNothing() async throws {
        let kills = ProcessInfo.processInfo.environment["DOCVER_AGENT_KILLS"].flatMap(Int.init) ?? 5
        let seed = ProcessInfo.processInfo.environment["DOCVER_AGENT_SEED"].flatMap(UInt64.init) ?? 13
        var random = SeededRandom(seed: seed)
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        let names = ["a.txt", "notes/b.txt", "notes/deep/c.md", "book.pages/index.xml", "book.pages/img/d.png", "e.json"]
        let writerLock = alice.root.path + "/.git/docver/lock"
        var model: [String: String] = [:]
        var midWrite = 0
        var beforeStartScan = 0
        let clock = ContinuousClock()
        let began = clock.now
        for round in 0..<kills {
            let agent = try await AgentProcess.start(alice, quietDelay: 0.03, pollInterval: 0.1)
            for _ in 0..<Int.random(in: 1...5, using: &random) {
                let name = names.randomElement(using: &random)!
                if model[name] != nil, Int.random(in: 0..<5, using: &random) == 0 {
                    try alice.remove(name)
                    model[name] = nil
                } else {
                    let text = "round \(round) \(random.next())\n"
                    try alice.write(text, to: name)
                    model[name] = text
                }
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...50, using: &random)))
            }
            let aimed = round % 2 == 1
            if aimed {
                // Up to 3 s for the agent to take the writer lock (its autosave comes 30 ms after the last write).
                let deadline = clock.now + .seconds(3)
                while clock.now < deadline {
                    if Self.isHeld(writerLock) {
                        kill(agent.pid, SIGSTOP)
                        if Self.isHeld(writerLock) { break }
                        kill(agent.pid, SIGCONT)
                    }
                    usleep(300)
                }
            } else {
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...300, using: &random)))
            }
            kill(agent.pid, SIGSTOP)
            if Self.isHeld(writerLock) { midWrite += 1 }
            if !agent.events("scanned").contains(where: { $0["reason"] as? String == "start" }) { beforeStartScan += 1 }
            agent.kill()
        }
        let summary =
            "seed \(seed): \(kills) kills in \(clock.now - began), \(midWrite) mid-save or mid-sync, \(beforeStartScan) before the start-up scan was done"
        print(summary)
        if kills >= 20 { #expect(midWrite * 3 >= kills, "\(summary)") }
        // The package's folder stays when its last file goes; a folder is no document.
        let expected = model
        let final = try await AgentProcess.start(alice, quietDelay: 0.03, pollInterval: 0.1)
        do {
            try await waitFor("every edit saved") {
                try alice.status().changed.isEmpty && Self.flatten(try alice.currentContents()) == expected
            }
        } catch {
            Issue.record(
                """
                seed \(seed): \(error)
                unsaved: \(try alice.status().changed.map(\.document.path))
                saved: \(Self.flatten(try alice.currentContents()))
                expected: \(expected)
                agent: \(final.output)
                """)
            throw error
        }
        #expect(final.terminate() == 0)
        #expect(Self.flatten(try alice.currentContents()) == expected, "seed \(seed)")
        try expectFsckClean(alice.root)
        try alice.sync()
        try bob.sync()
        #expect(Self.flatten(try bob.currentContents()) == expected, "seed \(seed)")
        try expectConverged([alice, bob])
        try expectFsckClean(remote)
    }

    /// True while some process holds the `flock` on `path` (the container's writer lock).
    static func isHeld(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return true }
        flock(descriptor, LOCK_UN)
        return false
    }

    /// True while `pid` runs (a zombie waiting for a parent that never reaps it does not run).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(close, offsetBy: 2)]
        return state != "Z" && state != "X"
    }

    /// Current contents as flat files: path → text.
    static func flatten(_ contents: [String: DocumentContents]) -> [String: String] {
        var result: [String: String] = [:]
        for (path, content) in contents {
            switch content {
            case let .flat(data): result[path] = String(decoding: data, as: UTF8.self)
            case let .package(package): for (file, data) in package.files { result[path + "/" + file] = String(decoding: data, as: UTF8.self) }
            case .deleted: break
            }
        }
        return result
    }

    @Test func badInputIsOneLineAndChangesNothing() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.write("x", to: "a/b/c/doc.txt")
        let before = try refSnapshot(alice.root)
        let negative = try docver("agent", "--quiet-delay", "0", in: alice.root)
        #expect(negative.status == 64 && negative.stderr.contains("--quiet-delay must be a positive number of seconds"))
        let huge = try docver("agent", "--poll-interval", "1e300", in: alice.root)
        #expect(huge.status == 64 && huge.stderr.contains("--poll-interval must be a positive number of seconds"))
        let limit = try docver("agent", "--max-watches", "2", in: alice.root)
        #expect(limit.status == 1)
        #expect(
            limit.stderrLines.count == 1 && limit.stderrLines[0].hasPrefix("docver: error: cannot watch ")
                && limit.stderrLines[0].contains("inotify watch limit"), "\(limit.stderr)")
        _ = try alice.git(["config", "docver.agent.quietDelay", "soon"])
        let config = try docver("agent", "start", in: alice.root)
        #expect(config.status == 1 && config.stderrLines == ["docver: error: invalid value 'soon' for docver.agent.quietdelay"], "\(config.stderr)")
        #expect(try refSnapshot(alice.root) == before)
        #expect(Agent.runningPID(for: alice) == nil)
        let notAContainer = try docver("agent", "status", in: scratch.url)
        #expect(notAContainer.status == 1 && notAContainer.stderrLines.first?.hasPrefix("docver: error: not a docver container") == true)
    }
}
