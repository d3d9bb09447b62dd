import ArgumentParser
import DocverKit
import Foundation
import Synchronization

/// How this run of docver writes: colour per stream, relative dates, quiet or verbose,
/// progress and the pager. Decided once from the global options, the environment and which
/// streams are terminals, before the command runs (``GlobalOptions/apply()``).
struct OutputSettings: Sendable {
    /// Styles for stdout (results) and stderr (diagnostics): each stream is coloured only when
    /// it is a terminal, unless `--color=always`.
    var stdout = Style.plain
    var stderr = Style.plain
    /// Human listings show "3 minutes ago" (stdout is a terminal) or ISO 8601 dates (a pipe).
    var relativeDates = false
    /// `-q`: no hints, no progress, no warnings of no consequence. Errors and results stay.
    var quiet = false
    /// `-v` given this many times: 1 debug lines, 2 and more trace lines too.
    var verbosity = 0
    /// Progress lines on stderr (stderr is a terminal and not `-q`).
    var progress = false
    /// `--no-pager`.
    var noPager = false
    /// The present, for relative dates: the clock, or `DOCVER_NOW` (for tests).
    var now = Date()

    /// The settings of this run. Written once by ``GlobalOptions/apply()`` before the command
    /// runs, read by every printing function (progress callbacks may read it from another
    /// thread, hence the lock).
    private static let shared = Mutex(OutputSettings())

    static var current: OutputSettings { shared.withLock { $0 } }

    static func set(_ settings: OutputSettings) { shared.withLock { $0 = settings } }
}

/// A command with the global options (every command: ContainerCommand, init, clone).
protocol GlobalOptionsCommand {
    var global: GlobalOptions { get }
}

extension Docver.Init: GlobalOptionsCommand {}
extension Docver.Clone: GlobalOptionsCommand {}

extension GlobalOptions {
    /// Decides this run's ``OutputSettings`` and starts the `-v` diagnostics.
    func apply() {
        OutputSettings.apply(color: color, quiet: quiet, verbose: verbose, noPager: noPager)
    }
}

extension OutputSettings {
    /// Decides this run's settings from the global options' values (``GlobalOptions/apply()``,
    /// and the shortcut, which runs without the argument parser with the defaults).
    static func apply(color: ColorChoice, quiet: Bool, verbose: Int, noPager: Bool) {
        let environment = ProcessInfo.processInfo.environment
        let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
        let stderrIsTerminal = isatty(STDERR_FILENO) == 1
        var settings = OutputSettings()
        settings.stdout = Style(enabled: Style.decide(color, isTerminal: stdoutIsTerminal, environment: environment))
        settings.stderr = Style(enabled: Style.decide(color, isTerminal: stderrIsTerminal, environment: environment))
        settings.relativeDates = stdoutIsTerminal
        settings.quiet = quiet
        settings.verbosity = verbose
        settings.progress = stderrIsTerminal && !quiet
        settings.noPager = noPager
        if let now = environment["DOCVER_NOW"].flatMap({ DateInput.parse($0) }) { settings.now = now }
        OutputSettings.set(settings)
        Diagnostics.start(verbosity: verbose)
        Diagnostics.logger.debug(
            "docver \(docverVersion); stdout \(stdoutIsTerminal ? "is" : "is not") a terminal, stderr \(stderrIsTerminal ? "is" : "is not"); colour \(settings.stdout.enabled ? "on" : "off")"
        )
    }
}
