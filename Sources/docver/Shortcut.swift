import DocverKit
import Foundation

/// `docver status` and `docver conflicts` answered by the container's running agent without
/// the argument parser (building its command tree scans the Swift runtime's conformances) and
/// without libgit2 (its initialisation decodes the CA bundle): together most of a served
/// answer's time (docs/PERFORMANCE.md, "The sync agent").
///
/// Only the plain forms: `status` or `conflicts`, optionally `--json` after it and `-C PATH`
/// before or after it, each at most once. The output is the normal path's, from the same
/// rendering code (``Docver/Status/render(_:device:json:)``,
/// ``Docver/Conflicts/render(_:of:json:)``) with the same output settings; anything else (other
/// arguments, no agent, an agent that cannot vouch for its answer, see ``AgentShortcut``) goes
/// the normal way.
enum Shortcut {
    /// True when the command was answered (its output printed); false: parse and run it normally.
    static func run(_ arguments: [String]) -> Bool {
        guard let request = Request(arguments) else { return false }
        let directory = request.directory ?? FileManager.default.currentDirectoryPath
        switch request.command {
        case .status:
            guard let (device, status) = AgentShortcut.status(from: directory) else { return false }
            OutputSettings.apply(color: .auto, quiet: false, verbose: 0, noPager: false)
            do { try Docver.Status.render(status, device: device, json: request.json) } catch { return false }
        case .conflicts:
            guard let conflicts = AgentShortcut.conflicts(from: directory) else { return false }
            OutputSettings.apply(color: .auto, quiet: false, verbose: 0, noPager: false)
            do { try Docver.Conflicts.render(conflicts, of: nil, json: request.json) } catch { return false }
        }
        return true
    }

    /// The plain forms the shortcut answers.
    struct Request: Equatable {
        enum Command: Equatable { case status, conflicts }
        var command: Command
        var directory: String?
        var json = false

        init?(_ arguments: [String]) {
            var command: Command?
            var directory: String?
            var json = false
            var index = 0
            while index < arguments.count {
                let argument = arguments[index]
                switch argument {
                case "-C":
                    // A value the parser might read as an option, or a second -C: the normal way.
                    guard directory == nil, index + 1 < arguments.count, let value = arguments[index + 1] as String?,
                          !value.isEmpty, !value.hasPrefix("-") else { return nil }
                    directory = value
                    index += 1
                case "status" where command == nil: command = .status
                case "conflicts" where command == nil: command = .conflicts
                case "--json" where command != nil && !json: json = true
                default: return nil
                }
                index += 1
            }
            guard let command else { return nil }
            self.command = command
            self.directory = directory
            self.json = json
        }
    }
}
