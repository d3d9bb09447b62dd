import DocverKit
import Foundation
import Testing

/// A password written into a remote's URL (`https://alice:PASSWORD@host/repo.git`) is used,
/// never printed: every output of every remote-related command, text and `--json`, with `-v`,
/// shows the URL with the password as `***`, as git does. Over plain `http://` a warning says
/// that the password travels in clear text.
@Suite struct RemotePasswordCLITests {
    /// Everything printed, with what printed it, to grep for the password.
    private struct Outputs {
        var texts: [(String, String)] = []

        @discardableResult
        mutating func run(_ arguments: [String], in directory: URL, environment: [String: String]? = nil) throws -> ProcessResult {
            let result =
                if let environment {
                    try runProcess(docverExecutable, arguments, in: directory, environment: environment)
                } else {
                    try docver(arguments, in: directory)
                }
            texts.append((arguments.joined(separator: " "), result.stdout + result.stderr))
            return result
        }

        mutating func add(_ what: String, _ text: String) { texts.append((what, text)) }

        func expectNoneShows(_ password: String, sourceLocation: SourceLocation = #_sourceLocation) {
            for (command, text) in texts {
                #expect(!text.contains(password), "'\(command)' printed the password:\n\(text)", sourceLocation: sourceLocation)
            }
        }
    }

    private static let clearTextWarning = "travels in clear text"

    @Test func aPasswordInARemoteURLIsNeverPrinted() async throws {
        let scratch = try Scratch()
        let password = "pw-\(UUID().uuidString.prefix(8))"
        #expect(try docver("init", "alice", "--device", "alice", in: scratch.url).status == 0)
        let alice = scratch.path("alice")
        try Data("hello\n".utf8).write(to: alice.appendingPathComponent("note.txt"))
        #expect(try docver("save", in: alice).status == 0)
        let port = try freeLocalPort()  // nothing listens there
        let https = "https://alice:\(password)@127.0.0.1:\(port)/git/notes.git"
        let shownHTTPS = "https://alice:***@127.0.0.1:\(port)/git/notes.git"
        var outputs = Outputs()

        let added = try outputs.run(["-v", "remote", "add", "origin", https], in: alice)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout == "added remote 'origin' (\(shownHTTPS)); not contacted: the next sync reaches it\n")
        #expect(!added.stderr.contains(Self.clearTextWarning), "https is not clear text: \(added.stderr)")
        // Stored as given: the password is what the sync authenticates with.
        #expect(try runGit(["config", "remote.origin.url"], in: alice) == https + "\n")

        let addedJSON = try outputs.run(["remote", "add", "ssh", "ssh://alice:\(password)@127.0.0.1:\(port)/srv/notes.git", "--json"], in: alice)
        let change = try #require(try parseCLIJSON(addedJSON) as? [String: Any])
        #expect(change["url"] as? String == "ssh://alice:***@127.0.0.1:\(port)/srv/notes.git")

