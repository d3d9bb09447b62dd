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

        func validate() throws { try device.validate() }

        // Not a ContainerCommand: there is no container yet.
        func run() async throws {
            try await reportingErrors {
                let destination = global.url(of: path)
                // A local URL is checked first, as `remote add` checks it: libgit2 would only
                // say "unsupported URL protocol" once the sync starts.
                if case let .local(repository) = RemoteLocation(url, relativeTo: global.url), !Container.repositoryExists(at: repository) {
                    Terminal.error(DocverError.noRepositoryAt(repository).description,
                                   hint: "clone needs an existing repository; 'docver init' starts a new container")
                    throw ExitCode.failure
                }
                let progress = ProgressRenderer()
                defer { progress.finish() }
                Diagnostics.logger.debug("cloning from \(global.remoteURL(url))")
                let cloned: (Container, SyncReport)
                do {
                    cloned = try Diagnostics.timed("clone") {
                        try Container.clone(from: global.remoteURL(url), to: destination,
                                            device: device.device(forContainerAt: destination), progress: progress.handler)
                    }
                } catch let error as DocverError {
                    guard case .remote = error else { throw error }
                    // The sync advice (set-url) does not apply: the new container was removed.
                    Terminal.error(error.description, hint: "check the URL and run clone again; nothing was created")
                    throw ExitCode.failure
                }
                progress.finish()
                let (container, report) = cloned
                report.warnings.forEach(Terminal.warning)
                if output.json { return try Terminal.printJSON(SyncOutput(report, container: container)) }
                print("cloned into \(container.root.path) as device '\(container.device.id)'")
                Terminal.printDocumentChanges(report, conflictsOnly: true)
            }
        }
    }
}
