import ArgumentParser
import DocverKit
import Foundation

/// `--device` and `--device-name` of `init` and `clone`, checked before anything runs (a bad
/// value is a usage error, exit 64).
struct DeviceOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "This device's id: 1 to 64 letters, digits, '-' and '_' (default: from the host name and the container's path).",
        valueName: "id"))
    var device: String?
    @Option(help: ArgumentHelp("The device's display name (default: the id given with --device, else the host name).", valueName: "name"))
    var deviceName: String?

    func validate() throws {
        do {
            // The id is checked alone first, so its error names the id, not the name.
            if let device { _ = try Device(id: device) }
            if let deviceName { _ = try Device(id: "checked", name: deviceName) }
        } catch let error as DocverError {
            throw ValidationError(error.description)
        }
    }

    /// The device for a container at `url`: as given, or the host's default
    /// (``Device/defaultDevice(hostName:containerPath:)``).
    func device(forContainerAt url: URL) throws -> Device {
        if let device { return try Device(id: device, name: deviceName) }
        let fallback = Device.defaultDevice(hostName: Host.name, containerPath: url.standardizedFileURL.path)
        return try Device(id: fallback.id, name: deviceName ?? fallback.name)
    }
}
