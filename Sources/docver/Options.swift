import ArgumentParser
import DocverKit
import Foundation

// The option groups several subcommands share.

/// Options every subcommand accepts.
struct GlobalOptions: ParsableArguments {
    @Option(name: .customShort("C"), help: ArgumentHelp("Run as if docver was started in <path>.", valueName: "path"))
    var directory: String?
    @Option(name: .customLong("color"), help: ArgumentHelp("Colour: auto (on terminals; NO_COLOR turns it off), always or never.", valueName: "when"))
    var color: ColorChoice = .auto
    @Flag(name: .customLong("no-pager"), help: "Never page output (log, versions, diff).")
    var noPager = false
    @Flag(name: .shortAndLong, help: "Quiet: no hints, no progress, no warnings of no consequence (errors and results stay).")
    var quiet = false
    @Flag(name: .shortAndLong, help: "Print diagnostics on stderr (-vv: also transfer progress as trace lines).")
    var verbose: Int

    func validate() throws {
        if quiet && verbose > 0 { throw ValidationError("-q and -v do not go together") }
    }

    var url: URL {
        URL(fileURLWithPath: directory ?? FileManager.default.currentDirectoryPath)
    }

    /// The container, with repairs of what a killed process left behind reported as warnings.
    func container() throws -> Container {
        var container = try Container(at: url)
        container.onRepair = { Terminal.warning($0, ofConsequence: false) }
        Diagnostics.logger.debug("opened the container at \(container.root.path) as device '\(container.device.id)'")
        return container
    }

    /// A path given on the command line, relative to the working directory (after -C).
    func url(of path: String) -> URL {
        URL(fileURLWithPath: path, relativeTo: url).standardizedFileURL
    }

    /// A remote given as a relative path is made absolute against the working directory
    /// (after -C), so it keeps working from anywhere; URLs and scp-style addresses are kept.
    func remoteURL(_ given: String) -> String {
        let isURL = given.contains("://")
        let isScpLike = given.firstIndex(of: ":").map { colon in !given[..<colon].contains("/") } ?? false
        guard !isURL, !isScpLike, !given.hasPrefix("/") else { return given }
        return url(of: given).path
    }
}

/// Options of listings.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON (the stable contract documented in docs/CLI.md); a failure too.")
    var json = false

    // Parsing is where the command learns that its output is JSON; a failure anywhere after
    // it (in validation or in the run) is then reported as JSON as well.
    func validate() throws {
        if json { JSONFailure.requested = true }
    }
}

/// The query flags shared by `ls` and `watch`.
struct QueryOptions: ParsableArguments {
    @Option(help: "Only documents whose path or name matches this glob (e.g. '*.txt', 'notes/*').") var glob: String?
    @Option(name: .customLong("type"), help: "Only documents of this type (extension); repeatable.") var types: [String] = []
    @Flag(help: "Only documents with unresolved conflicts.") var inConflict = false
    @Option(help: "Only documents saved at or after this date (2026-11-01: local midnight; 2026-11-01T09:30, local; 2026-11-01T09:30:00Z).")
    var modifiedSince: String?
    @Option(help: "Only documents whose current version was saved by this device id.") var savedBy: String?
    @Option(help: "Only documents in this download status: notDownloaded (evicted), downloaded or current.")
    var downloadStatus: DownloadStatus?
    @Option(help: "Sort by path, name, modified, size or type.") var sort: DocumentQuery.SortKey = .path
    @Flag(help: "Sort in descending order.") var reverse = false

    func validate() throws {
        _ = try modifiedSinceDate()
    }

    func query() throws -> DocumentQuery {
        DocumentQuery(
            glob: glob, types: Set(types), hasUnresolvedConflicts: inConflict ? true : nil,
            modifiedSince: try modifiedSinceDate(), savedBy: savedBy, downloadStatus: downloadStatus,
            sortKey: sort, descending: reverse)
    }

    private func modifiedSinceDate() throws -> Date? {
        guard let modifiedSince else { return nil }
        guard let date = DateInput.parse(modifiedSince) else {
            throw ValidationError("--modified-since needs an ISO 8601 date such as 2026-11-01, 2026-11-01T09:30 or 2026-11-01T09:30:00Z")
        }
        return date
    }
}

extension DocumentQuery.SortKey: ExpressibleByArgument {}
extension DownloadStatus: ExpressibleByArgument {}
