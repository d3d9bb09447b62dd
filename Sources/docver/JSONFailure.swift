import DocverKit
import Foundation
import Synchronization

/// Failures under `--json`: besides the `docver: error:` line on stderr, one JSON object on
/// stdout, `{"error": {"code", "exitCode", "message", "hint"}}` (docs/CLI.md, "Errors under
/// --json"; docs/schemas/error.schema.json), so that a program reading stdout learns why.
///
/// Not when the command already printed its JSON result (a sync that reached some remotes
/// and not others: that result lists them under `unreachable`), which stays the one object
/// on stdout; a stream (`watch`, `kv watch`, `agent run`) gets the error as its last line.
enum JSONFailure {
    private struct State {
        var requested = false
        var resultPrinted = false
        var streaming = false
    }

    private static let state = Mutex(State())

    /// `--json` was given (set while the arguments are parsed, or by the shortcut).
    static var requested: Bool {
        get { state.withLock { $0.requested } }
        set { state.withLock { $0.requested = newValue } }
    }

    /// Called by ``Terminal/printJSON(_:onOneLine:)`` for every result printed.
    static func notePrinted(onOneLine: Bool) {
        state.withLock {
            $0.resultPrinted = true
            $0.streaming = $0.streaming || onOneLine
        }
    }

    /// The `--json` arguments before a `--`, for failures of the parser itself (a usage
    /// error comes before any option is read).
    static func requested(in arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains("--json")
    }

    private struct Output: Encodable {
        let error: FailureOutput
    }

    /// Prints the failure as JSON on stdout, when `--json` was asked for and no JSON result
    /// stands on stdout already.
    static func print(code: String, exitCode: Int32, message: String, hint: String?) {
        let (requested, resultPrinted, streaming) = state.withLock { ($0.requested, $0.resultPrinted, $0.streaming) }
        guard requested, !resultPrinted || streaming else { return }
        let output = Output(error: FailureOutput(code: code, exitCode: exitCode, message: message, hint: hint))
        try? Terminal.printJSON(output, onOneLine: streaming)
        fflush(nil)
    }
}
