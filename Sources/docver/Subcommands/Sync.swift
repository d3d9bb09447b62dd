import ArgumentParser
import DocverKit

extension Docver {
    struct Sync: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save unsaved edits, bring in other devices' saves, and push this device's saves.",
            discussion: "Documents with unsaved edits are saved first (message 'Save before sync'), so a sync never overwrites an edit.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "Remotes to sync with (default: all).", completion: .custom(Completions.remotes)) var remotes: [String] = []

        func run(in container: Container) async throws {
            let report = try container.sync(remotes.isEmpty ? nil : remotes)
            report.warnings.forEach(Terminal.warning)
            if let saved = report.savedBeforeSync {
                print("saved \(Terminal.count(saved.changes.count, "changed document")) before syncing")
            }
            print(report.integrated ? "integrated saves from other devices" : "already up to date")
            Terminal.printDocumentChanges(report)
            if !report.pushed.isEmpty { print("pushed to \(report.pushed.joined(separator: ", "))") }
        }
    }
}
