import ArgumentParser
import DocverKit

extension Docver {
    struct DiskUsage: ContainerCommand {
        static let configuration = CommandConfiguration(
            commandName: "du",
            abstract: "Show what each document's and each device's history costs, and what gc would reclaim.",
            discussion: """
                Sizes are uncompressed object sizes (each distinct content counted once per document or
                device); 'on disk' is what .git/objects takes now. The cost is proportional to the history.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "List at most this many documents (default: all).") var limit: Int?

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        }

        func run(in container: Container) async throws {
            let report = try container.storageReport()
            if output.json { return try Terminal.printJSON(StorageReportOutput(report)) }
            print("documents (history of each, distinct contents):")
            let documents = limit.map { Array(report.documents.prefix($0)) } ?? report.documents
            for usage in documents {
                print(
                    "  \(Terminal.size(usage.bytes).padded(to: 10)) \(Terminal.count(usage.objects, "content").padded(to: 14)) \(DocverError.printable(usage.name))"
                )
            }
            if documents.count < report.documents.count {
                print("  ... and \(Terminal.count(report.documents.count - documents.count, "more document"))")
            }
            print("devices (contents their saves added):")
            for usage in report.devices {
                print(
                    "  \(Terminal.size(usage.bytes).padded(to: 10)) \(Terminal.count(usage.objects, "content").padded(to: 14)) \(usage.name) (\(DocverError.printable(usage.displayName ?? usage.name)))"
                )
            }
            print(
                "history: \(Terminal.count(report.commits, "commit")), \(Terminal.count(report.reachableObjects, "object")), \(Terminal.size(report.reachableBytes)) uncompressed; \(Terminal.size(report.diskBytes)) on disk"
            )
            print(
                "gc would prune \(Terminal.count(report.unreachableObjects, "unreferenced object")) (\(Terminal.size(report.unreachableBytes)) uncompressed) and repack"
            )
        }
    }

    struct GarbageCollect: ContainerCommand {
        static let configuration = CommandConfiguration(
            commandName: "gc",
            abstract: "Prune objects nothing references and repack (runs 'git gc --prune=now').",
            discussion: """
                Never prunes a saved version or a conflict version: it first checks that every version
                docver's records name is reachable from a reference, and afterwards that every object
                reachable before is still there. Needs git on PATH (libgit2 has no gc).
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Flag(help: "Report what would be pruned; change nothing.") var dryRun = false

        func run(in container: Container) async throws {
            let result = try container.collectGarbage(dryRun: dryRun)
            let before = result.before
            if output.json { return try Terminal.printJSON(GarbageCollectionOutput(result)) }
            let pruned =
                "\(Terminal.count(before.unreachableObjects, "unreferenced object")) (\(Terminal.size(before.unreachableBytes)) uncompressed)"
            if dryRun {
                print("would prune \(pruned) and repack; \(Terminal.size(before.diskBytes)) on disk now")
            } else {
                print(
                    "pruned \(pruned) and repacked; on disk: \(Terminal.size(before.diskBytes)) before, \(Terminal.size(result.diskBytesAfter)) after"
                )
            }
        }
    }
}

/// `du --json`.
struct StorageReportOutput: Encodable {
    struct DocumentUsage: Encodable { let document: String; let contents: Int; let bytes: Int64 }
    struct DeviceUsage: Encodable { let device: String; let deviceName: String; let contents: Int; let bytes: Int64 }

    let documents: [DocumentUsage]
    let devices: [DeviceUsage]
    let commits: Int
    let reachableObjects: Int
    let reachableBytes: Int64
    let unreachableObjects: Int
    let unreachableBytes: Int64
    let diskBytes: Int64

    init(_ report: StorageReport) {
        documents = report.documents.map { .init(document: $0.name, contents: $0.objects, bytes: $0.bytes) }
        devices = report.devices.map { .init(device: $0.name, deviceName: $0.displayName ?? $0.name, contents: $0.objects, bytes: $0.bytes) }
        commits = report.commits
        reachableObjects = report.reachableObjects
        reachableBytes = report.reachableBytes
        unreachableObjects = report.unreachableObjects
        unreachableBytes = report.unreachableBytes
        diskBytes = report.diskBytes
    }
}

/// `gc --json`.
struct GarbageCollectionOutput: Encodable {
    let dryRun: Bool
    let prunedObjects: Int
    let prunedBytes: Int64
    let diskBytesBefore: Int64
    let diskBytesAfter: Int64

    init(_ result: GarbageCollection) {
        dryRun = result.dryRun
        prunedObjects = result.before.unreachableObjects
        prunedBytes = result.before.unreachableBytes
        diskBytesBefore = result.before.diskBytes
        diskBytesAfter = result.diskBytesAfter
    }
}
