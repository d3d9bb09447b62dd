import ArgumentParser
import DocverKit

extension Docver {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save unsaved edits, bring in other devices' saves, and push this device's saves.",
            discussion: "Documents with unsaved edits are saved first (message 'Save before sync'), so a sync never overwrites an edit.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "Remotes to sync with (default: all).") var remotes: [String] = []

        func run() async throws {
            try await reportingErrors {
                let report = try global.container().sync(remotes.isEmpty ? nil : remotes)
                report.warnings.forEach(Terminal.warning)
                if let saved = report.savedBeforeSync {
                    print("saved \(saved.changes.count) changed document\(saved.changes.count == 1 ? "" : "s") before syncing")
                }
                print(report.integrated ? "integrated saves from other devices" : "already up to date")
                Self.printConflicts(report)
                if !report.pushed.isEmpty { print("pushed to \(report.pushed.joined(separator: ", "))") }
            }
        }

        static func printConflicts(_ report: SyncReport) {
            for (document, versions) in report.newConflicts.sorted(by: { $0.key < $1.key }) {
                print("conflict: \(document) (\(versions.count) new conflict version\(versions.count == 1 ? "" : "s"); see 'docver conflicts')")
            }
        }
    }
}
