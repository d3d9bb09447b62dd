import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Log: AsyncParsableCommand {
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
        }

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        }

        func run() async throws {
            try await reportingErrors {
                let path = try document.map(DocumentPath.init)
                let entries = try global.container().log(of: path, limit: limit)
                if output.json {
                    try Terminal.printJSON(entries.map {
                        JSON(id: $0.id, kind: $0.kind.rawValue, device: $0.device.id, deviceName: $0.device.name,
                             date: $0.date, subject: $0.subject, changes: $0.changes.map(ChangeOutput.init),
                             conflicts: $0.conflicts)
                    })
                    return
                }
                for entry in entries {
                    print("\(entry.id.prefix(12))  \(Terminal.date(entry.date))  \(entry.device.name)  \(entry.subject)")
                }
            }
        }
    }
}
