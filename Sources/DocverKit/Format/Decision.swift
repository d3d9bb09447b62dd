import Foundation

// docs/FORMAT.md, "Records"; docs/MODEL.md, R8-R12 and R26: a device's explicit decision
// about conflicting versions, as one commit's trailers record it.

/// What one commit decided about documents in conflict: its decision records
/// (`Docver-Resolved`, `Docver-Removed`, `Docver-Replaced`) that docver honours, read once.
///
/// Every question the conflict core asks about a commit's decisions is a property of this
/// value: whether it is a decision about a document (R8), which versions of the document it
/// names (R9, R10), whether it was a merge resolution (made from every version it names), and
/// which of its records docver ignores (R26: only docver's own saves and resolutions decide;
/// a record typed into a plain `git commit` or copied by a plain merge does not).
struct Decision: Sendable {
    /// The kinds of decision record.
    enum Kind: Sendable {
        /// `Docver-Resolved`: the version was looked at and the conflict is closed.
        case resolved
        /// `Docver-Removed`: the version was removed from the conflict versions.
        case removed
        /// `Docver-Replaced`: the document's current version was replaced by this version's state.
        case replaced

        init?(trailerKey key: String) {
            switch key {
            case Trailer.resolved: self = .resolved
            case Trailer.removed: self = .removed
            case Trailer.replaced: self = .replaced
            default: return nil
            }
        }
    }

    /// One honoured, well-formed decision record.
    struct Record: Sendable {
        let kind: Kind
        let version: VersionRecord
        /// The trailer as written, `KEY: VALUE`.
        let text: String
    }

    /// A decision record read but not honoured: the commit may not decide (R26), or the
    /// record is malformed.
    struct Ignored: Sendable {
        let kind: Kind
        /// The trailer as written, `KEY: VALUE`.
        let text: String
    }

    /// The honoured, well-formed records, in the order of the commit's trailers.
    let records: [Record]
    /// The decision records the commit carries that docver does not honour.
    let ignored: [Ignored]
    /// True when the commit carries `Docver-Strategy: merge`: a merge resolution, made from
    /// every version it names (R10).
    let isMergeResolution: Bool
    /// True when the commit carries any decision record, honoured or not (a signature is worth
    /// checking only then).
    var carriesRecords: Bool { !records.isEmpty || !ignored.isEmpty }

    /// Reads the decision of the commit with these trailers.
    /// `decisionsSigned`: false when the container requires signed decisions and the commit's
    /// signature does not verify (see ``SigningPolicy``): none of its records is honoured.
    /// (docs/MODEL.md: R26.)
    init(trailers: [(key: String, value: String)], decisionsSigned: Bool = true) {
        var records: [Record] = []
        var ignored: [Ignored] = []
        var isMergeResolution = false
        var trust: RecordTrust?
        for trailer in trailers {
            if trailer.key == Trailer.strategy, trailer.value == "merge" { isMergeResolution = true }
            guard let kind = Kind(trailerKey: trailer.key) else { continue }
            if trust == nil { trust = RecordTrust(trailers, decisionsSigned: decisionsSigned) }
            let text = "\(trailer.key): \(trailer.value)"
            guard trust!.honours(trailer.key), let record = VersionRecord(trailerValue: trailer.value) else {
                ignored.append(Ignored(kind: kind, text: text))
                continue
            }
            records.append(Record(kind: kind, version: record, text: text))
        }
        self.records = records
        self.ignored = ignored
        self.isMergeResolution = isMergeResolution
    }

    /// True when the commit decided something about the document at `path` (names are bytes).
    /// (docs/MODEL.md: R10, R12.)
    func isAbout(_ path: String) -> Bool {
        records.contains { $0.version.path.bytesEqual(path) }
    }

    /// The versions of the document at `path` the decision names, each once, in record order
    /// (well-formed ids; whether they exist is the caller's question).
    func versions(of path: String) -> [ObjectID] {
        var result: [ObjectID] = []
        for record in records where record.version.path.bytesEqual(path) {
            if let id = ObjectID(hex: record.version.version), !result.contains(id) { result.append(id) }
        }
        return result
    }

    /// The documents the decision is about, each once, in record order.
    /// (docs/MODEL.md: R8.)
    var documents: [DocumentPath] {
        var seen: Set<DocumentPath> = []
        return records.compactMap { record in
            let document = DocumentPath(trusted: record.version.path)
            return seen.insert(document).inserted ? document : nil
        }
    }
}

extension Commit {
    /// The commit's decision (see ``Decision``), its signature taken as verified.
    var decision: Decision { Decision(trailers: trailers) }
}
