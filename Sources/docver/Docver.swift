import ArgumentParser
import Foundation

@main
struct Docver: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docver",
        abstract: "Keep documents on many devices without ever losing a version.",
        discussion: """
            A container is a git repository; every save is a commit on this device's own branch.
            Exit codes:
              0    success
              1    the operation failed (one line on stderr)
              3    'docver agent' in the foreground: another agent already serves the container
              64   usage error
              141  stopped by SIGPIPE: the pager or a pipe closed before the end of the output
            """,
        version: docverVersion,
        subcommands: [
            Init.self, Save.self, Status.self, List.self, Log.self, Versions.self, Show.self, Restore.self,
            RemoteCommand.self, Clone.self, Sync.self, Conflicts.self, Resolve.self, Replace.self, MarkResolved.self,
            RemoveOtherVersions.self, Diff.self, Watch.self, Integrate.self, KeyValue.self, AgentCommand.self,
            DiskUsage.self, GarbageCollect.self, Serve.self, Download.self, Evict.self,
        ]
    )

    // Accepted before the subcommand (`docver -C PATH save`), as git does.
    @OptionGroup var global: GlobalOptions

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // `docver status` and `docver conflicts` answered by the agent, before the argument
        // parser and libgit2 start (Shortcut.swift); anything else, or any doubt, goes on here.
        if Shortcut.run(arguments) { Foundation.exit(0) }
        if let mistyped = CommandSuggestion.error(for: arguments) {
            let error = ValidationError(mistyped)
            if JSONFailure.requested(in: arguments) {
                JSONFailure.requested = true
                JSONFailure.print(code: "usage", exitCode: exitCode(for: error).rawValue, message: mistyped, hint: nil)
            }
            exit(withError: error)
        }
        await parseAndRun(Resolve.rewritingOptionalValues(LogCount.expanding(arguments)))
    }

    /// ArgumentParser's own `main`, except that a usage error under `--json` is also a JSON
    /// object on stdout (docs/CLI.md, "Errors under --json"); help and `--version` are not errors.
    private static func parseAndRun(_ arguments: [String]) async {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code.rawValue == 64, JSONFailure.requested || JSONFailure.requested(in: arguments) {
                JSONFailure.requested = true
                JSONFailure.print(code: "usage", exitCode: code.rawValue, message: message(for: error), hint: nil)
            }
            exit(withError: error)
        }
    }
}

let docverVersion = "0.1.0"
