import ArgumentParser
import DocverKit
import Foundation

@main
struct Docver: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docver",
        abstract: "Keep documents on many devices without ever losing a version.",
        discussion: """
        A container is a git repository; every save is a commit on this device's own branch.
        Exit codes: 0 success, 1 the operation failed (one line on stderr), 64 usage error.
        """,
        version: docverVersion,
        subcommands: [
            Init.self, Save.self, Status.self, List.self, Log.self, Versions.self, Show.self, Restore.self,
            RemoteCommand.self, Clone.self, Sync.self, Conflicts.self, Resolve.self, Replace.self, MarkResolved.self,
            RemoveOtherVersions.self, Diff.self, Watch.self, Integrate.self,
        ]
    )

    // Accepted before the subcommand (`docver -C PATH save`), as git does.
    @OptionGroup var global: GlobalOptions
}

let docverVersion = "0.1.0"

/// Options every subcommand accepts.
struct GlobalOptions: ParsableArguments {
    @Option(name: .customShort("C"), help: ArgumentHelp("Run as if docver was started in <path>.", valueName: "path"))
    var directory: String?

    var url: URL {
        URL(fileURLWithPath: directory ?? FileManager.default.currentDirectoryPath)
    }

    func container() throws -> Container { try Container(at: url) }

    /// A remote given as a relative path is made absolute against the working directory
    /// (after -C), so it keeps working from anywhere; URLs and scp-style addresses are kept.
    func remoteURL(_ given: String) -> String {
        let isURL = given.contains("://")
        let isScpLike = given.firstIndex(of: ":").map { colon in !given[..<colon].contains("/") } ?? false
        guard !isURL, !isScpLike, !given.hasPrefix("/") else { return given }
        return URL(fileURLWithPath: given, relativeTo: url).standardizedFileURL.path
    }
}

/// Options of listings.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON (the stable contract documented in docs/CLI.md).")
    var json = false
}

extension AsyncParsableCommand {
    /// Runs a command body, rendering library errors as one line on stderr and exit code 1.
    func reportingErrors(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as DocverError {
            Terminal.error(error.description, hint: error.hint)
            throw ExitCode.failure
        } catch let error as GitError {
            Terminal.error(error.message, hint: nil)
            throw ExitCode.failure
        } catch let error as ExitCode {
            throw error
        } catch let error as ValidationError {
            throw error
        } catch {
            // Anything else (a file-system error, say) still gets the documented one-line form.
            Terminal.error(DocverError.printable(error.localizedDescription), hint: nil)
            throw ExitCode.failure
        }
    }
}

enum Terminal {
    static func error(_ message: String, hint: String?) {
        var line = "docver: error: \(message)\n"
        if let hint { line += "hint: \(hint)\n" }
        FileHandle.standardError.write(Data(line.utf8))
    }

    static func warning(_ message: String) {
        FileHandle.standardError.write(Data("docver: warning: \(message)\n".utf8))
    }

    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = Terminal.iso8601Strategy
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    static func parseDocument(_ name: String) throws -> DocumentPath {
        try DocumentPath(name)
    }

    // Dates and sizes are formatted by hand: Foundation's formatters load ICU, which costs
    // more than the rest of a listing (measured with perf on 100 conflicts).

    /// Local time as `yyyy-MM-dd HH:mm:ss`.
    static func date(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        localtime_r(&seconds, &parts)
        return format(parts, utc: false)
    }

    /// UTC as ISO 8601, `yyyy-MM-ddTHH:mm:ssZ`: the JSON contract's date format.
    static func iso8601(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return format(parts, utc: true)
    }

    private static func format(_ parts: tm, utc: Bool) -> String {
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
        let time = "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        return utc ? day + "T" + time + "Z" : day + " " + time
    }

    static let iso8601Strategy = JSONEncoder.DateEncodingStrategy.custom { date, encoder in
        var container = encoder.singleValueContainer()
        try container.encode(iso8601(date))
    }

    /// "2 hours ago", for people choosing between versions.
    static func relative(_ date: Date, now: Date = Date()) -> String {
        let seconds = Int(now.timeIntervalSince(date))
        if seconds < 60 { return "just now" }
        for (unit, size) in [("day", 86_400), ("hour", 3_600), ("minute", 60)] where seconds >= size {
            let count = seconds / size
            return "\(count) \(unit)\(count == 1 ? "" : "s") ago"
        }
        return "just now"
    }

    static func size(_ bytes: Int64) -> String {
        if bytes < 1000 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(bytes) / 1000
        var unit = 0
        while value >= 999.95 && unit < units.count - 1 { value /= 1000; unit += 1 }
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 || value >= 100 ? "\(Int(value.rounded())) \(units[unit])" : "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
