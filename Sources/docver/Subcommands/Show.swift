import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Show: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a version: a flat document's bytes, or a package's component listing.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The version id (a unique prefix of at least four digits).") var version: String
        @Argument(help: "The document, when the save recorded several.") var document: String?

        func run(in container: Container) async throws {
            let path = try document.map(DocumentPath.init)
            let found = try container.version(version, of: path)
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
