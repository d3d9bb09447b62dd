import DocverKit
import Foundation
import Synchronization

/// A command whose human output can be long (log, versions, diff) and goes through the pager
/// on a terminal. `pagesOutput` is false for `--json`.
protocol PagedCommand {
    var pagesOutput: Bool { get }
}

extension Docver.Log: PagedCommand { var pagesOutput: Bool { !output.json } }
extension Docver.Versions: PagedCommand { var pagesOutput: Bool { !output.json } }
extension Docver.Diff: PagedCommand { var pagesOutput: Bool { !output.json } }

/// The pager: stdout goes through `$DOCVER_PAGER`, else `$PAGER`, else `less` (with
/// `LESS=FRX` unless `LESS` is set, as git does: quit when the output fits on one screen, keep
/// colours, leave the screen as it is), only when stdout is a terminal and not `--no-pager`.
/// An empty pager or `cat` means none. A pager that is not found is no pager: the output is
/// printed directly. stderr is never paged, and ``finish()`` waits for the pager before an
/// error is printed and the exit code returned.
enum Pager {
    /// The running pager and the terminal's stdout, kept to restore it.
    private struct Running: @unchecked Sendable {
        // Safe: `Process` is not Sendable, but this value is moved into the lock by start() and
        // out of it by the one finish() that finds it, so one thread at a time holds it.
        let process: Process
        let terminal: Int32
    }

    private static let running = Mutex<Running?>(nil)

    /// The pager's shell command, or nil for none.
    static func command(environment: [String: String]) -> String? {
        let chosen = environment["DOCVER_PAGER"] ?? environment["PAGER"] ?? "less"
        let trimmed = chosen.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed == "cat" ? nil : trimmed
    }

    /// Starts the pager and sends stdout to it, when stdout is a terminal and a pager is wanted.
    static func start() {
        let settings = OutputSettings.current
        let environment = ProcessInfo.processInfo.environment
        guard !settings.noPager, isatty(STDOUT_FILENO) == 1, let command = command(environment: environment),
              let program = command.split(separator: " ").first.map(String.init), isExecutable(program, environment: environment)
        else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var pagerEnvironment = environment
        if pagerEnvironment["LESS"] == nil { pagerEnvironment["LESS"] = "FRX" }
        process.environment = pagerEnvironment
        let pipe = Pipe()
        process.standardInput = pipe
        do {
            try process.run()
        } catch {
            Diagnostics.logger.debug("the pager '\(command)' did not start: \(error); printing directly")
            return
        }
        fflush(nil)
        let terminal = dup(STDOUT_FILENO)
        dup2(pipe.fileHandleForWriting.fileDescriptor, STDOUT_FILENO)
        try? pipe.fileHandleForWriting.close()
        try? pipe.fileHandleForReading.close()
        running.withLock { $0 = Running(process: process, terminal: terminal) }
        Diagnostics.logger.debug("paging through '\(command)' (pid \(process.processIdentifier))")
    }

    /// Ends the output: closes the pager's input and waits for the user to quit it, then gives
    /// stdout back to the terminal. Does nothing when no pager runs.
    static func finish() {
        guard let pager = running.withLock({ state -> Running? in
            defer { state = nil }
            return state
        }) else { return }
        fflush(nil)
        dup2(pager.terminal, STDOUT_FILENO) // the pager's last writer closes: it sees the end
        close(pager.terminal)
        // The command's one task waits here, at its end, for a person to read the output.
        pager.process.waitUntilExit()
    }

    private static func isExecutable(_ program: String, environment: [String: String]) -> Bool {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) }
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
    }
}
