import Foundation
import Synchronization
import Testing

@testable import DocverKit

/// A fresh directory for one test, removed afterwards.
final class Scratch {
    let url: URL
    /// The clock the devices made by ``device(_:name:remote:)`` date their saves by.
    let clock = SteppedClock()

    init(_ name: String = #function) throws {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("docver-tests-\(safe)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ relative: String) -> URL { url.appendingPathComponent(relative) }

    /// A bare repository to sync through.
    func bareRemote(_ name: String = "remote.git") throws -> URL {
        let remote = path(name)
        try runGit(["init", "-q", "--bare", remote.path], in: url)
        return remote
    }

    /// Alice with `documents` saved documents whose names and device name JSON must escape
    /// or keep (quotes, a backslash, slashes, accents), for the tests of long listings.
    func listedDevice(documents: Int) throws -> Container {
        let alice = try device("alice", name: "Alice \"A\" \\ Laptop")
        var names = ["a \"quoted\".txt", "back\\slash.md", "notes/caf\u{E9} x.txt", "notes/sub/z.json"]
        names += (names.count..<max(names.count, documents)).map { "many/d\($0).txt" }
        for name in names.prefix(documents) { try alice.write("text of \(name)\n", to: name) }
        if documents > 0 { _ = try alice.saveAll() }
        return alice
    }

    /// A container for a new device.
    func device(_ id: String, name: String? = nil, remote: URL? = nil) throws -> Container {
        var container = try Container.create(at: path(id), device: Device(id: id, name: name))
        container.commitClock = clock.commitClock
        if let remote { try container.addRemote("origin", url: remote.path) }
        return container
    }
}

/// The machine's time, which a test can move on by a whole second at once: after
/// ``tick()``, every save is dated later than every save before it (dates have a resolution
/// of one second), without waiting for the wall clock to get there, however busy the machine.
/// Without ticks it is the machine's time. After ticks it may run ahead of the machine's
/// clock, which dates what the `docver` binary saves: a test that compares the dates of
/// ticked saves with saves the binary makes afterwards dates the ticked ones in the past
/// instead (``Container/datedBeforeNow(_:)``).
final class SteppedClock: Sendable {
    /// No earlier than this (seconds since 1970).
    private let floor = Mutex<TimeInterval>(0)

    var now: Date {
        let floor = floor.withLock { $0 }
        return Date(timeIntervalSince1970: max(Date().timeIntervalSince1970, floor))
    }

    /// Moves the clock to the start of the next whole second.
    func tick() {
        let now = now.timeIntervalSince1970
        floor.withLock { $0 = now.rounded(.down) + 1 }
    }

    var commitClock: CommitClock { CommitClock { [self] in now } }
}

extension Container {
    /// Writes a document into the working tree (creating folders as needed).
    func write(_ text: String, to document: String) throws {
        let file = root.appendingPathComponent(document)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    func read(_ document: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
    }

    func remove(_ document: String) throws {
        try FileManager.default.removeItem(at: root.appendingPathComponent(document))
    }

    /// Writes and saves in one step; returns the save id.
    @discardableResult
    func saveText(_ text: String, to document: String, message: String? = nil) throws -> String {
        try write(text, to: document)
        let result = try #require(try save([DocumentPath(document)], message: message))
        return result.id
    }

    @discardableResult
    func git(_ arguments: [String]) throws -> String { try runGit(arguments, in: root) }
}

/// The result of running a program.
struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutData: Data
}

/// Runs a program and waits for it, capturing both streams.
@discardableResult
func runProcess(
    _ executable: String, _ arguments: [String], in directory: URL? = nil,
    environment: [String: String] = [:], input: Data? = nil
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    var env = ProcessInfo.processInfo.environment
    env.merge(environment) { $1 }
    process.environment = env
    let out = Pipe(), err = Pipe(), inPipe = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = inPipe
    try process.run()
    if let input { inPipe.fileHandleForWriting.write(input) }
    try? inPipe.fileHandleForWriting.close()
    // Read both pipes concurrently so a full pipe never blocks the child.
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus,
        stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self),
        stdoutData: outData)
}

