import DocverKit
import Foundation
import Testing

/// A `docver agent --json` process in the foreground (the real binary), its events read from
/// the log file its stdout goes to.
final class AgentProcess {
    let container: Container
    let log: URL
    private let process: Process

    /// Starts the agent with short delays so tests run in seconds (``start(_:quietDelay:pollInterval:maxBackoff:extra:)``
    /// also waits until it runs).
    private init(
        _ container: Container, quietDelay: Double = 0.2, pollInterval: Double = 0.5,
        maxBackoff: Double = 1, extra: [String] = []
    ) throws {
        self.container = container
        log = container.root.deletingLastPathComponent()
            .appendingPathComponent("agent-\(container.device.id)-\(UUID().uuidString.prefix(6)).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process = Process()
        process.executableURL = URL(fileURLWithPath: docverExecutable)
        process.arguments =
            [
                "-C", container.root.path, "agent", "--json", "--quiet-delay", "\(quietDelay)",
                "--poll-interval", "\(pollInterval)", "--max-backoff", "\(maxBackoff)",
            ] + extra
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try handle.close()
    }

    /// Starts an agent and waits for its `started` event.
    static func start(
        _ container: Container, quietDelay: Double = 0.2, pollInterval: Double = 0.5,
        maxBackoff: Double = 1, extra: [String] = []
    ) async throws -> AgentProcess {
        let agent = try AgentProcess(
            container, quietDelay: quietDelay, pollInterval: pollInterval,
            maxBackoff: maxBackoff, extra: extra)
        do {
            try await waitFor("the agent to start") {
                guard agent.isRunning else { throw TimedOut(what: "the agent, which exited") }
                return agent.events.contains { $0["event"] as? String == "started" }
            }
        } catch {
            throw TimedOut(what: "the agent to start; it printed: \(agent.output)")
        }
        return agent
    }

    deinit {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// The agent's resident memory now (`VmRSS` in /proc), in megabytes; nil once it has exited.
    var residentMegabytes: Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { return nil }
        return kilobytes / 1024
    }

    /// Every event printed so far (lines that are not JSON are skipped).
    var events: [[String: Any]] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    func events(_ name: String) -> [[String: Any]] { events.filter { $0["event"] as? String == name } }

    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// SIGKILL: no chance to finish anything.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then waits for the exit; returns the exit status.
    @discardableResult
    func terminate() -> Int32 {
        Foundation.kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Polls `condition` every 20 ms until it holds; throws after `timeout` seconds, counted as
/// ``waitUntil(timeout:_:_:)`` counts them (see ``PollBudget``). It sleeps with `Task.sleep`,
/// so waiting for an agent never holds a thread of the cooperative pool the other tests need.
/// The bound is generous and only catches hangs.
func waitFor(_ what: String, timeout: Double = 300, _ condition: () throws -> Bool) async throws {
    var budget = PollBudget(timeout: .milliseconds(Int64(timeout * 1000)))
    while true {
        if try condition() { return }
        guard budget.mayWaitMore() else { break }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TimedOut(what: "\(what) (\(timeout) s)")
}
