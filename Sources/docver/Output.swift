import DocverKit
import Foundation

// The --json contract. Field names and meanings are stable; new fields may be added.
// Documented in docs/CLI.md.

struct VersionOutput: Encodable {
    let id: String
    let document: String
    let displayName: String
    let device: String
    let deviceName: String
    let modified: Date
    let size: Int64
    let kind: String
    let deleted: Bool
    let conflict: Bool
    let resolved: Bool

    init(_ version: DocumentVersion, conflict: Bool = false, resolved: Bool = false) {
        id = version.id
        document = version.document.path
        displayName = version.displayName
        device = version.device.id
        deviceName = version.device.name
        modified = version.modified
        size = version.size
        kind = version.kind.rawValue
        deleted = version.isDeletion
        self.conflict = conflict
        self.resolved = resolved
    }
}

struct ChangeOutput: Encodable {
    let document: String
    let change: String
    init(_ change: DocumentChange) {
        document = change.document.path
        self.change = change.change.rawValue
    }
}

struct ConflictOutput: Encodable {
    let document: String
    let current: VersionOutput
    let conflicts: [VersionOutput]
    let base: VersionOutput?
    let bases: [String: String]

    init(_ conflict: Conflict) {
        document = conflict.document.path
        current = VersionOutput(conflict.current)
        conflicts = conflict.conflicts.map { VersionOutput($0, conflict: true) }
        base = conflict.base.map { VersionOutput($0) }
        bases = Dictionary(uniqueKeysWithValues: conflict.conflicts.compactMap { version in
            conflict.base(of: version).map { (version.id, $0.id) }
        })
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(document, forKey: .document)
        try container.encode(current, forKey: .current)
        try container.encode(conflicts, forKey: .conflicts)
        try container.encode(base, forKey: .base) // null when there is no base, never missing
        try container.encode(bases, forKey: .bases)
    }

    enum CodingKeys: String, CodingKey { case document, current, conflicts, base, bases }
}

/// One document in `ls --json` and `watch --json`.
struct ItemOutput: Encodable, Equatable {
    let document: String
    let name: String
    let displayName: String
    let type: String
    let kind: String
    let size: Int64
    let created: Date
    let modified: Date
    let device: String
    let deviceName: String
    let version: String
    let hasUnresolvedConflicts: Bool
    let uploaded: Bool
    let hasRemoteChanges: Bool

    init(_ item: MetadataItem) {
        document = item.path.path
        name = item.name
        displayName = item.displayName
        type = item.type
        kind = item.kind.rawValue
        size = item.size
        created = item.created
        modified = item.contentChanged
        device = item.device.id
        deviceName = item.device.name
        version = item.version
        hasUnresolvedConflicts = item.hasUnresolvedConflicts
        uploaded = item.syncStatus.isUploaded
        hasRemoteChanges = item.syncStatus.hasRemoteChanges
    }

    /// The document's line in the text listing; '!' marks unresolved conflicts.
    var line: String {
        let flag = hasUnresolvedConflicts ? "!" : " "
        return "\(flag) \(kind.padded(to: 7)) \(Terminal.size(size).padded(to: 10)) \(Terminal.date(modified))  \(deviceName)  \(document)"
    }
}
