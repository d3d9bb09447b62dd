import Foundation

// The JSON shapes of docver's results: what the CLI prints under `--json` and what
// `docver serve` answers (docs/CLI.md, docs/PROTOCOL.md, docs/schemas). One type per shape,
// shared by both, so the two never drift apart. Field names and meanings are stable; new
// fields may be added.

/// A document version as JSON (`versions`, `conflicts`, `show` and more).
public struct VersionOutput: Encodable, Sendable {
    public let id: String
    public let document: String
    public let displayName: String
    public let device: String
    public let deviceName: String
    public let modified: Date
    /// null when the contents are not on this device (documents on demand).
    @NullWhenAbsent public var size: Int64?
    public let kind: String
    public let deleted: Bool
    public let conflict: Bool
    public let resolved: Bool

    public init(_ version: DocumentVersion, conflict: Bool = false, resolved: Bool = false) {
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

/// One document's change in a save (`save`, `status`, `log`).
public struct ChangeOutput: Codable, Sendable {
    public let document: String
    public let change: String

    public init(_ change: DocumentChange) {
        document = change.document.path
        self.change = change.change.rawValue
    }
}

/// One document in conflict (`conflicts`).
public struct ConflictOutput: Encodable, Sendable {
    public let document: String
    public let current: VersionOutput
    public let conflicts: [VersionOutput]
    public let base: VersionOutput?
    public let bases: [String: String]

    public init(_ conflict: Conflict) {
        document = conflict.document.path
        current = VersionOutput(conflict.current)
        conflicts = conflict.conflicts.map { VersionOutput($0, conflict: true) }
        base = conflict.base.map { VersionOutput($0) }
        bases = Dictionary(
            uniqueKeysWithValues: conflict.conflicts.compactMap { version in
                conflict.base(of: version).map { (version.id, $0.id) }
            })
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(document, forKey: .document)
        try container.encode(current, forKey: .current)
        try container.encode(conflicts, forKey: .conflicts)
        try container.encode(base, forKey: .base)  // null when there is no base, never missing
        try container.encode(bases, forKey: .bases)
    }

    enum CodingKeys: String, CodingKey { case document, current, conflicts, base, bases }
}

/// One document in `ls` and `watch`.
/// The documents `ls` answers: encoded as the array of their ``ItemOutput``s, and written in
/// parts by a server that can (``ProtocolServer``).
struct ItemList: Encodable, Sendable {
    let items: [MetadataItem]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(items.map(ItemOutput.init))
    }
}

public struct ItemOutput: Encodable, Equatable, Sendable {
    public let document: String
    public let name: String
    public let displayName: String
    public let type: String
    public let kind: String
    /// null when the contents are not on this device (documents on demand).
    @NullWhenAbsent public var size: Int64?
    public let created: Date
    public let modified: Date
    public let device: String
    public let deviceName: String
    public let version: String
    public let hasUnresolvedConflicts: Bool
    public let uploaded: Bool
    public let hasRemoteChanges: Bool
    /// `notDownloaded` (evicted), `downloaded` (here, a newer save fetched) or `current`.
    public let downloadStatus: String
    public let isDownloading: Bool
    public let percentDownloaded: Double

    public init(_ item: MetadataItem) {
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
        downloadStatus = item.downloadStatus.rawValue
        isDownloading = item.isDownloading
        percentDownloaded = item.percentDownloaded
    }
}

/// `status`: the documents changed since the last save, those in conflict, and the device.
public struct StatusOutput: Encodable, Sendable {
    public struct InConflict: Encodable, Sendable {
        public let document: String
        public let conflicts: Int
    }

    public let changed: [ChangeOutput]
    public let inConflict: [InConflict]
    public let device: String
    public let deviceName: String

    public init(_ status: ContainerStatus, device: Device) {
        changed = status.changed.map(ChangeOutput.init)
        inConflict = status.inConflict.map { InConflict(document: $0.document.path, conflicts: $0.conflicts) }
        self.device = device.id
        deviceName = device.name
    }
}

/// `versions`: a document's current version, conflict versions and history.
public struct VersionsOutput: Encodable, Sendable {
    public let document: String
    public let current: VersionOutput?
    public let conflicts: [VersionOutput]
    public let history: [VersionOutput]
    /// Versions a merge resolution (the current version or one in history) was made from
    /// that are listed nowhere else, newest first.
    public let merged: [VersionOutput]

