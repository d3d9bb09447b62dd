import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Clone: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join as a new device: create a container from a remote (named 'origin').")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The remote's URL.") var url: String
        @Argument(help: "Where to create the container.") var path: String
        @Option(help: "This device's id: letters, digits, '-' and '_'.") var device: String
        @Option(help: "The device's display name (default: the id).") var deviceName: String?

        // Not a ContainerCommand: there is no container yet.
        func run() async throws {
            try await reportingErrors {
                let progress = ProgressRenderer()
                defer { progress.finish() }
                Diagnostics.logger.debug("cloning from \(global.remoteURL(url))")
                let (container, report) = try Diagnostics.timed("clone") {
                    try Container.clone(from: global.remoteURL(url), to: global.url(of: path),
                                        device: Device(id: device, name: deviceName), progress: progress.handler)
                }
                progress.finish()
                report.warnings.forEach(Terminal.warning)
                if output.json { return try Terminal.printJSON(SyncOutput(report, container: container)) }
                print("cloned into \(container.root.path) as device '\(container.device.id)'")
                Terminal.printDocumentChanges(report, conflictsOnly: true)
            }
        }
    }
}
