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

struct ChangeOutput: Codable {
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
        Self.line(conflicted: hasUnresolvedConflicts, kind: kind, size: size, modified: Terminal.date(modified),
                  deviceName: deviceName, document: document)
    }

    /// The text listing of `items`, one line each, as ``line`` writes them, without the JSON
    /// fields the text does not show; a date shared by many documents (one save) is written once.
    static func lines(_ items: [MetadataItem]) -> String {
        var dates: [Date: String] = [:]
        var text = ""
        for item in items {
            let modified = item.contentChanged
            let date = dates[modified] ?? Terminal.date(modified)
            dates[modified] = date
            text += line(conflicted: item.hasUnresolvedConflicts, kind: item.kind.rawValue, size: item.size, modified: date,
                         deviceName: item.device.name, document: item.path.path)
            text += "\n"
        }
        return text
    }

    private static func line(conflicted: Bool, kind: String, size: Int64, modified: String,
                             deviceName: String, document: String) -> String {
        let flag = conflicted ? Terminal.style.apply(.conflictMarker, "!") : " "
        return "\(flag) \(kind.padded(to: 7)) \(Terminal.size(size).padded(to: 10)) \(modified)  \(deviceName)  \(document)"
    }
}

/// One line of `agent --json` (and of .git/docver/agent.log): `event` and `time` always,
/// the other fields by event (docs/AGENT.md).
struct AgentEventOutput: Codable {
    struct SyncChange: Codable {
        let document: String
        let kind: String
    }

    let event: String
    let time: Date
    var pid: Int32?
    var folders: Int?
    var reason: String?
    var documents: Int?
    var version: String?
    var changes: [ChangeOutput]?
    var integrated: Bool?
    var pushed: [String]?
    var syncChanges: [SyncChange]?
    var document: String?
    var versions: [String]?
    var yoursLost: Bool?
    var since: Date?
    var retryIn: Double?
    var offlineSince: Date?
    var message: String?

    init(_ event: AgentEvent) {
        time = event.date
        switch event.kind {
        case let .started(pid, folders):
            self.event = "started"
            self.pid = pid
            self.folders = folders
        case let .scanned(reason, documents):
            self.event = "scanned"
            self.reason = reason.rawValue
            self.documents = documents
        case let .saved(result):
            self.event = "saved"
            version = result.id
            changes = result.changes.map(ChangeOutput.init)
        case let .synced(report):
            self.event = "synced"
            integrated = report.integrated
            pushed = report.pushed
            syncChanges = report.documentChanges.map { SyncChange(document: $0.document.path, kind: $0.kind.rawValue) }
        case let .conflict(document, versions, yoursLost):
            self.event = "conflict"
            self.document = document.path
            self.versions = versions
            self.yoursLost = yoursLost
        case let .offline(since, reason, retryIn):
            self.event = "offline"
            self.since = since
            self.reason = reason
            self.retryIn = Double(retryIn.components.seconds) + Double(retryIn.components.attoseconds) / 1e18
        case let .online(offlineSince):
            self.event = "online"
            self.offlineSince = offlineSince
        case let .warning(message):
            self.event = "warning"
            self.message = message
        case .stopped:
            self.event = "stopped"
        }
    }

    /// The human form: the local time and one sentence.
    var line: String {
        let text: String
        switch event {
        case "started": text = "agent started (pid \(pid ?? 0)), watching \(Terminal.count(folders ?? 0, "folder"))"
        case "scanned": text = "scanned the working tree (\(reason ?? "")): \(Terminal.count(documents ?? 0, "document")) to save"
        case "saved":
            let names = (changes ?? []).map(\.document)
            text = "saved \(names.prefix(5).joined(separator: ", "))\(names.count > 5 ? " and \(names.count - 5) more" : "") as \(Terminal.shortID(version ?? ""))"
        case "synced":
            let changed = syncChanges?.count ?? 0
            text = "synced\(pushed.map { $0.isEmpty ? "" : " with \($0.joined(separator: ", "))" } ?? ""): "
                + (changed == 0 ? "nothing new here" : Terminal.count(changed, "document") + " changed here")
        case "conflict":
            text = "conflict: \(document ?? "") has a new conflict version" + (yoursLost == true ? " (yours)" : "")
        case "offline":
            text = "offline since \(Terminal.date(since ?? time)) (\(reason ?? "")); retrying in \(Int((retryIn ?? 0).rounded(.up))) s"
        case "online": text = "online again (offline since \(Terminal.date(offlineSince ?? time)))"
        case "warning": text = "warning: \(message ?? "")"
        default: text = "agent stopped"
        }
        return "\(Terminal.timestamp(time))  \(DocverError.printable(text))"
    }
}

