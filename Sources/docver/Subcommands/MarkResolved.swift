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
        @Argument(help: "The document.", completion: .custom(Completions.documents)) var document: String
        @Argument(help: "Conflict versions to mark resolved.", completion: .custom(Completions.versions)) var versions: [String] = []
        @Flag(help: "Mark resolved even if the document still contains conflict markers.") var force = false

        func run(in container: Container) async throws {
            let path = try DocumentPath(document)
            let result = try container.markResolved(path, versions: versions, force: force)
            print("\(path): marked resolved (save \(Terminal.shortID(result.id)))")
        }
    }
}
