import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Versions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a document's current version, its conflict versions and its history.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The document.") var document: String
        @Flag(help: "Also list conflict versions already marked resolved.") var all = false

        struct JSON: Encodable {
            let document: String
            let current: VersionOutput?
            let conflicts: [VersionOutput]
            let history: [VersionOutput]

            func encode(to encoder: Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(document, forKey: .document)
                try container.encode(current, forKey: .current)
                try container.encode(conflicts, forKey: .conflicts)
                try container.encode(history, forKey: .history)
            }
            enum CodingKeys: String, CodingKey { case document, current, conflicts, history }
        }

        func run() async throws {
            try await reportingErrors {
                let path = try DocumentPath(document)
                let container = try global.container()
                guard let current = try container.currentVersion(of: path) else { throw DocverError.noSuchDocument(path.path) }
                let unresolved = try container.unresolvedConflictVersions(of: path).map { VersionOutput($0, conflict: true) }
                let resolved = all ? try container.resolvedConflictVersions(of: path).map { VersionOutput($0, conflict: true, resolved: true) } : []
                let history = try container.history(of: path).map { VersionOutput($0) }
                let result = JSON(document: path.path, current: VersionOutput(current), conflicts: unresolved + resolved, history: history)
                if output.json {
                    try Terminal.printJSON(result)
                    return
                }
                func line(_ role: String, _ version: VersionOutput) {
                    let size = version.deleted ? "deleted" : Terminal.size(version.size)
                    print("\(role.padding(toLength: 9, withPad: " ", startingAt: 0)) \(version.id.prefix(12))  \(Terminal.date(version.modified))  \(version.deviceName.padding(toLength: 16, withPad: " ", startingAt: 0))  \(size)")
                }
                line("current", VersionOutput(current))
                for version in result.conflicts { line(version.resolved ? "resolved" : "conflict", version) }
                for version in history { line("history", version) }
            }
        }
    }
}
