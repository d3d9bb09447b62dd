import ArgumentParser
import DocverKit
import Foundation

extension Docver.AgentCommand {
    struct Enable: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the agent as a systemd user service, at every login (as 'git maintenance start' does).",
            discussion: """
                Writes ~/.config/systemd/user/docver-agent@<escaped container path>.service (under \
                $XDG_CONFIG_HOME when set), which runs this docver binary on this container, then \
                enables and starts it with 'systemctl --user'. Where no user systemd runs, the unit is \
                written and the command says how to start it (exit 1).
                """)

        @OptionGroup var global: GlobalOptions

        func run(in container: Container) async throws {
            let unit = SystemdUnit(container: container.root.path)
            try FileManager.default.createDirectory(atPath: SystemdUnit.directory, withIntermediateDirectories: true)
            try Data(unit.text(binary: SystemdUnit.runningBinary).utf8).write(to: URL(fileURLWithPath: unit.path), options: .atomic)
            let start = "systemctl --user daemon-reload && systemctl --user enable --now \(Terminal.shellWord(unit.name))"
            if let problem = SystemdUnit.systemctl(["daemon-reload"]) ?? SystemdUnit.systemctl(["enable", "--now", unit.name]) {
                throw HintedFailure(
                    "wrote \(unit.path), but could not enable it: \(problem)",
                    hint: "where a user systemd runs: \(start)")
            }
            print("enabled and started \(unit.name) (\(unit.path))")
            print("the agent now runs at every login; 'docver agent disable' stops it")
        }
    }

    struct Disable: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop the agent's systemd user service and remove its unit ('agent enable' undone).")

        @OptionGroup var global: GlobalOptions

        func run(in container: Container) async throws {
            let unit = SystemdUnit(container: container.root.path)
            guard FileManager.default.fileExists(atPath: unit.path) else {
                print("no systemd unit for \(container.root.path) (\(unit.path) does not exist)")
                return
            }
            // Stopped before its file goes, so systemd still knows how to stop it.
            let problem = SystemdUnit.systemctl(["disable", "--now", unit.name])
            try FileManager.default.removeItem(atPath: unit.path)
            _ = SystemdUnit.systemctl(["daemon-reload"])
            if let problem {
                Terminal.warning("systemctl --user disable --now \(unit.name): \(problem)")
            }
            print("disabled \(unit.name) and removed \(unit.path)")
        }
    }
}

/// The systemd user unit of one container's agent: `docver-agent@<escaped path>.service`, an
/// instance whose name is the container's path as `systemd-escape --path` writes it.
struct SystemdUnit {
    let container: String

    /// `~/.config/systemd/user`, or `$XDG_CONFIG_HOME/systemd/user`.
    static var directory: String {
        let environment = ProcessInfo.processInfo.environment
        let config =
            environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return config + "/systemd/user"
    }

    var name: String { "docver-agent@\(Self.escapedPath(container)).service" }
    var path: String { Self.directory + "/" + name }

    /// The real path of the running binary (`/proc/self/exe`), so the unit runs this docver
    /// wherever it is installed.
    static var runningBinary: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
    }

    /// The unit. Kept in step with Examples/docver-agent@.service, the same unit as a template.
    func text(binary: String) -> String {
        """
        # The docver sync agent for \(container.replacingOccurrences(of: "\n", with: " ")),
        # written by 'docver agent enable'; 'docver agent disable' removes it. See docs/AGENT.md.
        # Settings come from the container's git config (docver.agent.*).
        [Unit]
        Description=docver sync agent for %f

        [Service]
        Type=simple
        # %f is the unescaped instance name with a leading slash: the container's path.
        ExecStart=\(Self.quotedExecutable(binary)) -C %f agent --json
        # SIGTERM lets the agent finish the save in progress; nothing is lost if it takes longer
        # and is killed, but give it time.
        KillSignal=SIGTERM
        TimeoutStopSec=30
        Restart=on-failure
        RestartSec=5
        # Exit status 3: another agent (one started with 'docver agent start', say) already serves
        # the container. Restarting would only fail again every 5 s; stop the other agent instead.
        RestartPreventExitStatus=3
        NoNewPrivileges=yes

        [Install]
        WantedBy=default.target

        """
    }

    /// An executable path in `ExecStart=`: in double quotes, with `%` and `$` doubled (systemd's
    /// specifier and variable signs) and `\` and `"` escaped.
    static func quotedExecutable(_ path: String) -> String {
        var quoted = ""
        for character in path {
            switch character {
            case "%": quoted += "%%"
            case "$": quoted += "$$"
            case "\\", "\"": quoted += "\\" + String(character)
            default: quoted.append(character)
            }
        }
        return "\"" + quoted + "\""
    }

    /// `systemd-escape --path`: slashes at the ends dropped and runs of them collapsed, `/`
    /// written `-`, every byte other than ASCII letters, digits, `:`, `_` and a `.` that does not
    /// start the name written `\xNN`; the root is `-`.
    static func escapedPath(_ path: String) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard !parts.isEmpty else { return "-" }
        var escaped = ""
        for byte in parts.joined(separator: "/").utf8 {
            let isPlain =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "_") || (byte == UInt8(ascii: ".") && !escaped.isEmpty)
            if byte == UInt8(ascii: "/") {
                escaped += "-"
            } else if isPlain {
                escaped.append(Character(Unicode.Scalar(byte)))
            } else {
                escaped += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return escaped
    }

    /// Runs `systemctl --user ARGUMENTS`; nil when it succeeded, else what went wrong.
    static func systemctl(_ arguments: [String]) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/systemctl" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else { return "systemctl is not installed" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--user"] + arguments
        let errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        do { try process.run() } catch { return "systemctl did not start: \(error.localizedDescription)" }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus != 0 else { return nil }
        let line = message.split(separator: "\n").first.map(String.init) ?? "exit status \(process.terminationStatus)"
        return "systemctl --user \(arguments.joined(separator: " ")): \(line)"
    }
}
