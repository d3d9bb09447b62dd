import ArgumentParser
import DocverKit

extension Docver {
    struct Download: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring documents' contents, every version's, onto this device (a device that keeps documents on demand).",
            discussion: """
                A device made with 'clone --on-demand' fetches an older version's contents when a command \
                reads it. Download fetches the contents of every version of the documents named (of every \
                document with --all) at once, for use offline, showing its progress on a terminal. An \
                evicted document among them ('docver evict') comes back: its file replaces its \
                placeholder. On a device that keeps every version's contents it does nothing.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The documents.", completion: .custom(Completions.documents)) var documents: [String] = []
        @Flag(help: "Every version of every document.") var all = false

        func validate() throws {
            if all && !documents.isEmpty { throw ValidationError("name documents or pass --all, not both") }
            if !all && documents.isEmpty { throw ValidationError("name the documents to download, or pass --all") }
        }

        func run(in container: Container) async throws {
            let arguments = DocumentArguments(container, global)
            let paths = all ? nil : try documents.map { try arguments.path($0) }
            let progress = ProgressRenderer()
            defer { progress.finish() }
            let report = try container.download(paths, progress: progress.handler)
            progress.finish()
            if output.json { return try Terminal.printJSON(DownloadOutput(report)) }
            let which = paths.map { $0.count == 1 ? $0[0].path : Terminal.count($0.count, "document") } ?? "every document"
            guard report.onDemand else {
                print("this device keeps every version's contents; nothing to download")
                return
            }
            if report.fetchedFiles == 0 {
                print("every version of \(which) is here already")
            } else {
                print("downloaded \(Terminal.count(report.fetchedFiles, "file")) (every version of \(which))")
            }
            for document in report.broughtBack {
                print("brought back \(DocumentPath.quoted(document.path))")
            }
        }
    }
}
