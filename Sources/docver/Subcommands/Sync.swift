import ArgumentParser
import DocverKit

extension Docver {
    struct Sync: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save unsaved edits, bring in other devices' saves, and push this device's saves.",
            discussion: """
                Documents with unsaved edits are saved first (named after them, as 'save' names a save), so a sync never overwrites an edit. \
                A remote that cannot be reached does not stop the sync with the others; the sync then fails (exit 1), naming it.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Remotes to sync with (default: all).", completion: .custom(Completions.remotes)) var remotes: [String] = []

        func run(in container: Container) async throws {
            let progress = ProgressRenderer()
            defer { progress.finish() }
            if OutputSettings.current.verbosity > 0 {
                for remote in (try? container.remotes()) ?? [] where remotes.isEmpty || remotes.contains(remote.name) {
                    Diagnostics.logger.debug("syncing with remote '\(remote.name)' at \(remote.redactedURL)")
                }
            }
            do {
                let report = try Diagnostics.timed("sync") {
                    try container.sync(remotes.isEmpty ? nil : remotes, progress: progress.handler)
                }
                progress.finish()
                try show(report)
            } catch DocverError.syncIncomplete(let report) {
                // Some remotes were synced: what was done there is shown as for a whole sync,
                // then the error names the others (exit 1).
                progress.finish()
                try show(report)
                throw DocverError.syncIncomplete(report)
            }
        }

        private func show(_ report: SyncReport) throws {
            report.warnings.forEach(Terminal.warning)
            if output.json { return try Terminal.printJSON(SyncOutput(report)) }
            if let saved = report.savedBeforeSync {
                print("saved \(Terminal.count(saved.changes.count, "changed document")) before syncing")
            }
            // Nothing was fetched when no remote was reached.
            guard report.unreachable.isEmpty || !report.synced.isEmpty else { return }
            // "already up to date" followed by "pushed to origin" read as a contradiction.
            print(
                report.integrated
                    ? "integrated saves from other devices"
                    : report.pushed.isEmpty ? "already up to date" : "nothing new from other devices")
            Terminal.printDocumentChanges(report)
            if !report.pushed.isEmpty { print("pushed to \(report.pushed.joined(separator: ", "))") }
        }
    }
}
