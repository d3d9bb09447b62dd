import ArgumentParser
import DocverKit

extension Docver {
    struct RemoveOtherVersions: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove every conflict version of a document, resolved or not; the current version and history stay.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The document.") var document: String

        func run(in container: Container) async throws {
            let path = try DocumentPath(document)
            let result = try container.removeOtherVersions(of: path)
            print("\(path): other versions removed (save \(Terminal.shortID(result.id)))")
        }
    }
}
