import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Diff: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show unsaved edits, or the changes between versions, as a patch git apply accepts.",
            discussion: """
                docver diff               unsaved edits of every document
                docver diff DOC           unsaved edits of DOC (or of the documents in a folder)
                docver diff DOC A         version A against the working copy
                docver diff DOC A B       version A against version B
                docver diff DOC A --base  the base of DOC's conflict against A (default: @)
                A and B: an id prefix, @ or HEAD, @-N; --at DATE in place of A.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The document (default: every document with unsaved edits).", completion: .custom(Completions.documents))
        var document: String?
        @Argument(help: "The first version (default: the current version).", completion: .custom(Completions.versions))
        var first: String?
        @Argument(help: "The second version (default: the working copy).", completion: .custom(Completions.versions))
        var second: String?
        @OptionGroup var date: AtOption
        @Flag(help: "Compare the base of the document's conflict with the version.") var base = false

        func validate() throws {
            if document == nil && (base || date.at != nil) { throw ValidationError("--base and --at need a document") }
            if base && second != nil { throw ValidationError("--base compares one version with the base; give one version") }
            if date.at != nil && second != nil { throw ValidationError("--at takes the place of the first version; give one more at most") }
        }

        func run(in container: Container) async throws {
            let arguments = DocumentArguments(container, global)
            // Every document, or those in a plain folder (`docver diff .`, `docver diff recipes`).
            let folder = document.flatMap { first == nil && !base && date.at == nil ? arguments.plainFolder($0) : nil }
            guard let document, folder == nil else {
                let edits = try container.unsavedEdits().filter { folder?.isEmpty != false || $0.document.path.hasPrefix(folder! + "/") }
                return try render(edits, labelled: false)
            }
            // With --at the date is the first version, and a version after it the second.
            let (firstWord, secondWord) = date.at == nil ? (first, second) : (nil, first)
            let (path, specifier) = try arguments.version(of: document, firstWord, at: date.at, command: "diff")
            let named = specifier != nil || base
            let from: DiffSide, to: DiffSide
            if base {
                let version = try arguments.find(specifier ?? .current, of: path)
                // A conflict version's own base; for the current version, the newest one's.
                guard let conflict = try container.conflicts(path).first,
                    let conflictBase = conflict.base(of: version) ?? conflict.base
                else {
                    throw DocverError.notInConflict(path.path)
                }
                (from, to) = (.version(conflictBase), .version(version))
            } else if let specifier {
                from = try side(specifier, of: path, arguments)
                if let secondWord {
                    let parsed: VersionSpecifier
                    do { parsed = try VersionSpecifier(secondWord) } catch let error as DocverError {
                        throw HintedFailure(
                            error.description, hint: "list the versions of \(path) with 'docver versions \(arguments.typed(path)) --all'",
                            kind: error.code)
                    }
                    to = try side(parsed, of: path, arguments)
                } else {
                    to = .workingTree
                }
            } else {
                // The unsaved edits: from the current version, or from nothing for a new document.
                let current = try container.currentVersion(of: path)
                guard current != nil || arguments.exists(path) else { throw DocverError.noSuchDocument(path.path) }
                (from, to) = (current.map(DiffSide.version) ?? .absent, .workingTree)
            }
            try render([try container.diff(path, from: from, to: to)], labelled: named)
        }

        /// A version as one side of the diff, or nothing where the document did not exist: at a
        /// date before its first save, or in a save (of other documents) made before it was
        /// created or after it was deleted. The patch then creates or deletes it, as git's does.
        private func side(_ specifier: VersionSpecifier, of path: DocumentPath, _ arguments: DocumentArguments) throws -> DiffSide {
            do {
                return .version(try arguments.container.version(specifier, of: path))
            } catch DocverError.noVersionAtDate {
                return .absent
            } catch DocverError.versionOfAnotherDocument {
                if case let .id(id) = specifier, try !arguments.container.documentExists(path, inSave: id) { return .absent }
            } catch {}
            // Anything else fails as it does elsewhere, with the hint naming the versions.
            return .version(try arguments.find(specifier, of: path))
        }

        private func render(_ diffs: [DocumentDiff], labelled: Bool) throws {
            if output.json { return try Terminal.printJSON(diffs.filter { !$0.isEmpty }.map(DiffOutput.init)) }
            print(PatchText.render(diffs, labelled: labelled, colored: Terminal.style.enabled), terminator: "")
        }
    }
}
