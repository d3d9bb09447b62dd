import ArgumentParser
import DocverKit

extension Docver {
    struct Replace: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a version's contents current, as a new save (like NSFileVersion's replaceItemAtURL).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The document.") var document: String
        @Argument(help: "The version whose contents become current.") var version: String

        func run() async throws {
            try await reportingErrors {
                let path = try DocumentPath(document)
                let result = try global.container().replace(path, with: version)
                print("\(path): version \(version) is now current (save \(result.id.prefix(12)))")
            }
        }
    }

    struct MarkResolved: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark conflict versions resolved (all of the document's when none are named). One-way.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The document.") var document: String
        @Argument(help: "Conflict versions to mark resolved.") var versions: [String] = []

        func run() async throws {
            try await reportingErrors {
                let path = try DocumentPath(document)
                let result = try global.container().markResolved(path, versions: versions)
                print("\(path): marked resolved (save \(result.id.prefix(12)))")
            }
        }
    }

    struct RemoveOtherVersions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove every conflict version of a document, resolved or not; the current version and history stay.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The document.") var document: String

        func run() async throws {
            try await reportingErrors {
                let path = try DocumentPath(document)
                let result = try global.container().removeOtherVersions(of: path)
                print("\(path): other versions removed (save \(result.id.prefix(12)))")
            }
        }
    }
}
