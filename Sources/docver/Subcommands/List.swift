import ArgumentParser
import DocverKit

extension Docver {
    struct List: ContainerCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls",
            abstract: "List saved documents with type, kind, size, modification date and last saving device.",
            discussion: "A '!' marks documents with unresolved conflicts.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var filter: QueryOptions

        func run(in container: Container) async throws {
            let items = try container.query(filter.query())
            if output.json { return try Terminal.printJSON(items.map(ItemOutput.init)) }
            print(ItemOutput.lines(items), terminator: "")
        }
    }
}
