import ArgumentParser
import DocverKit

extension Docver {
    struct Conflicts: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "List documents in conflict: current version, unresolved conflict versions and base.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Only this document.") var document: String?

        func run(in container: Container) async throws {
            let path = try document.map(DocumentArguments(container, global).path)
            let conflicts = try container.conflicts(path)
            if output.json { return try Terminal.printJSON(conflicts.map(ConflictOutput.init)) }
            if conflicts.isEmpty {
                print(path.map { "\($0) is not in conflict" } ?? "no conflicts")
                return
            }
            for conflict in conflicts {
                print("\(conflict.document)")
                print("  " + Terminal.versionLine("current", conflict.current))
                for version in conflict.conflicts { print("  " + Terminal.versionLine("conflict", version)) }
                if let base = conflict.base { print("  " + Terminal.versionLine("base", base)) }
            }
        }
    }
}
