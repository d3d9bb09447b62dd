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
}

extension Container {
    /// Brings the contents of every version of `documents` (every version of every document
    /// when nil) onto this device, from the remote that keeps them, in one fetch: for a device
    /// that keeps documents on demand (``clone(from:to:device:onDemand:progress:)``), before
    /// going offline. Nothing is fetched on a device that has every version's contents.
    ///
    /// Throws ``DocverError/noSuchDocument(_:)`` for a document never saved, and
    /// ``DocverError/remote(name:message:)`` when the remote cannot be reached (nothing is
    /// kept of a fetch that failed).
    public func download(_ documents: [DocumentPath]?) throws -> DownloadReport {
        try withWriteLock { repository in
            let promisors = try repository.promisorRemotes()
            var wanted: [ObjectID] = []
            var seen = Set<ObjectID>()
            if let documents {
                for document in documents {
                    let versions = try self.versions(of: document, includingResolved: true)
                    for version in [versions.current] + versions.unresolvedConflicts + versions.resolvedConflicts
                        + versions.history + versions.merged {
                        guard let entry = version.entryID else { continue }
                        wanted += try repository.missingFiles(under: entry, isFolder: version.kind == .package, seen: &seen)
                    }
                }
            } else if !promisors.isEmpty {
                wanted = try repository.allMissingFiles()
            }
            guard !promisors.isEmpty else { return DownloadReport(documents: documents, fetchedFiles: 0, onDemand: false) }
            var failure: DocverError?
            for name in promisors where !wanted.isEmpty {
                guard let remote = try Remote.lookup(name, in: repository) else { continue }
                let local = RemoteLocation(remote.url, relativeTo: root).isLocal
                do {
                    try repository.fetchObjects(wanted, from: name, local: local, settings: transferSettings(repository))
                    failure = nil
                    break
                } catch let error as GitError {
                    failure = .remote(name: name, message: RemoteLocation.redacting(error.message, of: remote.url))
                }
            }
            if let failure { throw failure }
            repository.refreshObjects()
            return DownloadReport(documents: documents, fetchedFiles: wanted.count, onDemand: true)
        }
    }
}
