import ArgumentParser
import DocverKit
import Foundation

/// The query flags shared by `ls` and `watch`.
struct QueryOptions: ParsableArguments {
    @Option(help: "Only documents whose path or name matches this glob (e.g. '*.txt', 'notes/*').") var glob: String?
    @Option(name: .customLong("type"), help: "Only documents of this type (extension); repeatable.") var types: [String] = []
    @Flag(help: "Only documents with unresolved conflicts.") var inConflict = false
    @Option(help: "Only documents saved at or after this ISO-8601 date (e.g. 2026-11-01T00:00:00Z).") var modifiedSince: String?
    @Option(help: "Only documents whose current version was saved by this device id.") var savedBy: String?
    @Option(help: "Sort by path, name, modified, size or type.") var sort: DocumentQuery.SortKey = .path
    @Flag(help: "Sort in descending order.") var reverse = false

    func validate() throws {
        if let modifiedSince, ISO8601DateFormatter().date(from: modifiedSince) == nil {
            throw ValidationError("--modified-since needs an ISO-8601 date such as 2026-11-01T00:00:00Z")
        }
    }

    func query() throws -> DocumentQuery {
        var since: Date?
        if let modifiedSince {
            guard let date = ISO8601DateFormatter().date(from: modifiedSince) else {
                throw ValidationError("--modified-since needs an ISO-8601 date such as 2026-11-01T00:00:00Z")
            }
            since = date
        }
        return DocumentQuery(glob: glob, types: Set(types), hasUnresolvedConflicts: inConflict ? true : nil,
                             modifiedSince: since, savedBy: savedBy, sortKey: sort, descending: reverse)
    }
}

extension DocumentQuery.SortKey: ExpressibleByArgument {}

/// One document in `ls --json` and `watch --json`.
struct ItemOutput: Encodable, Equatable {
    let document: String
    let name: String
    let displayName: String
    let type: String
    let kind: String
    let size: Int64
    let created: Date
    let modified: Date
    let device: String
    let deviceName: String
    let version: String
    let hasUnresolvedConflicts: Bool
    let uploaded: Bool
    let hasRemoteChanges: Bool

    init(_ item: MetadataItem) {
        document = item.path.path
        name = item.name
        displayName = item.displayName
        type = item.type
        kind = item.kind.rawValue
        size = item.size
        created = item.created
        modified = item.contentChanged
        device = item.device.id
        deviceName = item.device.name
        version = item.version
        hasUnresolvedConflicts = item.hasUnresolvedConflicts
        uploaded = item.syncStatus.isUploaded
        hasRemoteChanges = item.syncStatus.hasRemoteChanges
    }

    var line: String {
        let flag = hasUnresolvedConflicts ? "!" : " "
        let size = Terminal.size(size).padding(toLength: 10, withPad: " ", startingAt: 0)
        return "\(flag) \(kind.padding(toLength: 7, withPad: " ", startingAt: 0)) \(size) \(Terminal.date(modified))  \(deviceName)  \(document)"
    }
}

extension Docver {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls",
            abstract: "List saved documents with type, kind, size, modification date and last saving device.",
            discussion: "A '!' marks documents with unresolved conflicts.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var filter: QueryOptions

        func run() async throws {
            try await reportingErrors {
                let items = try global.container().query(filter.query()).map(ItemOutput.init)
                if output.json { return try Terminal.printJSON(items) }
                items.forEach { print($0.line) }
            }
        }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the query's results, then again each time they change (until interrupted).",
            discussion: "With --json, one object per line: {\"event\": \"initial\" or \"update\", \"items\": [...]}.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var filter: QueryOptions
        @Option(help: "Seconds between checks for changes.") var interval: Double = 1
        @Option(help: "Stop after this many updates (after the initial results).") var updates: Int?

        struct Line: Encodable {
            let event: String
            let items: [ItemOutput]
        }

        func validate() throws {
            if interval <= 0 { throw ValidationError("--interval must be positive") }
        }

        func run() async throws {
            try await reportingErrors {
                let stream = try global.container().liveQuery(filter.query(), pollInterval: .milliseconds(Int(interval * 1000)))
                var count = -1
                for try await results in stream {
                    count += 1
                    let items = results.map(ItemOutput.init)
                    if output.json {
                        let encoder = JSONEncoder()
                        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                        encoder.dateEncodingStrategy = Terminal.iso8601Strategy
                        print(String(decoding: try encoder.encode(Line(event: count == 0 ? "initial" : "update", items: items)), as: UTF8.self))
                    } else {
                        print(count == 0 ? "== \(items.count) documents" : "== update: \(items.count) documents")
                        items.forEach { print($0.line) }
                    }
                    fflush(nil)
                    if let updates, count >= updates { return }
                }
            }
        }
    }
}
