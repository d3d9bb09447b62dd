import Foundation

extension Container {
    /// Finds the version of `document` that `specifier` names: a version id prefix (as
    /// ``version(_:of:)-(String,_)``), the current version, N versions back in the document's
    /// history, or the version current at a date.
    ///
    /// Throws ``DocverError/noSuchDocument(_:)`` when the document was never saved (for `@`,
    /// `@-N` and dates), ``DocverError/notThatManyVersions(document:back:available:)`` when its
    /// history is shorter than N, and ``DocverError/noVersionAtDate(document:date:)`` for a
    /// date before its first version.
    public func version(_ specifier: VersionSpecifier, of document: DocumentPath) throws -> DocumentVersion {
        switch specifier {
        case let .id(prefix):
            return try version(prefix, of: document)
        case .current, .back(0):
            guard let current = try currentVersion(of: document) else { throw DocverError.noSuchDocument(document.path) }
            return current
        case let .back(count):
            let history = try self.history(of: document, limit: count)
            guard history.count == count else {
                throw DocverError.notThatManyVersions(document: document.path, back: count, available: history.count)
            }
            return history[count - 1]
        case let .at(date):
            guard let current = try currentVersion(of: document) else { throw DocverError.noSuchDocument(document.path) }
            if current.modified <= date { return current }
            // The lineage of the current version, newest first: the first one saved by then was
            // the current version at that date.
            guard let found = try history(of: document).first(where: { $0.modified <= date }) else {
                throw DocverError.noVersionAtDate(document: document.path, date: date)
            }
            return found
        }
    }
}
