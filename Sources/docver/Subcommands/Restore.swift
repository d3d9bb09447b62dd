import ArgumentParser
import DocverKit

extension Docver {
    struct Restore: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an old version current again, as a new save (unsaved edits are saved first).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The document.") var document: String
        @Argument(help: "The version to restore.") var version: String

        func run(in container: Container) async throws {
            let path = try DocumentPath(document)
            let result = try container.restore(path, to: version)
            if output.json { return try Terminal.printJSON(DocumentSaveOutput(path, result)) }
            print("restored \(path) as save \(Terminal.shortID(result.id))")
        }
    }
}
