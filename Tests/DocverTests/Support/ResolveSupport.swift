import DocverKit
import Foundation
import Testing

// Helpers shared by the resolver tests (Resolve*Tests.swift). Conflicts are made the way
// they arise for real: devices sharing a bare remote edit the same document and sync.

/// Devices that share a bare remote and hold one document in conflict.
struct ConflictFixture {
    let scratch: Scratch
    let remote: URL
    /// The devices, in the order they saved their competing edits.
    let devices: [Container]
    /// The save every device started from.
    let base: String
    /// Each device's competing save, in device order.
    let saves: [String]
    let document: DocumentPath

    /// The device whose save was last: with staggered saves, its version is current.
    var latest: Container { devices[devices.count - 1] }
    /// The latest save: the current version everywhere (with staggered saves).
    var winner: String { saves[saves.count - 1] }
    /// The other saves: the conflict versions, oldest first.
    var losers: [String] { Array(saves.dropLast()) }

    /// The conflict as `device` sees it (required to exist).
    func conflict(on device: Container, sourceLocation: SourceLocation = #_sourceLocation) throws -> Conflict {
        try #require(
            try device.conflicts(document).first, "\(document) is not in conflict on \(device.device.id)",
            sourceLocation: sourceLocation)
    }

    /// Creates devices `ids`, saves `base` on the first, syncs everyone, then lets device i
    /// write `edits[i]` and save (one second apart when `staggered`, so the last save has the
    /// latest date), then syncs every device and the first ones again so all have seen all.
    static func make(
        _ scratch: Scratch, document: String = "note.txt",
        ids: [String] = ["alice", "bob"], names: [String]? = nil,
        base: [String: Data], edits: [[String: Data]], staggered: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ConflictFixture {
        precondition(ids.count == edits.count)
        let remote = try scratch.bareRemote()
        let devices = try ids.enumerated().map { index, id in
            try scratch.device(id, name: names?[index], remote: remote)
        }
        // Staggered: the base and the edits one second apart, all in the past (dated, instead
        // of waiting for the clock), so a save the test makes afterwards is the newest.
        func dated(_ device: Container, _ step: Int) -> Container {
            staggered ? device.datedBeforeNow(devices.count + 1 - step) : device
        }
        try writeFixtureFiles(base, in: devices[0])
        let baseSave = try #require(try dated(devices[0], 0).saveAll(message: "base"), sourceLocation: sourceLocation)
        for device in devices { try device.sync() }
        var saves: [String] = []
        for (index, device) in devices.enumerated() {
            try writeFixtureFiles(edits[index], in: device)
            saves.append(
                try #require(
                    try dated(device, index + 1).saveAll(message: "edit by \(device.device.id)"),
                    sourceLocation: sourceLocation))
        }
        for device in devices + devices.dropLast() { try device.sync() }
        let fixture = ConflictFixture(
            scratch: scratch, remote: remote, devices: devices, base: baseSave, saves: saves,
            document: try DocumentPath(document))
        for device in devices {
            let conflict = try fixture.conflict(on: device, sourceLocation: sourceLocation)
            try #require(
                Set([conflict.current.id] + conflict.conflicts.map(\.id)) == Set(saves),
                "the fixture's conflict is not the expected one", sourceLocation: sourceLocation)
            if staggered {
                try #require(conflict.current.id == saves.last, "the latest save must be current", sourceLocation: sourceLocation)
            }
        }
        return fixture
    }

    /// A text document in conflict: `base` edited into `edits[i]` by device i.
    static func text(
        _ scratch: Scratch, document: String = "note.txt", ids: [String] = ["alice", "bob"],
        names: [String]? = nil, base: String, edits: [String], extra: [String: String] = [:],
        staggered: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ConflictFixture {
        var baseFiles = [document: Data(base.utf8)]
        for (path, text) in extra { baseFiles[path] = Data(text.utf8) }
        return try make(
            scratch, document: document, ids: ids, names: names, base: baseFiles,
            edits: edits.map { [document: Data($0.utf8)] }, staggered: staggered, sourceLocation: sourceLocation)
    }
}

/// Writes files (relative path → bytes) into a container's working tree.
func writeFixtureFiles(_ files: [String: Data], in container: Container) throws {
    for (path, data) in files {
        let url = container.root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }
}

/// What a failed operation must leave alone: every ref, and every working-tree file.
struct ResolveSnapshot: Equatable {
    var refs: String
    var files: [String: Data]

    init(_ container: Container) throws {
        refs = try refSnapshot(container.root)
        files = try container.workingTreeFiles()
    }
}

