import ArgumentParser
import DocverKit

extension Docver {
    struct Conflicts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List documents in conflict: current version, unresolved conflict versions and base.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Only this document.") var document: String?

        func run() async throws {
            try await reportingErrors {
                let path = try document.map(DocumentPath.init)
                let conflicts = try global.container().conflicts(path)
                if output.json { return try Terminal.printJSON(conflicts.map(ConflictOutput.init)) }
                if conflicts.isEmpty {
                    print(path.map { "\($0) is not in conflict" } ?? "no conflicts")
                    return
                }
                for conflict in conflicts {
                    print("\(conflict.document)")
                    func line(_ role: String, _ version: DocumentVersion) {
                        let size = version.isDeletion ? "deleted" : Terminal.size(version.size)
                        print("  \(role.padding(toLength: 9, withPad: " ", startingAt: 0)) \(version.shortID)  \(Terminal.date(version.modified))  \(version.device.name)  \(size)")
                    }
                    line("current", conflict.current)
                    conflict.conflicts.forEach { line("conflict", $0) }
                    if let base = conflict.base { line("base", base) }
                }
            }
        }
    }
}
