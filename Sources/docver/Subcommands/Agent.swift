import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct AgentCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "agent",
            abstract: "Autosave and sync by themselves: run the sync agent (in the foreground by default).",
            discussion: """
                'docver agent' runs in the foreground (for systemd and terminals) until SIGTERM or Ctrl-C;
                'docver agent start' runs it in the background, 'stop' stops it, 'status' asks it how it is.
                Settings come from the options, else from the docver.agent.* git config keys (docs/AGENT.md).
                """,
            subcommands: [Run.self, Start.self, Stop.self, Status.self, Log.self, Enable.self, Disable.self],
            defaultSubcommand: Run.self)
    }
}

/// The agent's settings on the command line; unset ones come from `docver.agent.*` in the config.
struct AgentOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Seconds a document must be quiet before it is saved (default 2).", valueName: "seconds"))
    var quietDelay: Double?
    @Option(help: ArgumentHelp("Seconds between polls of the remotes (default 10).", valueName: "seconds"))
    var pollInterval: Double?
    @Option(help: ArgumentHelp("Longest wait in seconds between retries while offline (default 300).", valueName: "seconds"))
    var maxBackoff: Double?
    @Option(help: ArgumentHelp("A glob of files never saved, added to the defaults; repeatable.", valueName: "glob"))
    var ignore: [String] = []
    @Option(name: .customLong("remote"), help: ArgumentHelp("A remote to sync with (default: all); repeatable.", valueName: "name"))
    var remotes: [String] = []
    @Option(help: .hidden) var maxWatches: Int?

    func validate() throws {
        for (name, value) in [("--quiet-delay", quietDelay), ("--poll-interval", pollInterval), ("--max-backoff", maxBackoff)] {
            if let value, !(value > 0 && value <= 1_000_000) {
                throw ValidationError("\(name) must be a positive number of seconds, at most 1000000")
            }
        }
        if let maxWatches, maxWatches < 1 { throw ValidationError("--max-watches must be at least 1") }
        if ignore.contains(where: \.isEmpty) { throw ValidationError("--ignore needs a glob") }
    }

    func configuration(for container: Container) throws -> Agent.Configuration {
        var configuration = try Agent.Configuration(container: container)
        if let quietDelay { configuration.quietDelay = .milliseconds(Int64((quietDelay * 1000).rounded())) }
        if let pollInterval { configuration.pollInterval = .milliseconds(Int64((pollInterval * 1000).rounded())) }
        if let maxBackoff { configuration.maximumBackoff = .milliseconds(Int64((maxBackoff * 1000).rounded())) }
        configuration.ignore.patterns += ignore
        if !remotes.isEmpty { configuration.remotes = remotes }
        configuration.maximumWatches = maxWatches
        return configuration
    }

    /// The same options, for the background agent's command line.
    var arguments: [String] {
        var result: [String] = []
        if let quietDelay { result += ["--quiet-delay", "\(quietDelay)"] }
        if let pollInterval { result += ["--poll-interval", "\(pollInterval)"] }
        if let maxBackoff { result += ["--max-backoff", "\(maxBackoff)"] }
        for glob in ignore { result += ["--ignore", glob] }
        for remote in remotes { result += ["--remote", remote] }
        if let maxWatches { result += ["--max-watches", "\(maxWatches)"] }
        return result
    }
}

