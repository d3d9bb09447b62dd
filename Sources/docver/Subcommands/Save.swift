import ArgumentParser
import DocverKit

extension Docver {
    struct Save: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record documents as a new save of this device (all changed documents when none are named).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Documents to save, relative to the current directory.", completion: .custom(Completions.documentsAndFiles))
        var documents: [String] = []
        @Option(name: .shortAndLong, help: "A message describing the save.") var message: String?

        func run(in container: Container) async throws {
            let arguments = DocumentArguments(container, global)
            let names = try documents.map(arguments.path)
            let saved = try container.save(names.isEmpty ? nil : names, message: message)
            if output.json { return try Terminal.printJSON(SaveOutput(saved)) }
            guard let result = saved else {
                print("nothing to save: no document changed since the last save")
                return
            }
            for change in result.changes { print("\(change.change.rawValue): \(change.document)") }
            print("saved \(Terminal.count(result.changes.count, "document")) as \(Terminal.shortID(result.id))")
        }
    }
}
