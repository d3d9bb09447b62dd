import Foundation

extension Container {
    /// Makes an old version current again, as a new save on this device's branch.
    @discardableResult
    public func restore(_ document: DocumentPath, to versionID: String) throws -> SaveResult {
        try withWriteLock { repository in
            /// (docs/MODEL.md: R5, R12.)
            let version = try version(versionID, of: document, in: repository)
            let record = VersionRecord(path: document.path, version: version.id).trailer(Trailer.restored)
            return try writeVersion(
                version, of: document, subject: "Restore \(document.path) to version \(version.shortID)",
                records: [record], in: repository)
        }
    }
}