extension Docver.AgentCommand {
    struct Run: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the agent in the foreground until SIGTERM or Ctrl-C.",
            discussion: """
                With --json, one event per line (schema in docs/AGENT.md). Exits 3 when another agent \
                already serves the container (systemd's unit does not restart it then).
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var settings: AgentOptions
        /// Set by `agent start` for the background process: leave the terminal's session.
        @Flag(help: .hidden) var detached = false

        /// The exit status when another agent already serves the container: distinct, so that
        /// a service manager does not restart the agent in a loop (the unit's
        /// `RestartPreventExitStatus=`).
        static let alreadyRunningStatus = ExitCode(3)

        func run(in container: Container) async throws {
            if detached { setsid() }
            do {
                try await runAgent(in: container)
            } catch let error as AgentError {
                guard case .alreadyRunning = error else { throw error }
                throw HintedFailure(error.description, hint: nil, code: Self.alreadyRunningStatus, kind: "agentAlreadyRunning")
            }
        }

        private func runAgent(in container: Container) async throws {
            let agent = try Agent(container: container, configuration: settings.configuration(for: container))
            agent.serveEditors(version: docverVersion)
            // SIGTERM (systemd, `agent stop`) and Ctrl-C finish the save in progress, then exit.
            var sources: [any DispatchSourceSignal] = []
            for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler { agent.stop() }
                source.resume()
                sources.append(source)
            }
            defer { sources.forEach { $0.cancel() } }
            let json = output.json
            let notifier = DesktopNotifier()
            try await agent.run { event in
                if json {
                    try? Terminal.printJSON(AgentEventOutput(event), onOneLine: true)
                } else {
                    print(AgentEventOutput(event).line)
                }
                fflush(nil)
                if case let .conflict(document, _, yoursLost) = event.kind {
                    // Which container, which document, and the command that settles it.
                    let root = container.root.path
                    notifier?.notify(
                        title: "docver: \(document.path) is in conflict in \(container.root.lastPathComponent)",
                        body: (yoursLost ? "Your version" : "Another device's version")
                            + " was kept as a conflict version in \(root). Resolve it with: docver -C \(Terminal.shellWord(root)) resolve "
                            + Terminal.shellWord(document.path))
                }
            }
        }
    }

    struct Start: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start the agent in the background (events go to .git/docver/agent.log).",
            discussion: "If an agent already runs for the container, reports it and starts none.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var settings: AgentOptions

        func run(in container: Container) async throws {
            let log = Agent.logPath(for: container)
            func alreadyRunning(_ pid: Int32) throws {
                if output.json { return try Terminal.printJSON(AgentControlOutput(changed: false, running: true, pid: pid, log: log)) }
                print("an agent is already running for \(container.root.path) (pid \(pid))")
            }
            if let pid = Agent.runningPID(for: container) { return try alreadyRunning(pid) }
            _ = try settings.configuration(for: container)  // bad config fails here, not in the background
            let handle = try Agent.openLog(for: container)
            let process = Process()
            process.executableURL = URL(
                fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                    ?? CommandLine.arguments[0])
            process.arguments = ["-C", container.root.path, "agent", "run", "--json", "--detached"] + settings.arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(30)
            while clock.now < deadline {
                if let status = try? Agent.status(of: container, timeout: .milliseconds(200)), status.pid == process.processIdentifier {
                    if output.json {
                        return try Terminal.printJSON(AgentControlOutput(changed: true, running: true, pid: status.pid, log: log))
                    }
                    print("agent started for \(container.root.path) (pid \(status.pid)); events in \(log)")
                    return
                }
                if !process.isRunning {
                    if let pid = Agent.runningPID(for: container) { return try alreadyRunning(pid) }
                    let last = Agent.lastLogLine(for: container) ?? "no output"
                    Terminal.error("the agent exited at start: \(DocverError.printable(last))", hint: nil)
                    throw ExitCode.failure
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            Terminal.error("the agent (pid \(process.processIdentifier)) did not answer within 30 s; see \(log)", hint: nil)
            throw ExitCode.failure
        }
    }

    struct Stop: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop the background agent (it finishes the save in progress first).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run(in container: Container) async throws {
            guard Agent.runningPID(for: container) != nil else {
                if output.json { return try Terminal.printJSON(AgentControlOutput(changed: false, running: false, pid: nil, log: nil)) }
                print("no agent is running for \(container.root.path)")
                return
            }
            let pid = try Agent.terminate(for: container)
            if output.json { return try Terminal.printJSON(AgentControlOutput(changed: true, running: false, pid: pid, log: nil)) }
            print("agent stopped (pid \(pid))")
        }
    }

    struct Status: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show whether an agent runs for the container, and what it is doing.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run(in container: Container) async throws {
            let pid = Agent.runningPID(for: container)
            let status = pid == nil ? nil : try Agent.status(of: container)
            let remotes = try container.remotes().map(\.name)
            let conflicts = try container.documentsInConflict()
            if output.json {
                try Terminal.printJSON(
                    AgentStatusOutput(
                        running: pid != nil, pid: pid, status: status, remotes: remotes,
                        conflicts: conflicts.map { .init(document: $0.document.path, versions: $0.count) }))
                return
            }
            defer {
                print(remotes.isEmpty ? "no remotes: the agent only saves" : "remotes: \(remotes.joined(separator: ", "))")
                if !conflicts.isEmpty {
                    let names =
                        conflicts.prefix(5).map { Terminal.shellWord($0.document.path) }.joined(separator: ", ")
                        + (conflicts.count > 5 ? " and \(conflicts.count - 5) more" : "")
                    print("\(Terminal.count(conflicts.count, "document")) in conflict: \(names); see 'docver conflicts'")
                }
            }
            guard let pid else {
                print("no agent is running for \(container.root.path)")
                return
            }
            guard let status else {
                print("agent running (pid \(pid)) but not answering on its socket")
                return
            }
            print("agent running (pid \(pid)) since \(Terminal.date(status.started))")
            if let since = status.offlineSince {
                print(
                    "offline since \(Terminal.date(since))\(status.lastError.map { ": \($0)" } ?? "")"
                        + (status.lastSync.map { "; last successful sync \(Terminal.date($0))" } ?? ""))
            } else {
                print("online\(status.lastSync.map { "; last sync \(Terminal.date($0)), succeeded" } ?? "; not synced yet")")
            }
            print(
                "\(Terminal.count(status.pendingDocuments, "document")) waiting to be saved; "
                    + "\(Terminal.count(status.saves, "autosave")) so far; watching \(Terminal.count(status.watchedFolders, "folder"))"
                    + (status.subscribers > 0 ? "; \(Terminal.count(status.subscribers, "subscriber")) told of every change" : ""))
        }
    }
}

extension Docver.AgentCommand {
    struct Log: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the background agent's log (.git/docver/agent.log) for people; --json keeps its JSON lines.",
            discussion: "An agent run by systemd logs to the journal: journalctl --user -u 'docver-agent@...'.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run(in container: Container) async throws {
            let path = Agent.logPath(for: container)
            guard let data = FileManager.default.contents(atPath: path) else {
                print("no agent log yet (\(path)): 'docver agent start' writes one")
                return
            }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true) {
                if output.json {
                    print(line)
                } else if let event = try? decoder.decode(AgentEventOutput.self, from: Data(line.utf8)) {
                    print(event.line)
                } else {
                    // What the agent wrote on stderr (an error at start, say) is already for people.
                    print(DocverError.printable(String(line)))
                }
            }
        }
    }
}

/// Desktop notifications through `notify-send`, when it exists and a desktop session is present.
struct DesktopNotifier {
    let executable: String

    init?() {
        let environment = ProcessInfo.processInfo.environment
        guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil else { return nil }
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let found = path.map({ "\($0)/notify-send" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { return nil }
        executable = found
    }

    func notify(title: String, body: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--app-name=docver", title, body]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }
}
