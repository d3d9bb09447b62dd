import DocverKit
import Foundation

// The --json contract. Field names and meanings are stable; new fields may be added.
// Documented in docs/CLI.md. The results shared with `docver serve` are DocverKit's
// (Sources/DocverKit/Protocol/Results.swift); the CLI's own shapes and text forms are here.

/// The text listing of `ls` and `watch`.
extension ItemOutput {
    /// The document's line in the text listing; '!' marks unresolved conflicts.
    var line: String {
        Self.line(
            conflicted: hasUnresolvedConflicts, kind: kind, size: size, evicted: downloadStatus == DownloadStatus.notDownloaded.rawValue,
            modified: Terminal.date(modified), deviceName: deviceName, document: document)
    }

    /// The text listing of `items`, one line each, as ``line`` writes them, without the JSON
    /// fields the text does not show; a date shared by many documents (one save) is written once.
    ///
    /// A line is its columns before the path, then the path: the columns are formatted once
    /// per distinct value (a listing of 10,000 documents has a handful of sizes, dates and
    /// devices), and the text is appended to in place.
    static func lines(_ items: [MetadataItem]) -> String {
        struct Columns: Hashable {
            var conflicted: Bool
            var kind: String
            var size: Int64?
            var evicted: Bool
            var modified: Date
            var deviceName: String
        }
        var formatted: [Columns: String] = [:]
        var dates: [Date: String] = [:]
        var text = ""
        text.reserveCapacity(items.count * 96)
        for item in items {
            let columns = Columns(
                conflicted: item.hasUnresolvedConflicts, kind: item.kind.rawValue, size: item.size, evicted: item.isEvicted,
                modified: item.contentChanged, deviceName: item.device.name)
            if let prefix = formatted[columns] {
                text += prefix
            } else {
                let date = dates[columns.modified] ?? Terminal.date(columns.modified)
                dates[columns.modified] = date
                // The line with an empty path is its columns, and two spaces.
                let prefix = line(
                    conflicted: columns.conflicted, kind: columns.kind, size: columns.size, evicted: columns.evicted,
                    modified: date, deviceName: columns.deviceName, document: "")
                // (At most a few thousand kept: a listing whose documents all differ in size
                // or date gains nothing from them.)
                if formatted.count < 4096 { formatted[columns] = prefix }
                text += prefix
            }
            text += item.path.path
            text += "\n"
        }
        return text
    }

    /// An evicted document's size column says so (its file is a placeholder).
    private static func line(
        conflicted: Bool, kind: String, size: Int64?, evicted: Bool, modified: String,
        deviceName: String, document: String
    ) -> String {
        let flag = conflicted ? Terminal.style.apply(.conflictMarker, "!") : " "
        let sizeText = evicted ? "evicted" : Terminal.size(size)
        return "\(flag) \(kind.padded(to: 7)) \(sizeText.padded(to: 10)) \(modified)  \(deviceName)  \(document)"
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
    /// `synced`: the documents a device with no saves received, counted, not listed.
    var received: Int?
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
            received = report.receivedDocuments
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
            text =
                "saved \(names.prefix(5).joined(separator: ", "))\(names.count > 5 ? " and \(names.count - 5) more" : "") as \(Terminal.shortID(version ?? ""))"
        case "synced":
            let changed = syncChanges?.count ?? 0
            let counts = [
                received.flatMap { $0 == 0 ? nil : "received " + Terminal.count($0, "document") },
                changed == 0 ? nil : Terminal.count(changed, "document") + " changed here",
            ].compactMap { $0 }
            text =
                "synced\(pushed.map { $0.isEmpty ? "" : " with \($0.joined(separator: ", "))" } ?? ""): "
                + (counts.isEmpty ? "nothing new here" : counts.joined(separator: ", "))
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
        case running, pid, started, online, offlineSince, lastError, pendingDocuments, watchedFolders, saves, lastSave, lastSync, subscribers,
            answering
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
