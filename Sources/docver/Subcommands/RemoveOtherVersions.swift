import ArgumentParser
import DocverKit

extension Docver {
    struct RemoveOtherVersions: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove every conflict version of a document, resolved or not; the current version and history stay.",
            discussion: """
                Unresolved versions are marked resolved first, so, like mark-resolved, it is refused while \
                the document still contains conflict markers, unless --force.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The document.", completion: .custom(Completions.documents)) var document: String
        @Flag(help: "Mark unresolved versions resolved even if the document still contains conflict markers.")
        var force = false

        func run(in container: Container) async throws {
            let path = try DocumentArguments(container, global).path(document)
            let result = try container.removeOtherVersions(of: path, force: force)
            if output.json { return try Terminal.printJSON(DocumentSaveOutput(path, result)) }
            print("\(path): other versions removed (save \(Terminal.shortID(result.id)))")
        }
    }
}
