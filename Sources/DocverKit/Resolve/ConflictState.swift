import Foundation

/// The conflict records reachable from one head: three grow-only sets, so any two devices
/// holding the same history hold the same state, whatever order it arrived in.
///
/// A pure value: ``absorb(_:)`` takes trailers, ``merge(_:)`` joins two states, and both are
/// order-independent and idempotent (unit-tested in ConflictStateTests).
struct ConflictState: Codable, Equatable {
    /// The head this state was read at (a cache key; not part of the algebra).
    var head: String?
    var conflicts: Set<ConflictRecord> = []
    var resolved: Set<VersionRecord> = []
    var removed: Set<VersionRecord> = []
    /// The versions merges made with plain git set aside (each also in `conflicts` and
    /// `resolved`): what tells a git user's resolution from docver's own.
    var setAside: Set<VersionRecord> = []

    /// Records read but not honoured: in a commit docver does not honour them in (see
    /// ``RecordTrust``), or naming a version that is not in the repository. Not part of the
    /// algebra as the other sets are (grow-only, so idempotent and order-independent); a sync
    /// that adds to it warns.
    var ignored: Set<String> = []

    /// Adds the records among one commit's trailers. Malformed records, records in a commit
    /// that may not carry them, and records naming a version of a document that `exists`
    /// denies are ignored.
    /// (docs/MODEL.md: R14, R27.)
    mutating func absorb(
        _ trailers: [(key: String, value: String)], decisionsSigned: Bool = true,
        exists: (_ version: String, _ path: String) throws -> Bool
    ) rethrows {
        // R25: conflict records count only in integrations.
        let trust = RecordTrust(trailers, decisionsSigned: decisionsSigned)
        for trailer in trailers where trailer.key == Trailer.conflict {
            guard trust.honours(trailer.key), let record = ConflictRecord(trailerValue: trailer.value),
                try exists(record.version, record.path)
            else {
                ignored.insert("\(trailer.key): \(trailer.value)"); continue
            }
            conflicts.insert(record)
        }
        // R26, R27: decision records count only in docver's own saves and resolutions, and
        // only when they name a version of their document. (A replace closes no conflict.)
        let decision = Decision(trailers: trailers, decisionsSigned: decisionsSigned)
        for record in decision.ignored where record.kind != .replaced { ignored.insert(record.text) }
        for record in decision.records where record.kind != .replaced {
            guard try exists(record.version.version, record.version.path) else { ignored.insert(record.text); continue }
            if record.kind == .resolved { resolved.insert(record.version) } else { removed.insert(record.version) }
        }
    }

    /// Adds the records among one commit's trailers, taking every version they name to exist.
    mutating func absorb(_ trailers: [(key: String, value: String)]) {
        absorb(trailers, exists: { _, _ in true })
    }

    /// Adds what a merge made with plain git set aside: each version is recorded as a
    /// conflict version and resolved at once, as a resolution by the git user would.
    mutating func absorb(setAside records: [ConflictRecord]) {
        for record in records {
            conflicts.insert(record)
            resolved.insert(record.versionRecord)
            setAside.insert(record.versionRecord)
        }
    }

    /// The union of two states: what either has seen.
    mutating func merge(_ other: ConflictState) {
        ignored.formUnion(other.ignored)
        setAside.formUnion(other.setAside)
        conflicts.formUnion(other.conflicts)
        resolved.formUnion(other.resolved)
        removed.formUnion(other.removed)
    }

    /// Conflict records neither resolved nor removed, by document.
    /// (docs/MODEL.md: R28.)
    func unresolvedByDocument() -> [DocumentPath: [ConflictRecord]] {
        Dictionary(
            grouping: conflicts.filter { record in
                !resolved.contains(record.versionRecord) && !removed.contains(record.versionRecord)
            }, by: { DocumentPath(trusted: $0.path) })
    }

    /// Conflict records resolved but not removed, by document.
    func resolvedByDocument() -> [DocumentPath: [ConflictRecord]] {
        Dictionary(
            grouping: conflicts.filter { record in
                resolved.contains(record.versionRecord) && !removed.contains(record.versionRecord)
            }, by: { DocumentPath(trusted: $0.path) })
    }

    /// The signing rule the state was computed under (``SigningPolicy/key``; nil: none).
    var trust: String?

    private enum CodingKeys: String, CodingKey { case format, head, conflicts, resolved, removed, ignored, setAside, trust }

    /// The cache's format: a cache of another format is rebuilt from history, not extended.
    /// 2: plain merges set aside a side's explicit decision (a resolution that kept a state).
    /// 3: plain merges of new content set aside a side whose changes they do not hold; typed
    /// decisions in plain commits are ignored.
    static let currentFormat = 3
    private(set) var format = ConflictState.currentFormat

    init(
        head: String? = nil, conflicts: Set<ConflictRecord> = [], resolved: Set<VersionRecord> = [],
        removed: Set<VersionRecord> = [], ignored: Set<String> = [], setAside: Set<VersionRecord> = []
    ) {
        self.head = head
        self.conflicts = conflicts
        self.resolved = resolved
        self.removed = removed
        self.ignored = ignored
        self.setAside = setAside
    }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decode(Int.self, forKey: .format)
        guard format == Self.currentFormat else {
            throw DecodingError.dataCorruptedError(forKey: .format, in: container, debugDescription: "cache of format \(format)")
        }
        head = try container.decodeIfPresent(String.self, forKey: .head)
        conflicts = try container.decode(Set<ConflictRecord>.self, forKey: .conflicts)
        resolved = try container.decode(Set<VersionRecord>.self, forKey: .resolved)
        removed = try container.decode(Set<VersionRecord>.self, forKey: .removed)
        // Required: a cache written before records were validated is rebuilt, not trusted.
        ignored = try container.decode(Set<String>.self, forKey: .ignored)
        // Required too: a cache written before set-aside versions were told apart is rebuilt.
        setAside = try container.decode(Set<VersionRecord>.self, forKey: .setAside)
        trust = try container.decodeIfPresent(String.self, forKey: .trust)
    }

    /// The same sets, ignoring the head the state was read at.
    func sameRecords(as other: ConflictState) -> Bool {
        conflicts == other.conflicts && resolved == other.resolved && removed == other.removed && setAside == other.setAside
    }
}