/// Reads `pipe` (a running process's output) until a line containing `text` arrives and
/// returns what was read: the handshake with a process that announces it is ready. Throws
/// ``TimedOut`` if the output ends first or after `timeout` seconds (a bound on "it did not
/// hang", not a wait: the line usually comes in milliseconds).
@discardableResult
func waitForLine(containing text: String, in pipe: Pipe, timeout: Double = 120) throws -> String {
    final class Reading: Sendable {
        let state = Mutex((text: "", seen: false))
        let done = DispatchSemaphore(value: 0)
    }
    let reading = Reading()
    let handle = pipe.fileHandleForReading
    Thread.detachNewThread {
        while true {
            let data = handle.availableData
            let finished = reading.state.withLock { state in
                state.text += String(decoding: data, as: UTF8.self)
                state.seen = state.text.split(separator: "\n").contains { $0.contains(text) }
                return state.seen || data.isEmpty
            }
            if finished { reading.done.signal(); return }
        }
    }
    _ = reading.done.wait(timeout: .now() + timeout)
    let (output, seen) = reading.state.withLock { ($0.text, $0.seen) }
    guard seen else { throw TimedOut(what: "a line containing '\(text)' (\(timeout) s); read: \(output)") }
    return output
}

/// Runs the git CLI (the interop reference); fails the test on a non-zero exit.
@discardableResult
func runGit(_ arguments: [String], in directory: URL) throws -> String {
    let result = try runProcess(
        "/usr/bin/git", arguments, in: directory,
        environment: [
            "GIT_AUTHOR_NAME": "Tester", "GIT_AUTHOR_EMAIL": "tester@example.com",
            "GIT_COMMITTER_NAME": "Tester", "GIT_COMMITTER_EMAIL": "tester@example.com",
        ])
    guard result.status == 0 else {
        throw GitCommandFailed(arguments: arguments, status: result.status, stderr: result.stderr)
    }
    return result.stdout
}

struct GitCommandFailed: Error, CustomStringConvertible {
    var arguments: [String]
    var status: Int32
    var stderr: String
    var description: String { "git \(arguments.joined(separator: " ")) exited \(status): \(stderr)" }
}

/// The docver executable built alongside the tests.
var docverExecutable: String {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for candidate in [directory, directory.deletingLastPathComponent()] {
        let url = candidate.appendingPathComponent("docver")
        if FileManager.default.isExecutableFile(atPath: url.path) { return url.path }
    }
    return Bundle.main.bundleURL.appendingPathComponent("docver").path
}

/// Runs the docver CLI.
@discardableResult
func docver(_ arguments: String..., in directory: URL? = nil, input: Data? = nil) throws -> ProcessResult {
    try runProcess(docverExecutable, arguments, in: directory, input: input)
}

/// Every ref of a repository with its target: compare before and after to prove "no change".
func refSnapshot(_ directory: URL) throws -> String {
    try runGit(["for-each-ref", "--format=%(refname) %(objectname)"], in: directory)
}

/// `git fsck --strict` must stay clean.
func expectFsckClean(_ directory: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let result = try runProcess("/usr/bin/git", ["fsck", "--strict", "--no-progress"], in: directory)
    #expect(result.status == 0, "git fsck --strict failed: \(result.stderr)\(result.stdout)", sourceLocation: sourceLocation)
}

/// Runs the docver CLI with an argument array (for names built at run time).
@discardableResult
func docver(_ arguments: [String], in directory: URL? = nil, input: Data? = nil) throws -> ProcessResult {
    try runProcess(docverExecutable, arguments, in: directory, input: input)
}

extension ProcessResult {
    /// The non-empty lines of stderr.
    var stderrLines: [String] {
        stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }
}

/// Parses JSON output (throws, failing the test, when it is not JSON).
func parseJSON(_ data: Data) throws -> Any {
    try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
}

/// The number of commits reachable from `revision`.
func commitCount(_ revision: String, in directory: URL) throws -> Int {
    let text = try runGit(["rev-list", "--count", revision], in: directory)
    return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
}

/// Runs docver with its standard output written to `output`, and measures its peak
/// resident set size (python3's view of its child, which `.ci/run` installs).
func peakRSS(_ arguments: [String], in directory: URL, output: URL) throws -> (result: ProcessResult, kilobytes: Int) {
    let measure = """
        import resource, subprocess, sys
        with open(sys.argv[1], "wb") as out:
            code = subprocess.run(sys.argv[2:], stdout=out).returncode
        print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
        sys.exit(code)
        """
    let result = try runProcess("/usr/bin/python3", ["-c", measure, output.path, docverExecutable] + arguments, in: directory)
    let kilobytes = Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? Int.max
    return (result, kilobytes)
}
