import Foundation

/// Runs helper programs (git's credential helpers, merge drivers) and waits for them.
enum Subprocess {
    /// What a finished program left behind.
    struct Outcome {
        var status: Int32
        var output: Data
    }

    /// Runs `arguments[0]` found on `PATH` (through `/usr/bin/env`), feeding it `input` and
    /// collecting its standard output; standard error is discarded.
    static func run(_ arguments: [String], input: Data? = nil, directory: URL? = nil,
                    environment: [String: String] = [:]) throws(SystemError) -> Outcome {
        try run(executable: "/usr/bin/env", arguments, input: input, directory: directory, environment: environment)
    }

    /// Runs a shell command line with `/bin/sh -c`, as git runs merge drivers.
    static func shell(_ command: String, directory: URL? = nil) throws(SystemError) -> Outcome {
        try run(executable: "/bin/sh", ["-c", command], input: nil, directory: directory, environment: [:])
    }

    private static func run(executable: String, _ arguments: [String], input: Data?, directory: URL?,
                            environment: [String: String]) throws(SystemError) -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let inputPipe = input.map { _ in Pipe() }
        let outputPipe = Pipe()
        process.standardInput = inputPipe ?? FileHandle.nullDevice
        process.standardOutput = outputPipe
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw .wrapping("run", arguments.first ?? executable, error)
        }
        if let input, let inputPipe {
            inputPipe.fileHandleForWriting.write(input)
            try? inputPipe.fileHandleForWriting.close()
        }
        let output = outputPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: output)
    }

    /// Asks git's configured credential helpers for a user name and password, as `git`
    /// itself would (`git credential fill`, never prompting); nil when none answers.
    /// Runs in `directory` (the container) so that helpers configured in the repository's own
    /// config answer too.
    static func gitCredential(for url: String, in directory: URL? = nil) -> (user: String, password: String)? {
        guard let outcome = try? run(["git", "credential", "fill"], input: Data("url=\(url)\n\n".utf8),
                                     directory: directory,
                                     environment: ["GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""]),
              outcome.status == 0 else { return nil }
        var fields: [String: String] = [:]
        for line in String(decoding: outcome.output, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let user = fields["username"], let password = fields["password"] else { return nil }
        return (user, password)
    }
}