    public init(document: DocumentPath, _ versions: DocumentVersions) {
        self.document = document.path
        current = VersionOutput(versions.current)
        conflicts =
            versions.unresolvedConflicts.map { VersionOutput($0, conflict: true) }
            + versions.resolvedConflicts.map { VersionOutput($0, conflict: true, resolved: true) }
        history = versions.history.map { VersionOutput($0) }
        merged = versions.merged.map { VersionOutput($0) }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(document, forKey: .document)
        try container.encode(current, forKey: .current)
        try container.encode(conflicts, forKey: .conflicts)
        try container.encode(history, forKey: .history)
        try container.encode(merged, forKey: .merged)
    }

    enum CodingKeys: String, CodingKey { case document, current, conflicts, history, merged }
}

/// `save`: the save made, or `null` with no changes when nothing changed.
public struct SaveOutput: Encodable, Sendable {
    public let save: String?
    public let changes: [ChangeOutput]

    public init(_ result: SaveResult?) {
        save = result?.id
        changes = result?.changes.map(ChangeOutput.init) ?? []
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(save, forKey: .save)  // null when nothing was saved, never missing
        try container.encode(changes, forKey: .changes)
    }

    enum CodingKeys: String, CodingKey { case save, changes }
}

/// `sync`, `integrate` and `clone` (with `container` and `device`).
public struct SyncOutput: Encodable, Sendable {
    /// A document's change (with `document`), or a key-value store value's (with `key`).
    public struct Change: Encodable, Sendable {
        public var document: String?
        public var key: String?
        public let kind: String
        public let current: String?
        public let version: String?
        public let summary: String
        public var renamedFrom: String?
        public var renamedHere: String?

        public init(_ change: DocumentSyncChange) {
            document = change.document.path
            kind = change.kind.rawValue
            current = change.current?.id
            version = change.version?.id
            summary = change.summary
            renamedFrom = change.renamedFrom?.path
            renamedHere = change.renamedHere?.path
        }

        public init(_ change: KeyValueSyncChange) {
            key = change.key
            kind = change.kind.rawValue
            current = change.currentVersion
            version = change.replacedVersion
            summary = change.summary
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(document, forKey: .document)
            try container.encodeIfPresent(key, forKey: .key)
            try container.encode(kind, forKey: .kind)
            try container.encode(current, forKey: .current)
            try container.encode(version, forKey: .version)
            try container.encode(summary, forKey: .summary)
            try container.encodeIfPresent(renamedFrom, forKey: .renamedFrom)
            try container.encodeIfPresent(renamedHere, forKey: .renamedHere)
        }

        enum CodingKeys: String, CodingKey { case document, key, kind, current, version, summary, renamedFrom, renamedHere }
    }

    /// A remote the sync could not complete with, and why.
    public struct Unreachable: Encodable, Sendable {
        public let remote: String
        public let error: String
    }

    public let savedBeforeSync: SaveOutput?
    public let integrated: Bool
    public let pushed: [String]
    public let changes: [Change]
    /// Documents a device with no saves yet received (a clone, a first sync), which `changes`
    /// does not list one by one (``SyncReport/receivedDocuments``).
    public let received: Int
    public let newConflicts: [String: [String]]
    public let warnings: [String]
    /// Remotes a sync could not complete with (the CLI then exits 1), and why.
    public let unreachable: [Unreachable]
    public var container: String?
    public var device: String?

    public init(_ report: SyncReport, container: Container? = nil) {
        savedBeforeSync = report.savedBeforeSync.map(SaveOutput.init)
        integrated = report.integrated
        pushed = report.pushed
        changes = report.documentChanges.map(Change.init) + report.keyValueChanges.map(Change.init)
        received = report.receivedDocuments
        // Foundation's JSON objects take two spellings of one name (NFC and NFD) for one key:
        // such documents share a key here (no version id is lost; `changes` names each one).
        newConflicts = Dictionary(report.newConflicts.sorted { $0.key < $1.key }.map { ($0.key.path, $0.value) }, uniquingKeysWith: +)
        warnings = report.warnings
        unreachable = report.unreachable.map { Unreachable(remote: $0.remote, error: $0.reason) }
        self.container = container?.root.path
        device = container?.device.id
    }

    public func encode(to encoder: Encoder) throws {
        var keyed = encoder.container(keyedBy: CodingKeys.self)
        try keyed.encode(savedBeforeSync, forKey: .savedBeforeSync)  // null when nothing was saved
        try keyed.encode(integrated, forKey: .integrated)
        try keyed.encode(pushed, forKey: .pushed)
        try keyed.encode(changes, forKey: .changes)
        try keyed.encode(received, forKey: .received)
        try keyed.encode(newConflicts, forKey: .newConflicts)
        try keyed.encode(warnings, forKey: .warnings)
        try keyed.encode(unreachable, forKey: .unreachable)
        try keyed.encodeIfPresent(container, forKey: .container)
        try keyed.encodeIfPresent(device, forKey: .device)
    }

