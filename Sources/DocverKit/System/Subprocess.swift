import Foundation

/// Runs helper programs (git's credential helpers, merge drivers) and waits for them.
enum Subprocess {
    /// What a finished program left behind.
    struct Outcome {
        var status: Int32
        var output: Data
        /// What it wrote on standard error, when it was collected.
        var errors = Data()
    }

    /// Runs `arguments[0]` found on `PATH` (through `/usr/bin/env`), feeding it `input` and
    /// collecting its standard output; standard error is discarded, or with
    /// `collectingErrors` collected too (through a temporary file, so that neither stream's
    /// pipe can fill while the other is read).
    static func run(
        _ arguments: [String], input: Data? = nil, directory: URL? = nil,
        environment: [String: String] = [:], collectingErrors: Bool = false
    ) throws(SystemError) -> Outcome {
        try run(
            executable: "/usr/bin/env", arguments, input: input, directory: directory, environment: environment,
            collectingErrors: collectingErrors)
    }

    /// Runs a shell command line with `/bin/sh -c`, as git runs merge drivers.
    static func shell(
        _ command: String, directory: URL? = nil,
        environment: [String: String] = [:]
    ) throws(SystemError) -> Outcome {
        try run(
            executable: "/bin/sh", ["-c", command], input: nil, directory: directory, environment: environment,
            collectingErrors: false)
    }

    /// Runs a shell command line with `/bin/sh -c` on this process's own standard input,
    /// output and error (a merge tool the user works in), and returns its exit status.
    static func interactiveShell(
        _ command: String, directory: URL? = nil,
        environment: [String: String] = [:]
    ) throws(SystemError) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        if let directory { process.currentDirectoryURL = directory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        do {
            try process.run()
        } catch {
            throw .wrapping("run", "/bin/sh", error)
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Starts `arguments` (found on `PATH`) in the background and returns at once, without
    /// waiting for it: a shell starts it with its standard streams on `/dev/null` and exits,
    /// so the program is nobody's child to reap (no zombie in a long-lived process such as the
    /// agent or an editor) and no pipe waits on it. Returns false if the shell could not run.
    @discardableResult
    static func startDetached(_ arguments: [String], directory: URL? = nil, environment: [String: String] = [:]) -> Bool {
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let outcome = try? shell(
            "exec </dev/null >/dev/null 2>&1; " + quoted + " &", directory: directory,
            environment: environment)
        return outcome?.status == 0
    }

    private static func run(
        executable: String, _ arguments: [String], input: Data?, directory: URL?,
        environment: [String: String], collectingErrors: Bool
    ) throws(SystemError) -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let inputChannel = try input.map { _ throws(SystemError) in try InputChannel() }
        let outputPipe = Pipe()
        process.standardInput = inputChannel?.childEnd ?? FileHandle.nullDevice
        process.standardOutput = outputPipe
        // An unlinked temporary file: nothing to clean up, whatever happens.
        var errorFile: FileHandle?
        if collectingErrors {
            var template = Array((NSTemporaryDirectory() + "/docver-errors-XXXXXX").utf8CString)
            let descriptor = mkstemp(&template)
            guard descriptor >= 0 else { throw .errno("create a temporary file in", NSTemporaryDirectory()) }
            unlink(template)
            errorFile = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        }
        process.standardError = errorFile ?? FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            inputChannel?.close()
            throw .wrapping("run", arguments.first ?? executable, error)
        }
        if let input, let inputChannel {
            inputChannel.send(input)
            inputChannel.close()
        }
        let output = outputPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var errors = Data()
        if let errorFile {
            _ = lseek(errorFile.fileDescriptor, 0, SEEK_SET)
            errors = (try? errorFile.readToEnd()) ?? Data()
        }
        return Outcome(status: process.terminationStatus, output: output, errors: errors)
    }

    /// Asks git's configured credential helpers for a user name and password, as `git`
    /// itself would (`git credential fill`, never prompting); nil when none answers.
    /// Runs in `directory` (the container) so that helpers configured in the repository's own
    /// config answer too.
    static func gitCredential(for url: String, in directory: URL? = nil) -> (user: String, password: String)? {
        guard
            let outcome = try? run(
                ["git", "credential", "fill"], input: Data("url=\(url)\n\n".utf8),
                directory: directory,
                environment: ["GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""]),
            outcome.status == 0
        else { return nil }
        var fields: [String: String] = [:]
        for line in String(decoding: outcome.output, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let user = fields["username"], let password = fields["password"] else { return nil }
        return (user, password)
    }
}

/// The standard input of a helper program: a socket pair instead of a pipe.
///
/// A program may exit without reading its input (ssh-keygen given a key file that does not
/// exist does). Writing the rest to a pipe then raises SIGPIPE, whose default action ends the
/// whole process: the editor using DocverKit, or the CLI without its error message. A socket
/// written with `send(MSG_NOSIGNAL)` reports EPIPE instead, on this thread only, without
/// touching the process's signal dispositions.
private final class InputChannel {
    let childEnd: FileHandle
    private let parentEnd: Int32

    init() throws(SystemError) {
        var ends: [Int32] = [0, 0]
        // Close-on-exec: no other program started meanwhile inherits an end (and keeps the
        // child from seeing the end of its input); Process dup2s the child's end to fd 0.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw .errno("create a socket pair", "")
        }
        parentEnd = ends[0]
        childEnd = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        // The child reads, the parent writes: neither direction needs the other half.
        _ = shutdown(ends[0], Int32(SHUT_RD))
        _ = shutdown(ends[1], Int32(SHUT_WR))
    }

    /// Sends `data` until it is all written or the reader has gone (which is not an error:
    /// the program's exit status tells what happened).
    func send(_ data: Data) {
        // The parent's copy of the child's end goes first, or a reader that exited would
        // leave it open and a full socket would block this send for ever.
        try? childEnd.close()
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let sent = Foundation.send(parentEnd, base + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { return }
                offset += sent
            }
        }
    }

    /// Closes both ends: the child reads the end of its input.
    func close() {
        try? childEnd.close()
        _ = Foundation.close(parentEnd)
    }
}
