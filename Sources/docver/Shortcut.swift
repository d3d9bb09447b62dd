import ArgumentParser
import DocverKit
import Foundation

/// The commonest read-only commands run without the argument parser: building its command
/// tree scans the Swift runtime's protocol conformances, a third of what a one-document
/// `versions` costs (Benchmarks/NOTES.md, 2026-11-24 (e)).
///
/// - `docver status` and `docver conflicts` are answered by the container's running agent,
///   without libgit2 either; when no agent can vouch for its answer (see ``AgentShortcut``),
///   they run their own work directly, as the next do.
/// - `docver versions DOC`, `docver log [DOC]` and `docver ls` run their own work directly.
///
/// Only the plain forms: the command, its one document where it takes one, optionally `--json`
/// after the command and `-C PATH` before or after it, each at most once. The output is the
/// normal path's, from the same rendering code (each command's `render`) with the same output
/// settings (the defaults: colour and pager on terminals). Anything else, and any failure
/// before the first line of output, goes the normal way, which prints the error (with its hint)
/// as always; nothing here writes to the container but what opening it repairs, as the normal
/// path does.
enum Shortcut {
    /// True when the command was answered (its output printed); false: parse and run it normally.
    static func run(_ arguments: [String]) -> Bool {
        guard let request = Request(arguments) else { return false }
        let directory = request.directory ?? FileManager.default.currentDirectoryPath
        switch request.command {
        case .status:
            guard let (device, status) = AgentShortcut.status(from: directory) else { break }
            OutputSettings.apply(color: .auto, quiet: false, verbose: 0, noPager: false)
            do { try Docver.Status.render(status, device: device, json: request.json) } catch { return false }
            return true
        case .conflicts:
            guard let conflicts = AgentShortcut.conflicts(from: directory) else { break }
            OutputSettings.apply(color: .auto, quiet: false, verbose: 0, noPager: false)
            do { try Docver.Conflicts.render(conflicts, of: nil, json: request.json) } catch { return false }
            return true
        case .versions, .log, .list:
            break
        }
        return runLocally(request, from: URL(fileURLWithPath: directory))
    }

    /// The commands as their `run(in:)` does them (status and conflicts when the agent did not
    /// answer).
    private static func runLocally(_ request: Request, from directory: URL) -> Bool {
        OutputSettings.apply(color: .auto, quiet: false, verbose: 0, noPager: false)
        var container: Container
        do { container = try Container(at: directory) } catch { return false }
        container.onRepair = { Terminal.warning($0, ofConsequence: false) }
        // log and versions page on a terminal (PagedCommand), but never their JSON; the pager
        // starts once the output is certain.
        let paged = (request.command == .versions || request.command == .log) && !request.json
        var printing = false
        let willPrint = {
            printing = true
            if paged { Pager.start() }
        }
        do {
            switch request.command {
            case .versions:
                try Docver.Versions.render(request.document!, in: container, from: directory, all: false, json: request.json, printing: willPrint)
            case .log:
                try Docver.Log.render(request.document, in: container, from: directory, limit: nil, json: request.json, printing: willPrint)
            case .list:
                try Docver.List.render(DocumentQuery(), in: container, json: request.json, printing: willPrint)
            case .status:
                let status = try Agent.cachedStatus(of: container) ?? container.status()
                willPrint()
                try Docver.Status.render(status, device: container.device, json: request.json)
            case .conflicts:
                let conflicts = try container.conflicts(nil)
                willPrint()
                try Docver.Conflicts.render(conflicts, of: nil, json: request.json)
            }
            Pager.finish()
            return true
        } catch {
            // Nothing printed yet: the normal path runs the command again and reports the
            // failure with its hint. Mid-stream (a log in a pipe): report it here.
            guard printing else { return false }
            Pager.finish()
            JSONFailure.requested = request.json
            let code = (printedFailure(error) as? ExitCode)?.rawValue ?? 1
            Foundation.exit(code)
        }
    }

    /// The plain forms the shortcut answers.
    struct Request: Equatable {
        enum Command: Equatable { case status, conflicts, versions, log, list }
        var command: Command
        var directory: String?
        var document: String?
        var json = false

        init?(_ arguments: [String]) {
            var command: Command?
            var directory: String?
            var document: String?
            var json = false
            var index = 0
            while index < arguments.count {
                let argument = arguments[index]
                switch argument {
                case "-C":
                    // A value the parser might read as an option, or a second -C: the normal way.
                    guard directory == nil, index + 1 < arguments.count, let value = arguments[index + 1] as String?,
                        !value.isEmpty, !value.hasPrefix("-")
                    else { return nil }
                    directory = value
                    index += 1
                case "status" where command == nil: command = .status
                case "conflicts" where command == nil: command = .conflicts
                case "versions" where command == nil: command = .versions
                case "log" where command == nil: command = .log
                case "ls" where command == nil: command = .list
                case "--json" where command != nil && !json: json = true
                default:
                    // The one document of versions and log; nothing the parser could read as an
                    // option, a `--` or a second name.
                    guard command == .versions || command == .log, document == nil, !argument.isEmpty,
                        !argument.hasPrefix("-")
                    else { return nil }
                    document = argument
                }
                index += 1
            }
            guard let command else { return nil }
            if command == .versions && document == nil { return nil }
            self.command = command
            self.directory = directory
            self.document = document
            self.json = json
        }
    }
}
