import DocverKit
import Foundation
import Synchronization
import Testing

/// A `docver serve` process (the real binary) driven over its pipes, as an editor drives it.
///
/// Every line it writes is parsed and kept; a response is checked against its method's schema
/// in docs/schemas/protocol and a notification against its own, so every test also checks
/// the documented contract. Waits are handshakes: reading the next line, with a generous
/// bound on "it did not hang".
final class ServeProcess {
    static let schemas = JSONSchemaCLITests.schemas.appendingPathComponent("protocol")

    let container: Container
    private let process: Process
    private let input: FileHandle
    private let lines = LineQueue()
    private let stderrLog: URL
    private var nextID = 1
    /// Notifications read while waiting for something else, oldest first.
    private(set) var notifications: [JSONValue] = []
    /// The schemas checked so far (file names without `.schema.json`).
    private(set) var schemasUsed: Set<String> = []

    init(_ container: Container, arguments: [String] = []) throws {
        self.container = container
        stderrLog = container.root.deletingLastPathComponent().appendingPathComponent("serve-\(UUID().uuidString.prefix(6)).stderr")
        _ = FileManager.default.createFile(atPath: stderrLog.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: docverExecutable)
        process.arguments = ["-C", container.root.path, "serve"] + arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: stderrLog)
        try process.run()
        input = stdin.fileHandleForWriting
        let lines = lines
        let output = stdout.fileHandleForReading
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let data = output.availableData
                if data.isEmpty { lines.finish(); return }
                pending.append(data)
                while let newline = pending.firstIndex(of: 0x0A) {
                    lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending = Data(pending[(newline + 1)...])
                }
            }
        }
    }

    deinit {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var stderr: String { (try? String(contentsOf: stderrLog, encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    /// Writes one line as it is (well-formed or not).
    func sendLine(_ line: String) throws {
        try input.write(contentsOf: Data((line + "\n").utf8))
    }

    /// The next line the server writes, parsed; throws if none comes within `timeout` seconds.
    func nextMessage(timeout: Double = 120) throws -> JSONValue {
        guard let line = lines.next(timeout: timeout) else {
            throw TimedOut(what: "a line from docver serve (\(timeout) s); running: \(process.isRunning); stderr: \(stderr)")
        }
        let message = try JSONValue.parse(Data(line.utf8))
        #expect(message["jsonrpc"] == .string("2.0"), "\(line)")
        if case let .string(method)? = message["method"] { try check(message["params"] ?? .null, method, nil, line) }
        return message
    }

    /// Sends a request and returns its response (notifications read meanwhile are kept).
    /// Its params are checked against the method's schema unless `checkingParams` is false
    /// (a test of bad params).
    func response(
        _ method: String, _ params: [String: Any]? = nil, checkingParams: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> JSONValue {
        let id = nextID
        nextID += 1
        var request: [String: Any] = ["jsonrpc": "2.0", "id": id, "method": method]
        if let params {
            request["params"] = params
            if checkingParams {
                let text = String(decoding: try JSONSerialization.data(withJSONObject: params), as: UTF8.self)
                try check(JSONValue.parse(Data(text.utf8)), method, "params", text, sourceLocation: sourceLocation)
            }
        }
        try sendLine(String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self))
        return try waitForResponse(id: .integer(Int64(id)), method: method, sourceLocation: sourceLocation)
    }

    /// Reads until the response with `id` arrives.
    func waitForResponse(id: JSONValue, method: String?, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        while true {
            let message = try nextMessage()
            if message["method"] != nil {
                notifications.append(message)
                continue
            }
            #expect(message["id"] == id, "a response to another request: \(message)", sourceLocation: sourceLocation)
            if let method, let result = message["result"] { try check(result, method, "result", "\(message)", sourceLocation: sourceLocation) }
            if let error = message["error"] { try check(error, "error", nil, "\(message)", sourceLocation: sourceLocation) }
            return message
        }
    }

    /// Sends a request and returns its result; fails the test on an error response.
    @discardableResult
    func call(_ method: String, _ params: [String: Any]? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        let message = try response(method, params, sourceLocation: sourceLocation)
        guard let result = message["result"] else {
            Issue.record("\(method) failed: \(message)", sourceLocation: sourceLocation)
            throw TimedOut(what: "a result of \(method)")
        }
        return result
    }

    /// The first notification `method` (already read, or the next ones) whose params satisfy
    /// `condition`; it is taken out of ``notifications``.
    func notification(_ method: String, timeout: Double = 120, where condition: (JSONValue) -> Bool = { _ in true }) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(timeout)
        var index = 0
        while true {
            while index < notifications.count {
                let message = notifications[index]
                index += 1
                if message["method"] == .string(method), let params = message["params"], condition(params) {
                    notifications.remove(at: index - 1)
                    return params
                }
            }
            let message = try nextMessage(timeout: max(0, deadline.timeIntervalSinceNow))
            #expect(message["method"] != nil, "a response nobody asked for: \(message)")
            notifications.append(message)
        }
    }

    /// Sends `shutdown` and waits for the process to exit; returns its status.
    func shutdown() throws -> Int32 {
        let result = try response("shutdown")
        #expect(result["result"] == .null)
        try? input.close()
        let exited = DispatchSemaphore(value: 0)
        let process = process
        Thread.detachNewThread {
            process.waitUntilExit(); exited.signal()
        }
        guard exited.wait(timeout: .now() + 120) == .success else { throw TimedOut(what: "docver serve to exit after shutdown") }
        return process.terminationStatus
    }

    /// Validates `value` against `$defs/definition` of protocol/NAME.schema.json (or its
    /// root when `definition` is nil).
    private func check(
        _ value: JSONValue, _ name: String, _ definition: String?, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let validator = try JSONSchemaValidator(contentsOf: Self.schemas.appendingPathComponent("\(name).schema.json"))
        let problems = definition.map { validator.problems(in: value, definition: $0) } ?? validator.problems(in: value)
        #expect(problems.isEmpty, "\(name) \(definition ?? ""): \(problems)\n\(context)", sourceLocation: sourceLocation)
        schemasUsed.insert(name)
    }
}

/// Lines read on one thread, taken on another.
final class LineQueue: Sendable {
    private let state = Mutex((lines: [String](), finished: false))
    private let available = DispatchSemaphore(value: 0)

    func append(_ line: String) {
        state.withLock { $0.lines.append(line) }
        available.signal()
    }

    func finish() {
        state.withLock { $0.finished = true }
        available.signal()
    }

    /// The next line, or nil at the end or after `timeout` seconds.
    func next(timeout: Double) -> String? {
        let deadline = DispatchTime.now() + timeout
        while true {
            let (line, finished) = state.withLock { state -> (String?, Bool) in
                state.lines.isEmpty ? (nil, state.finished) : (state.lines.removeFirst(), false)
            }
            if let line { return line }
            if finished { return nil }
            guard available.wait(timeout: deadline) == .success else { return nil }
        }
    }
}

/// Two devices for the editor-protocol tests: `alice` (the one an editor serves) and `bob`
/// share a remote; `notes.txt` is saved (in the past, so a later save is newer at once) and
/// synced on both.
func servedDevicePair(_ scratch: Scratch) throws -> (alice: Container, bob: Container) {
    let remote = try scratch.bareRemote()
    let alice = try scratch.device("alice", remote: remote)
    let bob = try scratch.device("bob", remote: remote)
    try alice.datedBeforeNow(4).saveText("base\n", to: "notes.txt")
    try alice.sync()
    try bob.sync()
    return (alice, bob)
}

/// Whether a program an editor-client test needs is installed; on CI (`CI=true`, where
/// .ci/run installs it) a missing one is a failure, elsewhere the test is skipped with a line.
func clientProgramInstalled(_ path: String, package: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
    if FileManager.default.isExecutableFile(atPath: path) { return true }
    if ProcessInfo.processInfo.environment["CI"] == "true" {
        Issue.record("\(path) is missing (install \(package))", sourceLocation: sourceLocation)
    }
    print("skipped: \(path) is missing (install \(package))")
    return false
}
