import ArgumentParser
import DocverKit
import Foundation

/// `--device` and `--device-name` of `init` and `clone`, checked before anything runs (a bad
/// value is a usage error, exit 64).
struct DeviceOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "This device's id: 1 to 64 letters, digits, '-' and '_' (default: from the host name and the container's path).",
            valueName: "id"))
    var device: String?
    @Option(
        help: ArgumentHelp(
            "The device's display name (default: the id given with --device, else the host name and the container's path).",
            valueName: "name"))
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
        let path = url.standardizedFileURL.path
        let fallback = Device.defaultDevice(
            hostName: Host.name, containerPath: path,
            homeDirectory: ProcessInfo.processInfo.environment["HOME"])
        // A container already here keeps the name it has (one given before default names held
        // the path, or changed since), so running `init` again with the defaults changes nothing.
        if deviceName == nil, let existing = try? Container(at: url), existing.device.id == fallback.id,
            existing.root.resolvingSymlinksInPath().path == url.resolvingSymlinksInPath().path
        {
            return existing.device
        }
        return try Device(id: fallback.id, name: deviceName ?? fallback.name)
    }

    /// True when neither the id nor the name was given: the name is the default one, and
    /// `init` and `clone` say how to change it.
    var namesByDefault: Bool { device == nil && deviceName == nil }

    /// How to change the device's display name: the command as it runs, holding the name now.
    static func renameHint(_ container: Container) -> String {
        "change the device name with: git -C \(Terminal.shellWord(container.root.path)) config docver.deviceName "
            + Terminal.shellWord(container.device.name)
    }
}
