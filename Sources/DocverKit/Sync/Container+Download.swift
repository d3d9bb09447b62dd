import Foundation

/// What ``Container/download(_:)`` brought.
public struct DownloadReport: Sendable, Equatable {
    /// The documents asked for, in the order given; nil: every document.
    public var documents: [DocumentPath]?
    /// How many files' contents were fetched (a version of a file package is one per component).
    public var fetchedFiles: Int
    /// Whether this device keeps documents on demand; without, every version's contents are
    /// here already and nothing is fetched.
    public var onDemand: Bool
    /// The evicted documents whose files were written back into the working tree.
    public var broughtBack: [DocumentPath] = []
}

extension Container {
    /// Brings the contents of every version of `documents` (every version of every document
    /// when nil) onto this device, from the remote that keeps them, in one fetch: for a device
    /// that keeps documents on demand (``clone(from:to:device:onDemand:progress:)``), before
    /// going offline. Nothing is fetched on a device that has every version's contents.
    /// An evicted document among them (``evict(_:force:)``) comes back: its current version's
    /// file replaces its placeholder.
    ///
    /// Throws ``DocverError/noSuchDocument(_:)`` for a document never saved, and
    /// ``DocverError/remote(name:message:)`` when the remote cannot be reached (what arrived
    /// before stays: every object is checked as it arrives).
    ///
    /// The contents come in up to ten fetches, so that `progress` (files fetched of all, and
    /// their bytes) and the documents' ``MetadataItem/percentDownloaded``, which other
    /// processes read, move as they arrive.
    public func download(_ documents: [DocumentPath]?, progress: TransferProgressHandler? = nil) throws -> DownloadReport {
        try withWriteLock { repository in
            let promisors = try repository.promisorRemotes()
            var wanted: [ObjectID] = []
            var seen = Set<ObjectID>()
            // Per document asked for, the files it waits for (for its percentage).
            var waiting: [(document: DocumentPath, files: [ObjectID])] = []
            if let documents {
                for document in documents {
                    let versions = try self.versions(of: document, includingResolved: true)
                    var files: [ObjectID] = []
                    for version in versions.all {
                        guard let entry = version.entryID else { continue }
                        files += try repository.contents(under: entry, isFolder: version.kind == .package, seen: &seen).missing
                    }
                    wanted += files
                    waiting.append((document, files))
                }
            } else if !promisors.isEmpty {
                wanted = try repository.allMissingFiles()
                waiting = evictedDocuments().values.sorted().map { ($0, wanted) }
            }
            guard !promisors.isEmpty else { return DownloadReport(documents: documents, fetchedFiles: 0, onDemand: false) }
            defer { try? FileSystem.remove(files.downloading) }
            var arrived = Set<ObjectID>()
            var bytes = 0
            func report(remote: String) {
                DownloadProgressFile.write(
                    waiting.map { entry in
                        let done = entry.files.isEmpty ? 1 : Double(entry.files.count { arrived.contains($0) }) / Double(entry.files.count)
                        return (entry.document, (done * 1000).rounded() / 10)
                    }, to: files.downloading)
                progress?(
                    TransferProgress(
                        remote: remote, direction: .fetch, objects: arrived.count, totalObjects: wanted.count,
                        indexedObjects: arrived.count, bytes: bytes))
            }
            if !wanted.isEmpty { report(remote: promisors[0]) }
            let step = max(1, (wanted.count + 9) / 10)
            for start in stride(from: 0, to: wanted.count, by: step) {
                let batch = Array(wanted[start..<min(wanted.count, start + step)])
                let fetch = try repository.fetchFromPromisors(batch, settings: transferSettings(repository))
                guard let remote = fetch.remote else {
                    throw fetch.failures.last.map { DocverError.remote(name: $0.remote, message: $0.reason) } ?? DocverError.noRemotes
                }
                repository.refreshObjects()
                arrived.formUnion(batch)
                for id in batch { bytes += Int(try repository.blobSizeIfHere(id) ?? 0) }
                report(remote: remote)
            }
            let broughtBack = try bringBack(documents, in: repository)
            return DownloadReport(documents: documents, fetchedFiles: wanted.count, onDemand: true, broughtBack: broughtBack)
        }
    }
}
