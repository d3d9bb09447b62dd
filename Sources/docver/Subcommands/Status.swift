import ArgumentParser
import DocverKit

extension Docver {
    struct Status: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show documents changed since the last save and documents in conflict.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run(in container: Container) async throws {
            let status = try Agent.cachedStatus(of: container) ?? container.status()
            try Self.render(status, device: container.device, json: output.json)
        }

        /// Prints `status` of `device`'s container (also the shortcut's output: Shortcut.swift).
        static func render(_ status: ContainerStatus, device: Device, json: Bool) throws {
            if json {
                return try Terminal.printJSON(StatusOutput(status, device: device))
            }
            print("on device \(device.id) (\(DocverError.printable(device.name)))")
            if status.changed.isEmpty && status.inConflict.isEmpty {
                print("nothing changed since the last save; no conflicts")
                return
            }
            if !status.changed.isEmpty {
                print("changed since the last save:")
                for change in status.changed { print("  \(change.change.rawValue.padded(to: 9)) \(DocumentPath.quoted(change.document.path))") }
            }
            if !status.inConflict.isEmpty {
                print("in conflict:")
                for entry in status.inConflict {
                    print("  \(entry.document) (\(Terminal.count(entry.conflicts, "unresolved conflict version")))")
                }
                Terminal.hint(Advice.afterArrivedConflicts(status.inConflict.map(\.document)))
            }
        }
    }
}
