import ArgumentParser
import DocverKit

extension Docver {
    struct Evict: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Free the local contents of documents on a device that keeps documents on demand.",
            discussion: """
                Each document's file is replaced by a placeholder, NAME.evicted.txt, that says how to bring \
                it back, and the contents of its versions that the remote keeps leave this device. The \
                document stays in every listing ('ls' shows it as notDownloaded); sync, versions, conflicts \
                and resolutions go on as before. 'docver download DOC' brings it back. Deleting the \
                placeholder deletes the document, as deleting the document would.
                Refused, with nothing changed: a document with unsaved changes or unresolved conflict \
                versions (unless --force), one whose current version is not on the remote yet (sync \
                first), a symbolic link, and any document on a device that keeps every version's contents.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The documents.", completion: .custom(Completions.documents)) var documents: [String]
        @Flag(help: "Evict even a document with unresolved conflict versions or unsaved changes (which are discarded).")
        var force = false

        func run(in container: Container) async throws {
            let arguments = DocumentArguments(container, global)
            let paths = try documents.map { try arguments.path($0) }
            let report = try container.evict(paths, force: force)
            if output.json { return try Terminal.printJSON(EvictOutput(report)) }
            for document in report.discardedEdits {
                Terminal.warning("discarded the unsaved changes of \(DocumentPath.quoted(document.path))")
            }
            let which =
                report.documents.count == 1 ? DocumentPath.quoted(report.documents[0].path) : Terminal.count(report.documents.count, "document")
            print("evicted \(which): freed \(Terminal.size(report.freedBytes)); 'docver download' brings it back")
            if report.keptUnsyncedVersions > 0 {
                Terminal.hint(
                    "\(Terminal.count(report.keptUnsyncedVersions, "version")) not on the remote yet stayed here; sync, then evict again to free them"
                )
            }
        }
    }
}
