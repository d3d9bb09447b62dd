import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Log: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show saves, integrations and resolutions, newest first.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Only entries that changed or concern this document.") var document: String?
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
            let path = try document.map(DocumentArguments(container, global).path)
            if let path, try container.currentVersion(of: path) == nil, try container.conflicts(path).isEmpty {
                throw DocverError.noSuchDocument(path.path)
            }
            if output.json { return try Terminal.printJSON(container.log(of: path, limit: limit).map(JSON.init)) }
            // Each line as soon as its entry is found: `docver log | head -1` costs one entry.
            try container.log(of: path, limit: limit) { entry in
                print("\(Terminal.shortID(entry.id))  \(Terminal.date(entry.date))  \(entry.device.name)  \(entry.subject)")
                fflush(nil)
            }
        }
    }
}
