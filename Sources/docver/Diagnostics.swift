import DocverKit
import Foundation
import Logging
import Synchronization

/// The `-v` diagnostics: swift-log with a handler that writes `docver: debug: ...` lines to
/// stderr. Without `-v` nothing is logged; `-v` shows debug lines (the container opened, the
/// remotes contacted, the timings of the main phases), `-vv` trace lines as well.
///
/// Only the CLI logs: the library reports through return values and callbacks.
enum Diagnostics {
    private static let started = Mutex(false)

    /// Installs the stderr handler; only the first call counts (swift-log allows one).
    static func start(verbosity: Int) {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        let level: Logger.Level =
            switch verbosity {
            case ...0: .critical
            case 1: .debug
            default: .trace
            }
        LoggingSystem.bootstrap { _ in StderrLogHandler(logLevel: level) }
    }

    /// The CLI's logger (made on use, so it picks up the handler installed by ``start(verbosity:)``).
    static var logger: Logger { Logger(label: "docver") }

    /// Runs `body` and logs how long it took, as `<phase> took 12.3 ms`.
    static func timed<T>(_ phase: String, _ body: () throws -> T) rethrows -> T {
        let clock = ContinuousClock()
        let start = clock.now
        defer { logger.debug("\(phase) took \(milliseconds(clock.now - start)) ms") }
        return try body()
    }

    static func milliseconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.1f", value)
    }
}

/// Writes each message as one line `docver: <level>: <message>` on stderr, the label coloured
/// when stderr is coloured. Below `critical` only with `-v`: the CLI's errors do not go
/// through here (they are `docver: error:` lines of their own).
struct StderrLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let style = OutputSettings.current.stderr
        let label = style.apply(.debug, "\(event.level.rawValue):")
        Terminal.writeError("docver: \(label) \(DocverError.printable(event.message.description))\n")
    }
}
