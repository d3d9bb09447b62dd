import ArgumentParser
import DocverKit

extension Docver {
    struct MarkResolved: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark conflict versions resolved (all of the document's when none are named). One-way.",
            discussion: """
                Refused while the document still contains conflict markers (as 'resolve --strategy merge \
                --markers' leaves them): edit them away and save first, or pass --force.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The document.", completion: .custom(Completions.documents)) var document: String
        @Argument(help: "Conflict versions to mark resolved.", completion: .custom(Completions.conflictVersions))
        var versions: [String] = []
        @Flag(help: "Mark resolved even if the document still contains conflict markers.") var force = false

        func run(in container: Container) async throws {
            let arguments = DocumentArguments(container, global)
            // `mark-resolved VERSION DOC`, the order of other commands in earlier versions, is
            // followed with a hint when it cannot mean anything else.
            var path: DocumentPath
            var specifiers: [VersionSpecifier]
            if versions.count == 1, let swapped = try arguments.swapped(document, versions[0]) {
                Terminal.hint(
                    "the document comes before the version: docver mark-resolved \(Terminal.shellWord(versions[0])) \(Terminal.shellWord(document))")
                (path, specifiers) = (swapped.0, [swapped.1])
            } else {
                path = try arguments.path(document)
                specifiers = try versions.map { try VersionSpecifier($0) }
            }
            // Version ids go through as given (the library says which are not conflict versions);
            // @-N and @{DATE} are looked up first.
            let ids = try specifiers.map { specifier -> String in
                guard case let .id(given) = specifier else { return try arguments.find(specifier, of: path).id }
                return given
            }
            let result = try container.markResolved(path, versions: ids, force: force)
            if output.json { return try Terminal.printJSON(DocumentSaveOutput(path, result)) }
            print("\(path): marked resolved (save \(Terminal.shortID(result.id)))")
        }
    }
}
