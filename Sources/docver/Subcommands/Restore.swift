import ArgumentParser
import DocverKit

extension Docver {
    struct Restore: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an old version current again, as a new save (unsaved edits are saved first).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The document.", completion: .custom(Completions.documents)) var document: String
        @Argument(help: "The version to restore: an id prefix, @-N (docs/CLI.md, \"Versions\").", completion: .custom(Completions.versions))
        var version: String?
        @OptionGroup var date: AtOption

        func validate() throws {
            try date.refuse(alongside: version)
            if version == nil && date.at == nil { throw ValidationError("name the version to restore, or pass --at DATE") }
        }

        func run(in container: Container) async throws {
            let arguments = DocumentArguments(container, global)
            let (path, specifier) = try arguments.version(of: document, version, at: date.at, command: "restore")
            let found = try arguments.find(specifier ?? .current, of: path)
            let result = try container.restore(path, to: found.id)
            if output.json { return try Terminal.printJSON(DocumentSaveOutput(path, result)) }
            print("restored \(path) as save \(Terminal.shortID(result.id))")
        }
    }
}
