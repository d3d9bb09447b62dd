import ArgumentParser

/// "did you mean 'save'?" for a mistyped subcommand name; the argument parser already suggests
/// options, not subcommands.
enum CommandSuggestion {
    /// The global options that take a value (``GlobalOptions``): their value is no command.
    private static let optionsWithValue: Set<String> = ["-C", "--color"]

    /// The usage error for a mistyped subcommand in `arguments`, or nil when there is none
    /// (the argument parser then reports whatever is wrong).
    ///
    /// Only a word where a subcommand is expected counts: the commands with subcommands
    /// (`docver`, `agent`, `remote`, `kv`) take no other words there (`agent`'s default, `run`,
    /// takes no arguments).
    static func error(for arguments: [String]) -> String? {
        var command: any ParsableCommand.Type = Docver.self
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { return nil }
            if argument.hasPrefix("-") {
                if optionsWithValue.contains(argument) { index += 1 }
                continue
            }
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty else { return nil }
            if let next = subcommands.first(where: { names(of: $0).contains(argument) }) {
                command = next
                continue
            }
            guard let best = closest(to: argument, in: subcommands.flatMap(names(of:))) else { return nil }
            return "unknown command '\(argument)'; did you mean '\(best)'?"
        }
        return nil
    }

    private static func names(of command: any ParsableCommand.Type) -> [String] {
        [command._commandName] + command.configuration.aliases
    }

    /// The candidate at the smallest edit distance (a swap of neighbours counts one), if it is
    /// close: at most 2, and less than half the word; or one the word begins.
    static func closest(to word: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word, $0)) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        if let (best, score) = scored.first, score <= 2, score * 2 < max(word.count, 2) { return best }
        if word.count >= 2, let prefixed = candidates.filter({ $0.hasPrefix(word) }).sorted().first { return prefixed }
        return nil
    }

    /// The optimal-string-alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbouring characters.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