    enum CodingKeys: String, CodingKey {
        case savedBeforeSync, integrated, pushed, changes, received, newConflicts, warnings, unreachable, container, device
    }
}

/// `restore`, `replace`, `mark-resolved` and `remove-other-versions`: the document and the
/// save that recorded the operation.
public struct DocumentSaveOutput: Encodable, Sendable {
    public let document: String
    public let save: String
    public let changes: [ChangeOutput]

    public init(_ document: DocumentPath, _ result: SaveResult) {
        self.document = document.path
        save = result.id
        changes = result.changes.map(ChangeOutput.init)
    }
}

/// `download`: docs/schemas/download.schema.json.
public struct DownloadOutput: Encodable, Sendable {
    /// The documents asked for; null with `--all`.
    public let documents: [String]?
    public let fetchedFiles: Int
    public let onDemand: Bool
    public let broughtBack: [String]

    public init(_ report: DownloadReport) {
        documents = report.documents?.map(\.path)
        fetchedFiles = report.fetchedFiles
        onDemand = report.onDemand
        broughtBack = report.broughtBack.map(\.path)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(documents, forKey: .documents)  // null, not absent, with --all
        try container.encode(fetchedFiles, forKey: .fetchedFiles)
        try container.encode(onDemand, forKey: .onDemand)
        try container.encode(broughtBack, forKey: .broughtBack)
    }

    private enum CodingKeys: String, CodingKey { case documents, fetchedFiles, onDemand, broughtBack }
}

/// `evict`: docs/schemas/evict.schema.json.
public struct EvictOutput: Encodable, Sendable {
    public let documents: [String]
    public let freedBytes: Int64
    public let discardedEdits: [String]
    public let keptUnsyncedVersions: Int

    public init(_ report: EvictionReport) {
        documents = report.documents.map(\.path)
        freedBytes = report.freedBytes
        discardedEdits = report.discardedEdits.map(\.path)
        keptUnsyncedVersions = report.keptUnsyncedVersions
    }
}

/// `resolve`: one document's outcome (a list of them on the CLI, one per document).
public struct ResolveOutput: Encodable, Sendable {
    public let document: String
    public let strategy: String
    public let outcome: String
    public let version: String?
    public let resolved: [String]
    public let removed: [String]
    public let save: String?
    public let dryRun: Bool
    public let error: String?

    /// `strategy`: the name to report when it differs from the one recorded (a merge tool's
    /// resolution is recorded as a merge and reported as `tool`).
    public init(_ outcome: ResolutionOutcome, of document: DocumentPath, strategy: String? = nil, dryRun: Bool) {
        self.document = document.path
        self.strategy = strategy ?? outcome.strategy
        switch outcome.resolution {
        case let .keep(kept): self.outcome = "keep"; version = kept.id
        case .merged: self.outcome = "merged"; version = nil
        case .mergedWithMarkers: self.outcome = "mergedWithMarkers"; version = nil
        }
        resolved = outcome.resolved
        removed = outcome.removed
        save = outcome.save
        self.dryRun = dryRun
        error = nil
    }

    public init(failure: DocverError, of document: DocumentPath, strategy: String, dryRun: Bool) {
        self.document = document.path
        self.strategy = strategy
        outcome = "failed"
        version = nil
        resolved = []
        removed = []
        save = nil
        self.dryRun = dryRun
        error = failure.description
    }
}

/// `show`: the version, and its contents (flat: the bytes as text when they are UTF-8,
/// always as Base64; package: the components; deletion: neither).
public struct ShowOutput: Encodable, Sendable {
    public struct Component: Encodable, Sendable {
        public let name: String
        public let size: Int
        public let base64: String
    }

    public let version: VersionOutput
    public let contents: String
    public let text: String?
    public let base64: String?
    public let components: [Component]