/// Expects the container to be exactly as `before`: refs, working tree, nothing unsaved.
func expectContainerUnchanged(
    _ container: Container, since before: ResolveSnapshot, _ context: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let after = try ResolveSnapshot(container)
    #expect(after.refs == before.refs, "\(context): refs changed", sourceLocation: sourceLocation)
    #expect(after.files == before.files, "\(context): the working tree changed", sourceLocation: sourceLocation)
    #expect(try container.status().changed.isEmpty, "\(context): unsaved changes appeared", sourceLocation: sourceLocation)
}

/// The bytes of a flat version, as text.
func flatText(of version: DocumentVersion, in container: Container) throws -> String? {
    guard case let .flat(data) = try container.contents(of: version) else { return nil }
    return String(decoding: data, as: UTF8.self)
}

/// The current version's text (nil when absent or not flat).
func currentFlatText(_ document: DocumentPath, in container: Container) throws -> String? {
    guard let current = try container.currentVersion(of: document) else { return nil }
    return try flatText(of: current, in: container)
}

/// The trailers of a commit, as `git interpret-trailers` reads them ("Key: value" lines).
func commitTrailers(of commit: String, in container: Container) throws -> [String] {
    try container.git(["log", "-1", "--format=%(trailers:only,unfold)", commit])
        .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
}

/// Runs the CLI and decodes its `--json` output, whatever the exit status.
func docverJSON(_ arguments: [String], in directory: URL) throws -> (result: ProcessResult, json: Any?) {
    let result = try docver(arguments, in: directory)
    return (result, try? JSONSerialization.jsonObject(with: result.stdoutData, options: [.fragmentsAllowed]))
}

/// The versions `docver versions DOC --all --json` lists as conflict versions: id → resolved.
func listedConflictVersions(
    _ document: String, in container: Container,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> [String: Bool] {
    let result = try docver(["versions", document, "--all", "--json"], in: container.root)
    #expect(result.status == 0, "docver versions failed: \(result.stderr)", sourceLocation: sourceLocation)
    let object = try #require(try parseJSON(result.stdoutData) as? [String: Any], sourceLocation: sourceLocation)
    let conflicts = try #require(object["conflicts"] as? [[String: Any]], sourceLocation: sourceLocation)
    var listed: [String: Bool] = [:]
    for entry in conflicts {
        listed[try #require(entry["id"] as? String, sourceLocation: sourceLocation)] = entry["resolved"] as? Bool
    }
    return listed
}

/// The output of a program run on a pseudo-terminal, and its exit status.
struct PTYSession {
    var status: Int32
    /// Everything the program wrote (and the terminal echoed), with "\r\n" turned into "\n".
    var output: String
}

/// Runs the docver CLI on a pseudo-terminal (stdin and stdout are a tty), with `NO_COLOR`
/// set, answering each `prompt` it prints with the next of `answers`. Python's `pty` module drives it; the run
/// is killed after `timeout` seconds.
func docverOnTerminal(
    _ arguments: [String], in directory: URL, answers: [String],
    prompt: String = "choice> ", timeout: Int = 60
) throws -> PTYSession {
    let script = #"""
        import json, os, pty, select, signal, sys, time
        answers = json.loads(sys.argv[1]); prompt = sys.argv[2].encode(); timeout = float(sys.argv[3])
        directory = sys.argv[4]; command = sys.argv[5:]
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(directory)
            # Plain text whatever terminal the tests run in (TERM=xterm colours a tty's output).
            os.execve(command[0], command, dict(os.environ, NO_COLOR="1"))
        output = b""; answered = 0; deadline = time.time() + timeout; timed_out = False
        while True:
            if time.time() > deadline:
                timed_out = True
                os.kill(pid, signal.SIGKILL)
                break
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                output += chunk
            while answered < len(answers) and output.count(prompt) > answered:
                os.write(fd, answers[answered].encode() + b"\n")
                answered += 1
        _, status = os.waitpid(pid, 0)
        sys.stdout.buffer.write(output)
        sys.stdout.flush()
        if timed_out:
            sys.exit(124)
        sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
        """#
    let answersJSON = String(decoding: try JSONSerialization.data(withJSONObject: answers), as: UTF8.self)
    let python =
        ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
        ?? "/usr/bin/env"
    let prefix = python == "/usr/bin/env" ? ["python3"] : []
    let result = try runProcess(
        python,
        prefix + [
            "-c", script, answersJSON, prompt, String(timeout), directory.path,
            docverExecutable,
        ] + arguments)
    return PTYSession(status: result.status, output: result.stdout.replacingOccurrences(of: "\r\n", with: "\n"))
}

/// True for a JSON null or an absent key (the CLI omits nil fields).
func jsonNullOrMissing(_ value: Any?) -> Bool {
    value == nil || value is NSNull
}
