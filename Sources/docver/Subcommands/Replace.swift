import ArgumentParser
import DocverKit

extension Docver {
    struct Replace: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a version's contents current, as a new save (like NSFileVersion's replaceItemAtURL).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The document.", completion: .custom(Completions.documents)) var document: String
        @Argument(
            help: "The version whose contents become current: an id prefix, @-N (docs/CLI.md, \"Versions\").",
            completion: .custom(Completions.versions))
        var version: String?
        @OptionGroup var date: AtOption

        func validate() throws {
            try date.refuse(alongside: version)
            if version == nil && date.at == nil { throw ValidationError("name the version, or pass --at DATE") }
        }

        func run(in container: Container) async throws {
            let arguments = DocumentArguments(container, global)
            let (path, specifier) = try arguments.version(of: document, version, at: date.at, command: "replace")
            let found = try arguments.find(specifier ?? .current, of: path)
            let result = try container.replace(path, with: found.id)
            if output.json { return try Terminal.printJSON(DocumentSaveOutput(path, result)) }
            print("\(path): version \(found.shortID) is now current (save \(Terminal.shortID(result.id)))")
            if !((try? container.unresolvedConflictVersions(of: path)) ?? []).isEmpty {
                Terminal.hint(
                    "the conflict versions stay open; when this is the version to keep: docver mark-resolved "
                        + arguments.typed(path))
            }
        }
    }
}
