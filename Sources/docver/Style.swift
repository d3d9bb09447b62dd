import ArgumentParser
import Foundation

/// `--color=auto|always|never`.
enum ColorChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case auto, always, never
}

/// Colours and text attributes of the CLI's output, as ANSI SGR sequences.
///
/// One value per stream: stdout is coloured when it is a terminal (or `--color=always`),
/// stderr when stderr is a terminal. A disabled style returns text unchanged, so callers style
/// unconditionally and a pipe never sees an escape sequence.
struct Style: Sendable, Equatable {
    /// What a piece of text is; each role has one look everywhere.
    enum Role: Sendable {
        case error, warning, hint, debug
        /// A version id or save id.
        case id
        /// The `!` of a document with unresolved conflicts.
        case conflictMarker
        /// Version roles in `versions` and `conflicts`.
        case current, conflict, resolved, history, base
        /// Unified diff lines.
        case diffFileHeader, diffHunkHeader, diffAdded, diffRemoved
        /// Dates and other secondary columns.
        case dim

        var sgr: String {
            switch self {
            case .error, .conflictMarker, .conflict, .diffRemoved: "31"  // red
            case .warning, .id: "33"  // yellow
            case .hint, .base, .diffHunkHeader: "36"  // cyan
            case .current, .diffAdded: "32"  // green
            case .debug, .resolved, .history, .dim: "2"  // faint
            case .diffFileHeader: "1"  // bold
            }
        }

        /// Labels are bold as well, as git's `error:` and `hint:` are.
        var isLabel: Bool { [.error, .warning, .hint, .debug].contains(self) }
    }

    var enabled: Bool

    static let plain = Style(enabled: false)

    /// `text` in the role's colour, or unchanged when colour is off (or the text is empty).
    func apply(_ role: Role, _ text: String) -> String {
        guard enabled, !text.isEmpty else { return text }
        let code = role.isLabel && role != .debug ? "1;" + role.sgr : role.sgr
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }

    /// One line of a unified diff, coloured by its first characters: file headers (`diff`,
    /// `---`, `+++`, `index`), hunk headers (`@@`), added and removed lines; context unchanged.
    func diff(_ line: String) -> String {
        if line.hasPrefix("+++") || line.hasPrefix("---") || line.hasPrefix("diff ") || line.hasPrefix("index ") {
            return apply(.diffFileHeader, line)
        }
        if line.hasPrefix("@@") { return apply(.diffHunkHeader, line) }
        if line.hasPrefix("+") { return apply(.diffAdded, line) }
        if line.hasPrefix("-") { return apply(.diffRemoved, line) }
        return line
    }

    /// A whole unified diff, line by line (the line ends kept as they are).
    func diff(text: String) -> String {
        guard enabled else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { diff(String($0)) }.joined(separator: "\n")
    }

    /// Whether a stream gets colour: `--color` first; then `NO_COLOR` (any non-empty value)
    /// turns it off; then `auto` colours a terminal whose `TERM` is set and not `dumb`.
    static func decide(_ choice: ColorChoice, isTerminal: Bool, environment: [String: String]) -> Bool {
        switch choice {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
            guard isTerminal, let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
            return true
        }
    }
}
