import DocverKit
import Foundation
import Synchronization

/// Draws the library's transfer progress on stderr, as git does: one line per fetch or push,
/// redrawn in place at most 10 times a second, ended by a final line with `done.`
///
/// Drawn only when stderr is a terminal and `-q` is not given (``OutputSettings/progress``);
/// with `-v` each finished transfer is also logged as a debug line, terminal or not, and with
/// `-vv` the progress itself as trace lines (at the same rate).
final class ProgressRenderer: Sendable {
    private struct State {
        var current: TransferProgress?
        var started = ContinuousClock.now
        var lastReported = ContinuousClock.now
        var lastDrawn: ContinuousClock.Instant?
        var drawnWidth = 0
        /// The transfer whose line was just ended: libgit2 may repeat its last report.
        var completed: TransferProgress?
    }

    private let state = Mutex(State())
    private let draws: Bool
    private let logs: Bool
    private let interval = Duration.milliseconds(100)

    init(settings: OutputSettings = .current) {
        draws = settings.progress
        logs = settings.verbosity > 0
    }

    /// The handler to pass to the library; nil when nothing would be drawn or logged, so a
    /// transfer in a pipe costs no callback at all.
    var handler: TransferProgressHandler? {
        guard draws || logs else { return nil }
        return { [self] progress in report(progress) }
    }

    func report(_ progress: TransferProgress) {
        // A push with nothing to send (the remote has every object) reports 0 of 0: not news.
        if progress.direction == .push && progress.totalObjects == 0 { return }
        state.withLock { state in
            if progress == state.completed { return }
            let now = ContinuousClock.now
            if let current = state.current, current.remote != progress.remote || current.direction != progress.direction {
                end(&state)
            }
            if state.current == nil {
                state.started = now
                state.lastDrawn = nil
                state.completed = nil
                Diagnostics.logger.debug("\(progress.direction == .fetch ? "receiving from" : "sending to") '\(progress.remote)'")
            }
            state.current = progress
            state.lastReported = now
            if progress.isComplete {
                // The transfer is done: its final line now, not after the integration that follows.
                end(&state)
                state.completed = progress
            } else if state.lastDrawn.map({ now - $0 >= interval }) ?? true {
                if draws { draw(&state, final: false) } else { state.lastDrawn = now }
                Diagnostics.logger.trace("\(Self.line(progress, elapsed: now - state.started, final: false))")
            }
        }
    }

    /// Ends the line of the transfer in progress (after the library call returned or failed).
    func finish() {
        state.withLock { end(&$0) }
    }

    private func end(_ state: inout State) {
        guard let progress = state.current else { return }
        if draws { draw(&state, final: true) }
        Diagnostics.logger.debug("\(Self.line(progress, elapsed: state.lastReported - state.started, final: true))")
        state.current = nil
        state.drawnWidth = 0
    }

    /// Rates count to the last report, so a final line drawn later (after a failure, say)
    /// shows the transfer's rate, not the time since.
    private func draw(_ state: inout State, final: Bool) {
        guard let progress = state.current else { return }
        let line = Self.line(progress, elapsed: state.lastReported - state.started, final: final)
        let padding = String(repeating: " ", count: max(0, state.drawnWidth - line.count))
        Terminal.writeError("\r" + line + padding + (final ? "\n" : ""))
        state.drawnWidth = line.count
        state.lastDrawn = state.lastReported
    }

    /// `receiving from origin: 45% (450/1,000 objects), 1.2 MB | 3.4 MB/s`, and `, done.` at the end.
    static func line(_ progress: TransferProgress, elapsed: Duration, final: Bool) -> String {
        let verb = progress.direction == .fetch ? "receiving from" : "sending to"
        let total = max(progress.totalObjects, progress.objects)
        let percent = total == 0 ? 100 : progress.objects * 100 / total
        var text = "\(verb) \(progress.remote): \(percent)% (\(Terminal.grouped(progress.objects))/\(Terminal.grouped(total)) objects)"
        if progress.direction == .fetch, progress.objects == total, progress.indexedObjects < total {
            text += ", indexing \(Terminal.grouped(progress.indexedObjects))/\(Terminal.grouped(total))"
        }
        // A push to a local repository has no byte count until it is done (TransferProgress.bytes).
        guard progress.direction == .fetch || progress.bytes > 0 else { return final ? text + ", done." : text }
        text += ", \(Terminal.size(Int64(progress.bytes)))"
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if seconds > 0.05 {
            text += " | \(Terminal.size(Int64(Double(progress.bytes) / seconds)))/s"
        }
        return final ? text + ", done." : text
    }
}
