import DocverKit
import Foundation
import Testing

/// editors/nvim, the Neovim plugin, headless against a real `docver serve`: its test script
/// (editors/nvim/tests/conflicts_test.lua) lists a conflict another process's sync brings in,
/// reloads the buffer, shows versions and a diff, and resolves over the protocol.
@Suite struct NeovimPluginTests {
    private var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    @Test func thePluginListsReloadsAndResolvesAConflictPushedToIt() throws {
        let nvim = "/usr/bin/nvim"
        guard clientProgramInstalled(nvim, package: "neovim") else { return }
        let scratch = try Scratch()
        let (alice, bob) = try servedDevicePair(scratch)
        // Bob's edit is the later one: current after Alice's next sync, hers the conflict version.
        try alice.datedBeforeNow(2).saveText("alice\n", to: "notes.txt")
        try bob.datedBeforeNow(1).saveText("bob\n", to: "notes.txt")
        try bob.sync()

        let plugin = repositoryRoot.appendingPathComponent("editors/nvim")
        let result = try runProcess(
            nvim,
            [
                "--headless", "-u", "NONE", "-i", "NONE", "--cmd", "set rtp+=\(plugin.path)",
                "-c", "luafile \(plugin.appendingPathComponent("tests/conflicts_test.lua").path)",
            ],
            in: scratch.url,
            environment: ["DOCVER": docverExecutable, "DOCVER_TEST_CONTAINER": alice.root.path])
        #expect(result.status == 0, "nvim exited \(result.status)\nstdout: \(result.stdout)\nstderr: \(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n").map(String.init)
                == ["ready", "conflict listed and buffer reloaded", "versions listed", "diff shown", "resolved", "passed"],
            "\(result.stdout)\n\(result.stderr)")
        #expect(try alice.conflicts().isEmpty)
        #expect(try alice.read("notes.txt") == "alice\n")
        try expectFsckClean(alice.root)
    }
}
