import DocverKit
import Foundation
import Testing

/// libgit2's start-up parses the system CA bundle, which only an HTTPS transfer reads; docver
/// defers that parse to the first transfer over a network (Sources/Clibgit2Startup). Watched
/// with strace, as a user would check it: a local command never opens the bundle, and a sync
/// over HTTPS opens it before it connects (its trust rests on it).
@Suite struct StartupCLITests {
    static let bundleName = "ca-certificates.crt"

    /// Runs the CLI under `strace -f -e trace=openat,connect` (or the system calls `calls`
    /// names); returns its result and the trace's lines. Nil, saying why, where strace cannot
    /// trace (no ptrace in this sandbox): no package fixes that. A missing strace fails on CI
    /// (.ci/run installs it).
    static func traced(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:],
        calls: String = "openat,connect", scratch: Scratch
    ) throws -> (result: ProcessResult, trace: [String])? {
        let strace = "/usr/bin/strace"
        guard NetworkFixtures.onCI || FileManager.default.isExecutableFile(atPath: strace) else {
            print("StartupCLITests: skipped: strace is not installed (apt-get install strace; .ci/run installs it)")
            return nil
        }
        let probe = try runProcess(strace, ["-qq", "-o", "/dev/null", "/bin/true"])
        guard probe.status == 0 else {
            print("StartupCLITests: skipped: strace cannot trace here: \(probe.stderr.split(separator: "\n").first ?? "")")
            return nil
        }
        let log = scratch.path("trace-\(UUID().uuidString.prefix(6))")
        let result = try runProcess(
            strace, ["-f", "-qq", "-e", "trace=" + calls, "-o", log.path, docverExecutable] + arguments,
            in: directory, environment: environment)
        let trace = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        return (result, trace)
    }

    @Test func localCommandsNeverReadTheCABundle() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try alice.saveText("one\n", to: "a.txt")
        try alice.saveText("two\n", to: "notes/b.txt")
        try alice.sync()
        try alice.write("three\n", to: "a.txt")
        for arguments in [["versions", "a.txt"], ["log", "a.txt"], ["log"], ["ls"], ["status"], ["conflicts"], ["save"], ["sync"]] {
            guard let (result, trace) = try Self.traced(arguments, in: alice.root, scratch: scratch) else { return }
            #expect(result.status == 0, "docver \(arguments.joined(separator: " ")): \(result.stderr)")
            let opened = trace.filter { $0.contains(Self.bundleName) }
            #expect(opened.isEmpty, "docver \(arguments.joined(separator: " ")) read the CA bundle: \(opened)")
        }
        // The sync above really went through the remote.
        #expect(
            try runGit(["rev-parse", "refs/heads/docver/alice"], in: remote).trimmingCharacters(in: .whitespacesAndNewlines)
                == alice.headID())
    }

    @Test func aSyncOverHTTPSReadsTheCABundleBeforeItConnects() throws {
        guard SyncTransportTests.Transport.https.serverAvailable else { return }
        let scratch = try Scratch()
        let server = try SyncTransportTests.Server(.https, scratch: scratch)
        let alice = try scratch.device("alice")
        try server.configure(alice)
        try alice.addRemote("origin", url: server.url)
        let saved = try alice.saveText("over https\n", to: "note.txt")
        let home = try server.home(in: scratch)
        guard
            let (result, trace) = try Self.traced(
                ["sync"], in: alice.root,
                environment: [
                    "HOME": home.path, "SSH_AUTH_SOCK": "", "GIT_SSL_CAINFO": "",
                    "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
                ],
                scratch: scratch)
        else { return }
        #expect(result.status == 0, "sync failed: \(result.stderr)\n\(server.log)")
        #expect(try runGit(["rev-parse", "refs/heads/docver/alice"], in: server.remote).trimmingCharacters(in: .whitespacesAndNewlines) == saved)
        let port = try #require(URL(string: server.url)?.port)
        let bundle = trace.firstIndex { $0.contains("openat(") && $0.contains(Self.bundleName) && !$0.contains("= -1") }
        let connect = trace.firstIndex { $0.contains("connect(") && $0.contains("htons(\(port))") }
        let opened = try #require(bundle, "the sync never read the CA bundle")
        let connected = try #require(connect, "no connect to port \(port) in the trace")
        #expect(opened < connected, "the CA bundle was read after the connection was opened")
    }
}
