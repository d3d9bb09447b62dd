import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Show: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a version: a flat document's bytes, or a package's component listing.",
            discussion: """
                The version is an id prefix (4 or more digits), @ or HEAD (the current version, the default), \
                @-N (N versions back), or --at DATE. A version id alone shows the one document its save recorded.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The document (relative to the current directory).", completion: .custom(Completions.documents))
        var document: String
        @Argument(help: "The version (default: @, the current version).", completion: .custom(Completions.versions))
        var version: String?
        @OptionGroup var date: AtOption

        func validate() throws { try date.refuse(alongside: version) }

        func run(in container: Container) async throws {
            let arguments = DocumentArguments(container, global)
            let found: DocumentVersion
            if version == nil, date.at == nil, case let .id(id)? = try? VersionSpecifier(document),
                (try? arguments.path(document)).map(arguments.exists) != true
            {
                // `show 5f7d7c21`: a save that recorded one document.
                found = try container.version(id)
            } else {
                let (path, specifier) = try arguments.version(of: document, version, at: date.at, command: "show")
                found = try arguments.find(specifier ?? .current, of: path)
            }
            // A flat version's bytes go out a piece at a time: a film is not held whole.
            if !output.json, try container.readFlatContents(of: found, { FileHandle.standardOutput.write($0) }) { return }
            let contents = try container.contents(of: found)
            if output.json { return try Terminal.printJSON(ShowOutput(found, contents: contents)) }
            switch contents {
            case let .flat(data):
                FileHandle.standardOutput.write(data)
            case let .package(package):
                for (name, data) in package.files.sorted(by: { $0.key < $1.key }) {
                    print("\(Terminal.size(Int64(data.count)).padded(to: 10)) \(name)")
                }
            case .deleted:
                Terminal.warning("version \(found.shortID) records the deletion of \(found.document)")
            }
        }
    }
}
