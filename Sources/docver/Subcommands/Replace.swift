import ArgumentParser
import DocverKit

extension Docver {
    struct Replace: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a version's contents current, as a new save (like NSFileVersion's replaceItemAtURL).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The document.") var document: String
        @Argument(help: "The version whose contents become current.") var version: String

        func run(in container: Container) async throws {
            let path = try DocumentPath(document)
            let result = try container.replace(path, with: version)
            if output.json { return try Terminal.printJSON(DocumentSaveOutput(path, result)) }
            print("\(path): version \(version) is now current (save \(Terminal.shortID(result.id)))")
        }
    }
}
