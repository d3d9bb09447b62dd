import ArgumentParser
import DocverKit

extension Docver {
    struct MarkResolved: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark conflict versions resolved (all of the document's when none are named). One-way.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The document.") var document: String
        @Argument(help: "Conflict versions to mark resolved.") var versions: [String] = []

        func run(in container: Container) async throws {
            let path = try DocumentPath(document)
            let result = try container.markResolved(path, versions: versions)
            print("\(path): marked resolved (save \(Terminal.shortID(result.id)))")
        }
    }
}
