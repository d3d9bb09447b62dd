import ArgumentParser
import DocverKit

extension Docver {
    struct Conflicts: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "List documents in conflict: current version, unresolved conflict versions and base.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Only this document.", completion: .custom(Completions.documents)) var document: String?

        func run(in container: Container) async throws {
            let path = try document.map(DocumentArguments(container, global).path)
            let conflicts = try container.conflicts(path)
            if output.json { return try Self.render(conflicts, of: path, json: true) }
            if let path, conflicts.isEmpty, try container.currentVersion(of: path) == nil {
                throw DocverError.noSuchDocument(path.path)
            }
            try Self.render(conflicts, of: path, json: false)
        }

        /// Prints `conflicts` (every one, or those of the document at `path`; also the
        /// shortcut's output: Shortcut.swift).
        static func render(_ conflicts: [Conflict], of path: DocumentPath?, json: Bool) throws {
            if json { return try Terminal.printJSON(conflicts.map(ConflictOutput.init)) }
            if conflicts.isEmpty {
                print(path.map { "\($0) is not in conflict" } ?? "no conflicts")
                return
            }
            // One width per column for the whole listing, so every line lines up.
            let columns = Terminal.VersionColumns(conflicts.flatMap { [$0.current] + $0.conflicts + [$0.base].compactMap { $0 } })
            for conflict in conflicts {
                print("\(conflict.document)")
                print("  " + Terminal.versionLine("current", conflict.current, columns: columns))
                for version in conflict.conflicts { print("  " + Terminal.versionLine("conflict", version, columns: columns)) }
                if let base = conflict.base { print("  " + Terminal.versionLine("base", base, columns: columns)) }
            }
            Terminal.hint(Advice.afterConflicts(conflicts.map(\.document)))
        }
    }
}