        // Plain http: the password would cross the network as it is.
        let http = "http://bob:\(password)@127.0.0.1:\(port)/notes.git"
        let plain = try outputs.run(["remote", "add", "plain", http], in: alice)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout == "added remote 'plain' (http://bob:***@127.0.0.1:\(port)/notes.git); not contacted: the next sync reaches it\n")
        #expect(
            plain.stderrLines == [
                "docver: warning: the password in the URL of remote 'plain' travels in clear text over http://; use https:// or ssh://"
            ],
            "\(plain.stderr)")
        let moved = try outputs.run(["remote", "set-url", "plain", http.replacingOccurrences(of: "notes", with: "moved")], in: alice)
        #expect(moved.stdout == "remote 'plain' now points at http://bob:***@127.0.0.1:\(port)/moved.git; not contacted: the next sync reaches it\n")
        #expect(moved.stderr.contains(Self.clearTextWarning), "\(moved.stderr)")
        let movedJSON = try outputs.run(["remote", "set-url", "plain", http, "--json"], in: alice)
        #expect((try parseCLIJSON(movedJSON) as? [String: Any])?["url"] as? String == "http://bob:***@127.0.0.1:\(port)/notes.git")

        // A scheme docver cannot sync through, with a password in it.
        let ftp = try outputs.run(["remote", "add", "f", "ftp://alice:\(password)@127.0.0.1/notes.git"], in: alice)
        #expect(ftp.status == 1)
        #expect(
            ftp.stderrLines.first?.hasPrefix("docver: error: unsupported remote URL 'ftp://alice:***@127.0.0.1/notes.git'") == true, "\(ftp.stderr)")

        // The listings.
        for arguments in [["remote"], ["remote", "list"], ["-v", "remote", "list"]] {
            let listed = try outputs.run(arguments, in: alice)
            #expect(listed.stdout.contains("origin\t\(shownHTTPS)\n"), "\(arguments): \(listed.stdout)")
        }
        let listedJSON = try #require(try parseCLIJSON(outputs.run(["remote", "list", "--json"], in: alice)) as? [[String: String]])
        #expect(listedJSON.first { $0["name"] == "origin" }?["url"] == shownHTTPS)

        // Syncs that cannot reach the remotes, with every diagnostic.
        for arguments in [["-v", "sync"], ["-v", "sync", "origin"], ["-v", "sync", "plain", "--json"], ["-v", "integrate"], ["status", "-v"]] {
            try outputs.run(arguments, in: alice)
        }
        let verbose = try outputs.run(["-v", "sync", "origin"], in: alice)
        #expect(verbose.stderr.contains("syncing with remote 'origin' at \(shownHTTPS)"), "\(verbose.stderr)")

        // Clones from such URLs, which fail and create nothing.
        for (index, url) in [https, http, "ftp://alice:\(password)@127.0.0.1/notes.git"].enumerated() {
            let clone = try outputs.run(["-v", "clone", url, scratch.path("bob\(index)").path], in: scratch.url)
            #expect(clone.status != 0)
            try outputs.run(["clone", url, scratch.path("bob\(index)").path, "--json"], in: scratch.url)
        }
        let cloneVerbose = try outputs.run(["-v", "clone", https, scratch.path("bob").path], in: scratch.url)
        #expect(cloneVerbose.stderr.contains("cloning from \(shownHTTPS)"), "\(cloneVerbose.stderr)")

        // The agent's events, its log and its status.
        let container = try Container(at: alice)
        let agent = try await AgentProcess.start(container, extra: ["--remote", "origin"])
        try await waitFor("the agent to report the remote offline") { !agent.events("offline").isEmpty }
        try outputs.run(["agent", "status"], in: alice)
        try outputs.run(["agent", "status", "--json"], in: alice)
        agent.terminate()
        outputs.add("agent --json", agent.output)
        #expect(agent.output.contains("origin"), "\(agent.output)")
        if let log = try? String(contentsOf: alice.appendingPathComponent(".git/docver/agent.log"), encoding: .utf8) {
            outputs.add("agent.log", log)
        }

        outputs.expectNoneShows(password)
    }

    /// Over a server that takes the password from the URL: the clone and syncs work, and
    /// print it nowhere, with every diagnostic and the progress on.
    @Test func aPasswordThatIsUsedIsNotPrintedEither() throws {
        guard SyncTransportTests.Transport.https.serverAvailable else { return }
        let scratch = try Scratch()
        let server = try SyncTransportTests.Server(.https, scratch: scratch)
        let home = try server.home(in: scratch)
        // No credential helper's store: the URL alone carries the password.
        let store = home.appendingPathComponent(".git-credentials")
        let stored = try #require(URL(string: try String(contentsOf: store, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        let password = try #require(stored.password)
        try FileManager.default.removeItem(at: store)
        let url = server.url.replacingOccurrences(of: "https://", with: "https://alice:\(password)@")
        let environment = [
            "HOME": home.path, "SSH_AUTH_SOCK": "", "GIT_SSL_CAINFO": "",
            "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
        ]
        var outputs = Outputs()

        let alice = scratch.path("alice")
        let cloned = try outputs.run(["-vv", "clone", url, alice.path, "--device", "alice"], in: scratch.url, environment: environment)
        #expect(cloned.status == 0, "\(cloned.stderr)\n\(server.log)")
        try Data("hello\n".utf8).write(to: alice.appendingPathComponent("note.txt"))
        let synced = try outputs.run(["-vv", "sync"], in: alice, environment: environment)
        #expect(synced.status == 0, "\(synced.stderr)")
        try outputs.run(["-v", "sync", "--json"], in: alice, environment: environment)
        try outputs.run(["-v", "remote"], in: alice, environment: environment)
        let bob = scratch.path("bob")
        let second = try outputs.run(["-v", "clone", url, bob.path, "--device", "bob", "--json"], in: scratch.url, environment: environment)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try String(contentsOf: bob.appendingPathComponent("note.txt"), encoding: .utf8) == "hello\n")
        outputs.expectNoneShows(password)
    }
}
