import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Watch: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the query's results, then again each time they change (until interrupted).",
            discussion: "With --json, one object per line: {\"event\": \"initial\" or \"update\", \"items\": [...]}.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var filter: QueryOptions
        @Option(help: "Seconds between checks for changes.") var interval: Double = 1
        @Option(help: "Stop after this many updates (after the initial results).") var updates: Int?

        struct Line: Encodable {
            let event: String
            let items: [ItemOutput]
        }

        func validate() throws {
            // `inf`, `nan` and 1e300 parse as numbers; converting them to a duration would trap.
            guard interval.isFinite, interval >= 0.01, interval <= 86_400 else {
                throw ValidationError("--interval must be between 0.01 and 86400 seconds")
            }
        }

        func run(in container: Container) async throws {
            let stream = try container.liveQuery(filter.query(), pollInterval: .milliseconds(Int(interval * 1000)))
            var count = -1
            for try await results in stream {
                count += 1
                let items = results.map(ItemOutput.init)
                if output.json {
                    try Terminal.printJSON(Line(event: count == 0 ? "initial" : "update", items: items), onOneLine: true)
                } else {
                    print(count == 0 ? "== \(items.count) documents" : "== update: \(items.count) documents")
                    items.forEach { print($0.line) }
                }
                fflush(nil)
                if let updates, count >= updates { return }
            }
        }
    }
}
