import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Versions: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a document's current version, its conflict versions and its history.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The document.", completion: .custom(Completions.documents)) var document: String
        @Flag(help: "Also list conflict versions already marked resolved.") var all = false

        func run(in container: Container) async throws {
            try Self.render(document, in: container, from: global.url, all: all, json: output.json)
        }

        /// The command's work and output, shared with the shortcut (Shortcut.swift): `document`
        /// as typed in `directory`. `printing` is called once the output is certain, before its
        /// first line.
        static func render(
            _ document: String, in container: Container, from directory: URL, all: Bool, json: Bool,
            printing: () -> Void = {}
        ) throws {
            let path = try DocumentArguments(container, directory: directory).path(document)
            let versions = try container.versions(of: path, includingResolved: all)
            let (current, unresolved, resolved, history) =
                (versions.current, versions.unresolvedConflicts, versions.resolvedConflicts, versions.history)
            printing()
            if json {
                return try Terminal.printJSON(VersionsOutput(document: path, versions))
            }
            // The date and device columns are as wide as their widest entry: no name is cut, and
            // relative dates of different widths ("just now", "3 days ago") line up.
            let columns = Terminal.VersionColumns([current] + unresolved + resolved + history + versions.merged)
            print(Terminal.versionLine("current", current, columns: columns))
            for version in unresolved { print(Terminal.versionLine("conflict", version, columns: columns)) }
            for version in resolved { print(Terminal.versionLine("resolved", version, columns: columns)) }
            // The versions merges took in, among the history (in its order) by date.
            var merged = versions.merged[...]
            for version in history {
                while let next = merged.first, next.modified > version.modified {
                    print(Terminal.versionLine("merged", next, columns: columns))
                    merged = merged.dropFirst()
                }
                print(Terminal.versionLine("history", version, columns: columns))
            }
            for version in merged { print(Terminal.versionLine("merged", version, columns: columns)) }
        }
    }
}
