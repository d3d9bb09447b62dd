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
    /// The running pager's pid and the terminal's stdout, kept to restore it.
    private struct Running {
        let pid: pid_t
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
    ///
    /// The pager is spawned with posix_spawn in docver's own process group: Foundation's
    /// `Process` puts its child in a group of its own, where a pager reading the keyboard is a
    /// background job (less quit at once) and Ctrl-C does not reach it.
    static func start() {
        let settings = OutputSettings.current
        var environment = ProcessInfo.processInfo.environment
        guard !settings.noPager, isatty(STDOUT_FILENO) == 1, let command = command(environment: environment),
            let program = command.split(separator: " ").first.map(String.init), isExecutable(program, environment: environment)
        else { return }
        if environment["LESS"] == nil { environment["LESS"] = "FRX" }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        // Close-on-exec: no other program docver starts inherits an end of the pager's pipe.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, readEnd, STDIN_FILENO)  // dup2 clears close-on-exec
        let words: [String] = ["/bin/sh", "-c", command]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (arguments + variables).forEach { free($0) } }
        // Ctrl-C reaches the pager and docver alike; the pager handles it, and docver must not
        // die and leave the pager reading the terminal behind the shell's prompt (as git does,
        // docver ends when the pager does: SIGPIPE on its next write, or at its own end).
        // Ignored before the pager exists, so no early signal finds docver unprepared; the
        // pager starts with both signals at their defaults and nothing blocked.
        signal(SIGINT, SIG_IGN)
        signal(SIGQUIT, SIG_IGN)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGQUIT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        fflush(nil)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, arguments, variables)
        close(readEnd)
        guard spawned == 0 else {
            close(writeEnd)
            signal(SIGINT, SIG_DFL)
            signal(SIGQUIT, SIG_DFL)
            Diagnostics.logger.debug("the pager '\(command)' did not start (error \(spawned)); printing directly")
            return
        }
        let terminal = dup(STDOUT_FILENO)
        dup2(writeEnd, STDOUT_FILENO)
        close(writeEnd)
        running.withLock { $0 = Running(pid: pid, terminal: terminal) }
        Diagnostics.logger.debug("paging through '\(command)' (pid \(pid))")
    }

    /// Ends the output: closes the pager's input and waits for the user to quit it, then gives
    /// stdout back to the terminal. Does nothing when no pager runs.
    static func finish() {
        guard
            let pager = running.withLock({ state -> Running? in
                defer { state = nil }
                return state
            })
        else { return }
        fflush(nil)
        dup2(pager.terminal, STDOUT_FILENO)  // the pager's last writer closes: it sees the end
        close(pager.terminal)
        // The command's one task waits here, at its end, for a person to read the output.
        var status: Int32 = 0
        while waitpid(pager.pid, &status, 0) == -1 && errno == EINTR {}
        signal(SIGINT, SIG_DFL)
        signal(SIGQUIT, SIG_DFL)
    }

    private static func isExecutable(_ program: String, environment: [String: String]) -> Bool {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) }
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
    }
}
