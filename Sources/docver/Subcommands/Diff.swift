import ArgumentParser
import DocverKit

extension Docver {
    struct Diff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a unified diff between two versions, a version and the current one, or a version and the base.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The first version.") var first: String
        @Argument(help: "The second version (default: the current version).") var second: String?
        @Flag(help: "Compare the version with the base of the document's conflict instead.") var base = false
        @Option(name: [.customShort("d"), .long], help: "The document, when a save recorded several.") var document: String?

        func validate() throws {
            if base && second != nil { throw ValidationError("--base compares one version with the base; give one version") }
        }

        func run() async throws {
            try await reportingErrors {
                let container = try global.container()
                let path = try document.map(DocumentPath.init)
                let a = try container.version(first, of: path)
                let b: DocumentVersion
                if base {
                    guard let conflictBase = try container.conflicts(a.document).first?.base else {
                        throw DocverError.notInConflict(a.document.path)
                    }
                    b = conflictBase
                    print(try container.diff(from: b, to: a), terminator: "")
                    return
                }
                if let second {
                    b = try container.version(second, of: a.document)
                } else {
                    guard let current = try container.currentVersion(of: a.document) else { throw DocverError.noSuchDocument(a.document.path) }
                    b = current
                }
                print(try container.diff(from: a, to: b), terminator: "")
            }
        }
    }
}