/// `agent status --json`: `running` always; the agent's own status fields when it answers.
struct AgentStatusOutput: Encodable {
    struct DocumentConflicts: Encodable {
        let document: String
        /// Its unresolved conflict versions.
        let versions: Int
    }

    let running: Bool
    let pid: Int32?
    let status: AgentStatus?
    /// The container's remotes, by name.
    let remotes: [String]
    /// The documents with unresolved conflicts.
    let conflicts: [DocumentConflicts]

    enum CodingKeys: String, CodingKey {
        case running, pid, started, online, offlineSince, lastError, pendingDocuments, watchedFolders, saves, lastSave, lastSync, subscribers, answering
        case remotes, conflicts
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(running, forKey: .running)
        try container.encodeIfPresent(pid, forKey: .pid)
        try container.encode(remotes, forKey: .remotes)
        try container.encode(conflicts, forKey: .conflicts)
        guard running else { return }
        try container.encode(status != nil, forKey: .answering)
        guard let status else { return }
        try container.encode(status.started, forKey: .started)
        try container.encode(status.online, forKey: .online)
        try container.encode(status.offlineSince, forKey: .offlineSince)
        try container.encode(status.lastError, forKey: .lastError)
        try container.encode(status.pendingDocuments, forKey: .pendingDocuments)
        try container.encode(status.watchedFolders, forKey: .watchedFolders)
        try container.encode(status.saves, forKey: .saves)
        try container.encode(status.lastSave, forKey: .lastSave)
        try container.encode(status.lastSync, forKey: .lastSync)
        try container.encode(status.subscribers, forKey: .subscribers)
    }
}

// MARK: The results of commands that change or print one thing (docs/CLI.md, docs/schemas)

/// `save --json`: the save made, or `null` with no changes when nothing changed.
struct SaveOutput: Encodable {
    let save: String?
    let changes: [ChangeOutput]

    init(_ result: SaveResult?) {
        save = result?.id
        changes = result?.changes.map(ChangeOutput.init) ?? []
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(save, forKey: .save) // null when nothing was saved, never missing
        try container.encode(changes, forKey: .changes)
    }

    enum CodingKeys: String, CodingKey { case save, changes }
}

/// `sync --json`, `integrate --json` and `clone --json` (with `container` and `device`).
struct SyncOutput: Encodable {
    /// A document's change (with `document`), or a key-value store value's (with `key`).
    struct Change: Encodable {
        var document: String?
        var key: String?
        let kind: String
        let current: String?
        let version: String?
        let summary: String
        var renamedFrom: String?
        var renamedHere: String?

        init(_ change: DocumentSyncChange) {
            document = change.document.path
            kind = change.kind.rawValue
            current = change.current?.id
            version = change.version?.id
            summary = change.summary
            renamedFrom = change.renamedFrom?.path
            renamedHere = change.renamedHere?.path
        }

        init(_ change: KeyValueSyncChange) {
            key = change.key
            kind = change.kind.rawValue
            current = change.currentVersion
            version = change.replacedVersion
            summary = change.summary
        }

