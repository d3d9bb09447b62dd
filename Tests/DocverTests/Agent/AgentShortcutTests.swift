import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// The CLI's shortcut to the agent for `docver status` and `docver conflicts` (no argument
/// parser, no libgit2): it must print exactly what the normal path prints, and step aside
/// whenever the agent cannot vouch for its answer.
@Suite struct AgentShortcutTests {
    func startAgent(_ container: Container) -> (Agent, Task<Void, any Error>) {
        // No autosave and no sync during the test: only the test changes the container.
        let agent = try! Agent(container: container, configuration: Agent.Configuration(quietDelay: .seconds(86_400), pollInterval: .seconds(86_400)))
        return (agent, Task { try await agent.run { _ in } })
    }

    @Test func referencesAreReadFromGitsFilesAsLibgit2ReadsThem() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let git = alice.gitDirectory
        let branch = alice.device.branch
        #expect(RefFiles.value(of: "HEAD", gitDirectory: git) == .symbolic(branch))
        #expect(RefFiles.value(of: branch, gitDirectory: git) == .absent)  // no save yet
        try alice.saveText("one\n", to: "a.txt")
        let head = try #require(try alice.headID())
        #expect(RefFiles.value(of: branch, gitDirectory: git) == .commit(head))
        // Packed: the loose file is gone, packed-refs has it (with a peeled tag line around).
        _ = try alice.git(["tag", "-a", "-m", "t", "v1"])
        _ = try alice.git(["pack-refs", "--all"])
        #expect(FileStat(path: git + "/" + branch) == nil)
        #expect(RefFiles.value(of: branch, gitDirectory: git) == .commit(head))
        #expect(RefFiles.value(of: "refs/heads/docver/nobody", gitDirectory: git) == .absent)
        // A loose file wins over packed-refs, as in git.
        try alice.saveText("two\n", to: "a.txt")
        #expect(RefFiles.value(of: branch, gitDirectory: git) == .commit(try #require(try alice.headID())))
        // Doubt: a file that does not parse, a name that is no plain reference, reftable.
        try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: git + "/refs/heads/odd"))
        #expect(RefFiles.value(of: "refs/heads/odd", gitDirectory: git) == nil)
        #expect(RefFiles.value(of: "refs/heads/../../config", gitDirectory: git) == nil)
        #expect(RefFiles.value(of: "refs/heads", gitDirectory: git) == nil)  // a folder
        try FileManager.default.createDirectory(atPath: git + "/reftable", withIntermediateDirectories: false)
        #expect(RefFiles.value(of: branch, gitDirectory: git) == nil)
    }

    /// How long a read the test expects to be served waits for the agent, in milliseconds.
    static let served = 10_000

    @Test func theShortcutPrintsWhatTheNormalPathPrints() async throws {
        let scratch = try Scratch()
        let alice = try containerWithAConflictAndChanges(scratch)
        let (agent, running) = startAgent(alice)
        try await waitFor("the agent to serve the shortcut") {
            AgentShortcut.status(from: alice.root.path) != nil && AgentShortcut.conflicts(from: alice.root.path) != nil
        }
        // The shortcut waits 20 ms for the agent, as a command does; a read the test expects to
        // be served waits longer, or a busy machine makes it a miss (the agent was slow, not wrong).
        let served = try #require(AgentShortcut.status(from: alice.root.path + "/notes", timeout: Self.served))
        #expect(try served.device == alice.device && served.status == alice.status())
        #expect(!served.status.changed.isEmpty && !served.status.inConflict.isEmpty)
        #expect(AgentShortcut.conflicts(from: alice.root.path, timeout: Self.served) == (try alice.computeConflicts()))

        let notes = alice.root.appendingPathComponent("notes")
        let forms: [([String], URL)] = [
            (["status"], alice.root), (["status", "--json"], alice.root), (["conflicts"], alice.root),
            (["conflicts", "--json"], alice.root), (["status"], notes), (["-C", "..", "conflicts", "--json"], notes),
            (["status", "-C", alice.root.path], scratch.url), (["-C", "notes", "status", "--json"], alice.root),
        ]
        for (arguments, directory) in forms {
            // `--color auto` is the default, but no plain form: the normal path.
            let shortcut = try docver(arguments, in: directory)
            let normal = try docver(["--color", "auto"] + arguments, in: directory)
            #expect(shortcut.status == 0 && shortcut.status == normal.status, "\(arguments)")
            #expect(shortcut.stdout == normal.stdout, "\(arguments)")
            #expect(shortcut.stderr == normal.stderr, "\(arguments)")
            // On a terminal too: colour, relative dates, hints.
            let now = ["DOCVER_NOW": "2030-01-01T00:00:00Z"]
            let onTerminal = try docverWithTerminal(arguments, in: directory, environment: now)
            let normalOnTerminal = try docverWithTerminal(["--color", "auto"] + arguments, in: directory, environment: now)
            #expect(onTerminal.terminal == normalOnTerminal.terminal, "\(arguments) on a terminal")
            let noColor = try docverWithTerminal(arguments, in: directory, environment: ["NO_COLOR": "1"])
            let normalNoColor = try docverWithTerminal(["--color", "auto"] + arguments, in: directory, environment: ["NO_COLOR": "1"])
            #expect(noColor.terminal == normalNoColor.terminal, "\(arguments) with NO_COLOR")
        }
        // The agent served all along (no change since): the runs above took the shortcut.
        #expect(AgentShortcut.status(from: alice.root.path, timeout: Self.served) != nil)
        agent.stop()
        try await running.value
        #expect(AgentShortcut.status(from: alice.root.path) == nil)
    }

    @Test func theShortcutStepsAsideWhenTheAgentCannotVouch() async throws {
        let scratch = try Scratch()
        let alice = try containerWithAConflictAndChanges(scratch)
        let (agent, running) = startAgent(alice)
        try await waitFor("the agent to serve the shortcut") { AgentShortcut.status(from: alice.root.path) != nil }

        // The device renamed in git's config since the agent read it: the normal path shows the new name.
        _ = try alice.git(["config", "docver.deviceName", "Alice's desktop"])
        #expect(AgentShortcut.status(from: alice.root.path) == nil)
        #expect(AgentShortcut.conflicts(from: alice.root.path) == nil)
        #expect(try docver(["status"], in: alice.root).stdout.hasPrefix("on device alice (Alice's desktop)"))
        agent.stop()
        try await running.value

        let (second, secondRunning) = startAgent(try Container(at: alice.root))
        // (Each answer is read once: the agent drops its answer whenever a reference moves and
        // serves again after computing, so two reads in a row may differ.)
        try await waitFor("the new agent to serve the shortcut with the new name") {
            AgentShortcut.status(from: alice.root.path)?.device.name == "Alice's desktop"
        }
        // HEAD on another branch (plain git): not the device's branch, so not the shortcut.
        _ = try alice.git(["symbolic-ref", "HEAD", "refs/heads/elsewhere"])
        #expect(AgentShortcut.status(from: alice.root.path) == nil)
        _ = try alice.git(["symbolic-ref", "HEAD", alice.device.branch])
        try await waitFor("the shortcut once HEAD is the device's branch again") { AgentShortcut.status(from: alice.root.path) != nil }
        // A save moves the branch: the agent's answer is for the old tip until it computes anew.
        try await waitFor("the conflicts served") { AgentShortcut.conflicts(from: alice.root.path) != nil }
        let before = try #require(AgentShortcut.conflicts(from: alice.root.path, timeout: Self.served))
        _ = try alice.save(nil)
        #expect(AgentShortcut.status(from: alice.root.path).map { $0.status == (try? alice.status()) } ?? true)
        try await waitFor("the conflicts served for the new tip") { AgentShortcut.conflicts(from: alice.root.path) != nil }
        #expect(AgentShortcut.conflicts(from: alice.root.path, timeout: Self.served) == before)
        // A config file that includes another one: never vouched for.
        second.stop()
        try await secondRunning.value
        _ = try alice.git(["config", "include.path", "extra.config"])
        let (third, thirdRunning) = startAgent(try Container(at: alice.root))
        try await waitFor("the third agent to serve the status") { Agent.cachedStatus(of: alice) != nil }
        #expect(AgentShortcut.status(from: alice.root.path) == nil)
        third.stop()
        try await thirdRunning.value
    }
}
