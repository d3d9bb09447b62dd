import ArgumentParser
import DocverKit

extension Docver {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls", abstract: "List saved documents with type, kind, size, date and last saving device.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        struct JSON: Encodable {
            let document: String
            let displayName: String
            let type: String
            let kind: String
            let size: Int64
            let modified: Date
            let device: String
            let deviceName: String
            let version: String
            let hasUnresolvedConflicts: Bool
        }

        func run() async throws {
            try await reportingErrors {
                let documents = try global.container().documents()
                if output.json {
                    try Terminal.printJSON(documents.map {
                        JSON(document: $0.document.path, displayName: $0.document.displayName, type: $0.type,
                             kind: $0.kind.rawValue, size: $0.size, modified: $0.current.modified,
                             device: $0.current.device.id, deviceName: $0.current.device.name,
                             version: $0.current.id, hasUnresolvedConflicts: $0.hasUnresolvedConflicts)
                    })
                    return
                }
                for info in documents {
                    let flag = info.hasUnresolvedConflicts ? "!" : " "
                    print("\(flag) \(info.kind.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(Terminal.size(info.size).padding(toLength: 10, withPad: " ", startingAt: 0)) \(Terminal.date(info.current.modified))  \(info.current.device.name)  \(info.document)")
                }
            }
        }
    }
}

import Foundation