        func encode(to encoder: Encoder) throws {
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

    let savedBeforeSync: SaveOutput?
    let integrated: Bool
    let pushed: [String]
    let changes: [Change]
    let newConflicts: [String: [String]]
    let warnings: [String]
    /// Remotes a sync could not complete with (it then exits 1), and why.
    let unreachable: [Unreachable]
    var container: String?
    var device: String?

    struct Unreachable: Encodable {
        let remote: String
        let error: String
    }

    init(_ report: SyncReport, container: Container? = nil) {
        savedBeforeSync = report.savedBeforeSync.map(SaveOutput.init)
        integrated = report.integrated
        pushed = report.pushed
        changes = report.documentChanges.map(Change.init) + report.keyValueChanges.map(Change.init)
        // Foundation's JSON objects take two spellings of one name (NFC and NFD) for one key:
        // such documents share a key here (no version id is lost; `changes` names each one).
        newConflicts = Dictionary(report.newConflicts.sorted { $0.key < $1.key }.map { ($0.key.path, $0.value) }, uniquingKeysWith: +)
        warnings = report.warnings
        unreachable = report.unreachable.map { Unreachable(remote: $0.remote, error: $0.reason) }
        self.container = container?.root.path
        device = container?.device.id
    }

    func encode(to encoder: Encoder) throws {
        var keyed = encoder.container(keyedBy: CodingKeys.self)
        try keyed.encode(savedBeforeSync, forKey: .savedBeforeSync) // null when nothing was saved
        try keyed.encode(integrated, forKey: .integrated)
        try keyed.encode(pushed, forKey: .pushed)
        try keyed.encode(changes, forKey: .changes)
        try keyed.encode(newConflicts, forKey: .newConflicts)
        try keyed.encode(warnings, forKey: .warnings)
        try keyed.encode(unreachable, forKey: .unreachable)
        try keyed.encodeIfPresent(container, forKey: .container)
        try keyed.encodeIfPresent(device, forKey: .device)
    }

    enum CodingKeys: String, CodingKey {
        case savedBeforeSync, integrated, pushed, changes, newConflicts, warnings, unreachable, container, device
    }
}

/// `restore`, `replace`, `mark-resolved` and `remove-other-versions` with `--json`: the
/// document and the save that recorded the operation.
struct DocumentSaveOutput: Encodable {
    let document: String
    let save: String
    let changes: [ChangeOutput]

    init(_ document: DocumentPath, _ result: SaveResult) {
        self.document = document.path
        save = result.id
        changes = result.changes.map(ChangeOutput.init)
    }
}

/// `show --json`: the version, and its contents (flat: the bytes as text when they are UTF-8,
/// always as Base64; package: the components; deletion: neither).
struct ShowOutput: Encodable {
    struct Component: Encodable {
        let name: String
        let size: Int
        let base64: String
    }

    let version: VersionOutput
    let contents: String
    let text: String?
    let base64: String?
    let components: [Component]

    init(_ version: DocumentVersion, contents: DocumentContents) {
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

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(contents, forKey: .contents)
        try container.encode(text, forKey: .text) // null unless a flat version in UTF-8
        try container.encode(base64, forKey: .base64) // null unless a flat version
        try container.encode(components, forKey: .components)
    }

    enum CodingKeys: String, CodingKey { case version, contents, text, base64, components }
}

/// `diff --json`: the two versions compared and the unified diff.
struct DiffOutput: Encodable {
    /// One side of a diff: a version, the working copy, or nothing (a document not there).
    enum Side: Encodable {
        case version(VersionOutput)
        case named(String)

        init(_ side: DiffSide) {
            switch side {
            case let .version(version): self = .version(VersionOutput(version))
            case .workingTree: self = .named("working copy")
            case .absent: self = .named("nothing")
            }
        }

        func encode(to encoder: Encoder) throws {
            switch self {
            case let .version(version): try version.encode(to: encoder)
            case let .named(name):
                var container = encoder.singleValueContainer()
                try container.encode(name)
            }
        }
    }

    let document: String
    let from: Side
    let to: Side
    let patch: String

    init(_ diff: DocumentDiff) {
        document = diff.document.path
        from = Side(diff.old)
        to = Side(diff.new)
        patch = diff.patch
    }
}

/// `init --json`.
struct InitOutput: Encodable {
    let container: String
    let device: String
    let deviceName: String
}

/// `agent start --json` and `agent stop --json`.
struct AgentControlOutput: Encodable {
    /// True when this command started (or stopped) the agent; false when it was already so.
    let changed: Bool
    let running: Bool
    let pid: Int32?
    let log: String?

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(changed, forKey: .changed)
        try container.encode(running, forKey: .running)
        try container.encode(pid, forKey: .pid)
        try container.encodeIfPresent(log, forKey: .log)
    }

    enum CodingKeys: String, CodingKey { case changed, running, pid, log }
}

