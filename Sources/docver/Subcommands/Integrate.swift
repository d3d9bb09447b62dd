import ArgumentParser
import DocverKit

extension Docver {
    struct Integrate: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Integrate device branches already fetched, without contacting a remote.",
            discussion: "Useful after 'git fetch' with docver's refspec; unsaved edits are saved first.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run(in container: Container) async throws {
            let report = try container.integrate()
            report.warnings.forEach(Terminal.warning)
            if output.json { return try Terminal.printJSON(SyncOutput(report)) }
            print(report.integrated ? "integrated saves from other devices" : "already up to date")
            Terminal.printDocumentChanges(report)
        }
    }
}
