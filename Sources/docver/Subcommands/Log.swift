import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Log: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show saves, integrations and resolutions, newest first.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Only entries that changed or concern this document.", completion: .custom(Completions.documents))
        var document: String?
        @Option(name: [.customShort("n"), .long], help: "Show at most this many entries.") var limit: Int?

        struct JSON: Encodable {
            let id: String
            let kind: String
            let device: String
            let deviceName: String
            let date: Date
            let subject: String
            let changes: [ChangeOutput]
            let conflicts: Int

            init(_ entry: LogEntry) {
                id = entry.id
                kind = entry.kind.rawValue
                device = entry.device.id
                deviceName = entry.device.name
                date = entry.date
                subject = entry.subject
                changes = entry.changes.map(ChangeOutput.init)
                conflicts = entry.conflicts
            }
        }

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        }

        func run(in container: Container) async throws {
            try Self.render(document, in: container, from: global.url, limit: limit, json: output.json)
        }

        /// The command's work and output, shared with the shortcut (Shortcut.swift): `document`
        /// as typed in `directory`. `printing` is called once the output is certain, before its
        /// first line (a log with no entry prints none).
        static func render(
            _ document: String?, in container: Container, from directory: URL, limit: Int?, json: Bool,
            printing: () -> Void = {}
        ) throws {
            let path = try document.map(DocumentArguments(container, directory: directory).path)
            // A document must exist; it is checked in the repository the log reads.
            func log(_ body: (LogEntry) throws -> Void) throws {
                if let path { try container.log(ofExisting: path, limit: limit, each: body) } else { try container.log(limit: limit, each: body) }
            }
            func entries() throws -> [LogEntry] {
                var result: [LogEntry] = []
                try log { result.append($0) }
                return result
            }
            if json {
                let entries = try entries()
                printing()
                return try Terminal.printJSON(entries.map(JSON.init))
            }
            guard OutputSettings.current.relativeDates else {
                // In a pipe, each line as soon as its entry is found: `docver log | head -1`
                // costs one entry (dates are ISO 8601 there, all of one width).
                var first = true
                try log { entry in
                    if first { printing() }
                    first = false
                    print(Self.line(entry, dateWidth: 0, deviceWidth: 0))
                    fflush(nil)
                }
                return
            }
            // On a terminal the date and device columns line up, as in versions and conflicts:
            // relative dates and device names differ in width, so the widths are taken first.
            let entries = try entries()
            if !entries.isEmpty { printing() }
            let dateWidth = entries.map { Terminal.date($0.date).count }.max() ?? 0
            let deviceWidth = entries.map(\.device.name.count).max() ?? 0
            for entry in entries { print(Self.line(entry, dateWidth: dateWidth, deviceWidth: deviceWidth)) }
        }

        /// `d698bf6d4880  2026-11-22T03:58:01+00:00  Alice's Laptop  Save list.txt`, the date and
        /// device padded to the widths given.
        static func line(_ entry: LogEntry, dateWidth: Int, deviceWidth: Int) -> String {
            let date = Terminal.date(entry.date), device = entry.device.name
            return "\(Terminal.shortID(entry.id))  \(date.padded(to: max(dateWidth, date.count)))  "
                + "\(device.padded(to: max(deviceWidth, device.count)))  \(entry.subject)"
        }
    }
}
