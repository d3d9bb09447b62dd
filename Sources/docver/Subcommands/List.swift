import ArgumentParser
import DocverKit
import Foundation

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
            try Self.render(filter.query(), in: container, json: output.json)
        }

        /// The command's work and output, shared with the shortcut (Shortcut.swift). `printing`
        /// is called once the output is certain, before its first line.
        static func render(_ query: DocumentQuery, in container: Container, json: Bool, printing: () -> Void = {}) throws {
            let items = try container.query(query)
            printing()
            if json { return try Terminal.printJSONArray(items.lazy.map(ItemOutput.init)) }
            print(ItemOutput.lines(items), terminator: "")
        }
    }
}