    public init(_ version: DocumentVersion, contents: DocumentContents) {
        self.version = VersionOutput(version)
        switch contents {
        case let .flat(data):
            self.contents = "flat"
            text = String(validating: data, as: UTF8.self)
            base64 = data.base64EncodedString()
            components = []
        case let .package(package):
            self.contents = "package"
            text = nil
            base64 = nil
            components = package.files.sorted { $0.key < $1.key }
                .map { Component(name: $0.key, size: $0.value.count, base64: $0.value.base64EncodedString()) }
        case .deleted:
            self.contents = "deleted"
            text = nil
            base64 = nil
            components = []
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(contents, forKey: .contents)
        try container.encode(text, forKey: .text)  // null unless a flat version in UTF-8
        try container.encode(base64, forKey: .base64)  // null unless a flat version
        try container.encode(components, forKey: .components)
    }

    enum CodingKeys: String, CodingKey { case version, contents, text, base64, components }
}

/// `diff`: the two versions compared and the unified diff.
public struct DiffOutput: Encodable, Sendable {
    /// One side of a diff: a version, the working copy, or nothing (a document not there).
    public enum Side: Encodable, Sendable {
        case version(VersionOutput)
        case named(String)

        public init(_ side: DiffSide) {
            switch side {
            case let .version(version): self = .version(VersionOutput(version))
            case .workingTree: self = .named("working copy")
            case .absent: self = .named("nothing")
            }
        }

        public func encode(to encoder: Encoder) throws {
            switch self {
            case let .version(version): try version.encode(to: encoder)
            case let .named(name):
                var container = encoder.singleValueContainer()
                try container.encode(name)
            }
        }
    }

    public let document: String
    public let from: Side
    public let to: Side
    public let patch: String

    public init(_ diff: DocumentDiff) {
        document = diff.document.path
        from = Side(diff.old)
        to = Side(diff.new)
        patch = diff.patch
    }
}

// MARK: The key-value store

/// A key-value store value as ordinary JSON (data as a Base64 string).
public struct KeyValueValueOutput: Encodable, Sendable {
    public let value: PropertyListValue

    public init(value: PropertyListValue) { self.value = value }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch value {
        case let .string(text): try container.encode(text)
        case let .data(data): try container.encode(data.base64EncodedString())
        case let .int(number): try container.encode(number)
        case let .double(number): try container.encode(number)
        case let .bool(flag): try container.encode(flag)
        case let .array(elements): try container.encode(elements.map(KeyValueValueOutput.init))
        case let .dictionary(members): try container.encode(members.mapValues(KeyValueValueOutput.init))
        }
    }
}

/// `kv get` and one entry of `kv ls`.
public struct KeyValueEntryOutput: Encodable, Sendable {
    public let key: String
    public let type: String
    public let value: KeyValueValueOutput

    public init(key: String, value: PropertyListValue) {
        self.key = key
        type = value.typeName
        self.value = KeyValueValueOutput(value: value)
    }
}

/// `kv set`: the value set and the save that recorded it (nil when the key had that value).
public struct KeyValueSetOutput: Encodable, Sendable {
    public let key: String
    public let type: String
    public let value: KeyValueValueOutput
    public let save: String?

    public init(key: String, value: PropertyListValue, save: String?) {
        self.key = key
        type = value.typeName
        self.value = KeyValueValueOutput(value: value)
        self.save = save
    }
}

/// `kv rm`: the key removed and the save that recorded it.
public struct KeyValueRemoveOutput: Encodable, Sendable {
    public let key: String
    public let save: String?

    public init(key: String, save: String?) {
        self.key = key
        self.save = save
    }
}

/// A failure as `--json` and the protocol report it (docs/schemas/error.schema.json): docver's
/// stable error code, the message and the hint (null when there is none), and under `--json`
/// the process's exit code. One type for the CLI's failure object, the protocol's error data
/// and a failed sync's notification, so the three cannot drift apart.
public struct FailureOutput: Encodable, Sendable {
    public let code: String
    /// The exit code: under `--json` only (a protocol error has none).
    public let exitCode: Int32?
    public let message: String
    public let hint: String?

    public init(code: String, exitCode: Int32? = nil, message: String, hint: String?) {
        self.code = code
        self.exitCode = exitCode
        self.message = message
        self.hint = hint
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encodeIfPresent(exitCode, forKey: .exitCode)
        try container.encode(message, forKey: .message)
        try container.encode(hint, forKey: .hint)  // null when there is none
    }

    enum CodingKeys: String, CodingKey { case code, exitCode, message, hint }
}

/// An optional field written as `null` when absent, not left out: the schemas list every
/// field as required, and a reader tells "unknown" from "missing".
@propertyWrapper
public struct NullWhenAbsent<Value: Encodable & Sendable & Equatable>: Encodable, Sendable, Equatable {
    public var wrappedValue: Value?
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}
