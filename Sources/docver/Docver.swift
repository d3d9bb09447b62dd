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
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    static func parseDocument(_ name: String) throws -> DocumentPath {
        try DocumentPath(name)
    }

    static let dateFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return formatter
    }()

    static func date(_ date: Date) -> String { dateFormatter.string(from: date) }

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
        ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
    }
}
