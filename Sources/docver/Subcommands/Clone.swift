import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Clone: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join as a new device: create a container from a remote (named 'origin').")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The remote's URL.", completion: .directory) var url: String
        @Argument(help: "Where to create the container.", completion: .directory) var path: String
        @OptionGroup var device: DeviceOptions
        @Flag(
            name: .customLong("on-demand"),
            help:
                "Keep documents on demand: receive only the newest versions' contents; older ones are fetched when a command needs them (needs git).")
        var onDemand = false

        func validate() throws { try device.validate() }

        // Not a ContainerCommand: there is no container yet.
        func run() async throws {
            try await reportingErrors {
                let destination = global.url(of: path)
                let progress = ProgressRenderer()
                defer { progress.finish() }
                let location = RemoteLocation(global.remoteURL(url), relativeTo: global.url)
                Diagnostics.logger.debug("cloning from \(location.redactedURL)")
                if location.sendsPasswordInClearText {
                    Terminal.warning("the password in the URL of the remote travels in clear text over http://; use https:// or ssh://")
                }
                let cloned: (Container, SyncReport)
                do {
                    cloned = try Diagnostics.timed("clone") {
                        try Container.clone(
                            from: global.remoteURL(url), to: destination,
                            device: device.device(forContainerAt: destination), onDemand: onDemand,
                            progress: progress.handler)
                    }
                } catch let error as DocverError {
                    guard let hint = hint(for: error) else { throw error }
                    // The sync's own advice (set-url) does not apply: there is no container.
                    throw HintedFailure(error.description, hint: hint, kind: error.code)
                }
                progress.finish()
                let (container, report) = cloned
                report.warnings.forEach(Terminal.warning)
                if output.json { return try Terminal.printJSON(SyncOutput(report, container: container)) }
                print(
                    "cloned into \(container.root.path) as device '\(container.device.id)' (\(container.device.name)): "
                        + Terminal.count(report.receivedDocuments, "document"))
                if device.namesByDefault { Terminal.hint(DeviceOptions.renameHint(container)) }
                Terminal.printDocumentChanges(report, conflictsOnly: true)
            }
        }

        /// Advice for a clone that failed before or while it synced: nothing was created.
        private func hint(for error: DocverError) -> String? {
            switch error {
            case .noRepositoryAt, .fileNotRepository: return "clone needs an existing bare repository; 'docver init' starts a new container"
            case let .repositoryHasWorkingTree(source): return adviceForWorkingTree(source)
            case .remote: return "check the address and run clone again; nothing was created"
            default: return nil
            }
        }

        /// Cloning from another container: from the repository it syncs through, or from one
        /// it is given first.
        private func adviceForWorkingTree(_ source: String) -> String {
            let destination = Terminal.shellWord(path)
            if let remote = ((try? Container(at: URL(fileURLWithPath: source)).remotes()) ?? nil)?.first {
                return "clone from the repository it syncs through: docver clone \(Terminal.shellWord(remote.redactedURL)) \(destination)"
            }
            let bare = Terminal.shellWord(Advice.bareSibling(of: source))
            let other = Terminal.shellWord(source)
            return "give it a bare repository to sync through, then clone from that: docver -C \(other) remote add origin \(bare) --create"
                + " && docver -C \(other) sync && docver clone \(bare) \(destination)"
        }
    }
}
