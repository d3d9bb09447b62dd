/// git's `log -<n>` (`docver log -3` for `docver log -n 3`) and `-n<n>`, which
/// swift-argument-parser cannot declare: the arguments are rewritten before parsing.
enum LogCount {
    /// `arguments` (without the program name) with each `-<digits>` after the `log` subcommand
    /// and before `--` (and each `-n<digits>`) replaced by `-n <digits>`. Other commands'
    /// arguments are left alone.
    static func expanding(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        // Up to the subcommand: global options (`-C <path>` takes a value).
        while index < arguments.count, arguments[index].hasPrefix("-") {
            result.append(arguments[index])
            if arguments[index] == "-C", index + 1 < arguments.count { result.append(arguments[index + 1]); index += 1 }
            index += 1
        }
        guard index < arguments.count, arguments[index] == "log" else { return arguments }
        result.append(arguments[index])
        index += 1
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { result += arguments[index...]; break }
            let takesValue = ["-n", "--limit", "-C"].contains(result.last ?? "")
            let count = argument.hasPrefix("-n") ? argument.dropFirst(2) : argument.dropFirst()
            if !takesValue, argument.first == "-", !count.isEmpty, count.allSatisfy({ $0.isASCII && $0.isNumber }) {
                result += ["-n", String(count)]
            } else {
                result.append(argument)
            }
            index += 1
        }
        return result
    }
}
