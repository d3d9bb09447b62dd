import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Clone: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join as a new device: create a container from a remote (named 'origin').")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The remote's URL.", completion: .directory) var url: String
        @Argument(help: "Where to create the container.", completion: .directory) var path: String
        @OptionGroup var device: DeviceOptions

        func validate() throws { try device.validate() }

        // Not a ContainerCommand: there is no container yet.
        func run() async throws {
            try await reportingErrors {
                let destination = global.url(of: path)
                let (container, report) = try Container.clone(from: global.remoteURL(url), to: destination,
                                                              device: device.device(forContainerAt: destination))
                report.warnings.forEach(Terminal.warning)
                print("cloned into \(container.root.path) as device '\(container.device.id)'")
                Terminal.printDocumentChanges(report, conflictsOnly: true)
            }
        }
    }
}
