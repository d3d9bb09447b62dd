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

    /// Adds the records among one commit's trailers; other trailers and malformed records
    /// are ignored.
    mutating func absorb(_ trailers: [(key: String, value: String)]) {
        for trailer in trailers {
            switch trailer.key {
            case Trailer.conflict: ConflictRecord(trailerValue: trailer.value).map { _ = conflicts.insert($0) }
            case Trailer.resolved: VersionRecord(trailerValue: trailer.value).map { _ = resolved.insert($0) }
            case Trailer.removed: VersionRecord(trailerValue: trailer.value).map { _ = removed.insert($0) }
            default: break
            }
        }
    }

    /// The union of two states: what either has seen.
    mutating func merge(_ other: ConflictState) {
        conflicts.formUnion(other.conflicts)
        resolved.formUnion(other.resolved)
        removed.formUnion(other.removed)
    }

    /// Conflict records neither resolved nor removed, by document.
    func unresolvedByDocument() -> [DocumentPath: [ConflictRecord]] {
        Dictionary(grouping: conflicts.filter { record in
            !resolved.contains(record.versionRecord) && !removed.contains(record.versionRecord)
        }, by: { DocumentPath(trusted: $0.path) })
    }

    /// Conflict records resolved but not removed, by document.
    func resolvedByDocument() -> [DocumentPath: [ConflictRecord]] {
        Dictionary(grouping: conflicts.filter { record in
            resolved.contains(record.versionRecord) && !removed.contains(record.versionRecord)
        }, by: { DocumentPath(trusted: $0.path) })
    }

    /// The same sets, ignoring the head the state was read at.
    func sameRecords(as other: ConflictState) -> Bool {
        conflicts == other.conflicts && resolved == other.resolved && removed == other.removed
    }
}
