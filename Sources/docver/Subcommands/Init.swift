import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a container, or adopt an existing git repository (its history is kept).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Where to create the container (default: the current directory).", completion: .directory) var path: String?
        @OptionGroup var device: DeviceOptions

        func validate() throws { try device.validate() }

        // Not a ContainerCommand: there is no container yet.
        func run() async throws {
            try await reportingErrors {
                let url = path.map(global.url(of:)) ?? global.url
                let container = try Container.create(at: url, device: device.device(forContainerAt: url))
                if output.json {
                    return try Terminal.printJSON(
                        InitOutput(
                            container: container.root.path, device: container.device.id,
                            deviceName: container.device.name))
                }
                print("docver container at \(container.root.path) for device '\(container.device.id)' (\(container.device.name))")
                if device.namesByDefault { Terminal.hint(DeviceOptions.renameHint(container)) }
            }
        }
    }
}
