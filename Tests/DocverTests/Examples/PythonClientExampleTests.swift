import DocverKit
import Foundation
import Testing

/// Examples/docver_client.py, a client of `docver serve` in Python's standard library only:
/// the protocol works from another language, notifications included.
@Suite struct PythonClientExampleTests {
    private var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/docver_client.py").path
    }

    @Test func thePythonClientResolvesAConflictPushedToIt() throws {
        let python = "/usr/bin/python3"
        guard clientProgramInstalled(python, package: "python3") else { return }
        let scratch = try Scratch()
        let (alice, bob) = try servedDevicePair(scratch)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, "--docver", docverExecutable, "--strategy", "latest-date", "--count", "1", alice.root.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // SIGKILL: a failed test leaves no client behind (SIGTERM may be ignored, as inherited).
        defer { if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        // The client has initialized: from now on every change reaches it.
        try waitForLine(containing: "ready 1.0 alice", in: output)

        try alice.datedBeforeNow(2).saveText("alice\n", to: "notes.txt")
        try bob.datedBeforeNow(1).saveText("bob\n", to: "notes.txt")
        try bob.sync()
        let sync = try docver(["-C", alice.root.path, "sync"])
        #expect(sync.status == 0, "\(sync.stderr)")

        let text = try waitForLine(containing: "resolved notes.txt keep", in: output)
        #expect(text.contains("conflict notes.txt "), "\(text)")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try alice.conflicts().isEmpty)
        // latest-date keeps Bob's later edit.
        #expect(try alice.read("notes.txt") == "bob\n")
        try expectFsckClean(alice.root)
    }

    /// Two clients share the agent over its socket: one resolves the conflict the agent's own
    /// sync brings in, the other (the module used from a script) hears it close.
    @Test func twoPythonClientsShareTheAgentOverItsSocket() async throws {
        let python = "/usr/bin/python3"
        guard clientProgramInstalled(python, package: "python3") else { return }
        let scratch = try Scratch()
        let (alice, bob) = try servedDevicePair(scratch)
        try alice.datedBeforeNow(2).saveText("alice\n", to: "notes.txt")
        let agent = try await AgentProcess.start(alice)

        func start(_ arguments: [String]) throws -> (Process, Pipe) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            process.standardInput = FileHandle.nullDevice
            try process.run()
            return (process, output)
        }
        let examples = URL(fileURLWithPath: script).deletingLastPathComponent().path
        let listener = """
            import sys; sys.path.insert(0, \(String(reflecting: examples)))
            from docver_client import DocverClient
            client = DocverClient(\(String(reflecting: alice.root.path)), agent=True)
            print("ready", client.request("initialize")["protocolVersion"], flush=True)
            while True:
                note = client.wait_for("conflictResolved", timeout=300)["params"]
                if note["open"] == 0:
                    print("closed", note["document"], flush=True)
                    break
            sys.exit(client.close())
            """
        let (resolver, resolverOutput) = try start([script, "--agent", "--strategy", "latest-date", "--count", "1", alice.root.path])
        let (watcher, watcherOutput) = try start(["-c", listener])
        defer {
            for process in [resolver, watcher] where process.isRunning {
                Foundation.kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        try waitForLine(containing: "ready 1.0 alice", in: resolverOutput)
        try waitForLine(containing: "ready 1.0", in: watcherOutput)

        // Bob's edit, older than Alice's, reaches the remote; Alice's agent notices and syncs.
        try bob.datedBeforeNow(3).saveText("bob\n", to: "notes.txt")
        try bob.sync()
        let resolved = try waitForLine(containing: "resolved notes.txt keep", in: resolverOutput)
        #expect(resolved.contains("conflict notes.txt "), "\(resolved)")
        try waitForLine(containing: "closed notes.txt", in: watcherOutput)
        resolver.waitUntilExit()
        watcher.waitUntilExit()
        #expect(resolver.terminationStatus == 0)
        #expect(watcher.terminationStatus == 0)
        #expect(try alice.conflicts().isEmpty)
        #expect(agent.terminate() == 0)
        try expectFsckClean(alice.root)
    }
}
