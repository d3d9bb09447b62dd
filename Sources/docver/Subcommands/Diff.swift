import ArgumentParser
import DocverKit

extension Docver {
    struct Diff: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a unified diff between two versions, a version and the current one, or a version and the base.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The first version.") var first: String
        @Argument(help: "The second version (default: the current version).") var second: String?
        @Flag(help: "Compare the version with the base of the document's conflict instead.") var base = false
        @Option(name: [.customShort("d"), .long], help: "The document, when a save recorded several.") var document: String?

        func validate() throws {
            if base && second != nil { throw ValidationError("--base compares one version with the base; give one version") }
        }

        func run(in container: Container) async throws {
            let path = try document.map(DocumentPath.init)
            let a = try container.version(first, of: path)
            if base {
                // A conflict version's own base; for the current version, the newest one's.
                guard let conflict = try container.conflicts(a.document).first,
                      let conflictBase = conflict.base(of: a) ?? conflict.base else {
                    throw DocverError.notInConflict(a.document.path)
                }
                return try render(container.diff(from: conflictBase, to: a), from: conflictBase, to: a)
            }
            let b: DocumentVersion
            if let second {
                b = try container.version(second, of: a.document)
            } else {
                guard let current = try container.currentVersion(of: a.document) else { throw DocverError.noSuchDocument(a.document.path) }
                b = current
            }
            try render(container.diff(from: a, to: b), from: a, to: b)
        }

        private func render(_ patch: String, from a: DocumentVersion, to b: DocumentVersion) throws {
            if output.json { return try Terminal.printJSON(DiffOutput(from: a, to: b, patch: patch)) }
            print(Terminal.style.diff(text: patch), terminator: "")
        }
    }
}
