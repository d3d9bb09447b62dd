import Foundation
import Synchronization

// Answers the agent keeps for other processes besides the status: the documents (`ls`, the
// metadata query) and the conflicts (`conflicts`). Both depend on the repository alone, not on
// the working tree, so an answer computed for one state of the references is right for as
// long as they stay there: the client sends the references as it sees them (the key), and the
// agent answers only from an answer computed under the same key. On a miss the client works
// directly and the agent computes the answer for the next request.

/// What a client may ask the agent besides the status.
enum ServedQuestion: String, CaseIterable, Sendable {
    /// Every document with its metadata (``Container/query(_:)`` without a filter). Key: every
    /// docver reference and its target (the head, and the tracking branches that decide
    /// "uploaded" and "remote changes").
    case documents
    /// Every document in conflict (``Container/conflicts(_:)``). Key: the head.
    case conflicts

    /// The key of the container's state now: nil when it has no saves yet.
    func key(of container: Container) throws -> String? {
        switch self {
        case .documents:
            // Ref names hold no spaces: one line, unambiguous.
            try container.referenceSignature().replacingOccurrences(of: "\n", with: " ")
        case .conflicts:
            try container.withRepository { try container.headCommit($0)?.hex }
        }
    }

    /// The answer, computed directly.
    func compute(in container: Container) throws -> Data {
        let encoder = JSONEncoder()
        switch self {
        case .documents: return try encoder.encode(try container.computeQuery(DocumentQuery()).map(ServedItem.init))
        case .conflicts: return try encoder.encode(try container.computeConflicts().map(ServedConflict.init))
        }
    }
}

/// The agent's answers, by question: computed on the agent's thread, read by the socket's.
/// Sendable: everything lives inside `Mutex`es.
final class ServedAnswers: Sendable {
    private struct Answer {
        var key: String
        var data: Data
    }
    private let answers = Mutex<[ServedQuestion: Answer]>([:])
    private let wanted = Mutex<Set<ServedQuestion>>([])

    /// The answer computed under `key`, or nil (the question is then wanted).
    func answer(_ question: ServedQuestion, key: String) -> Data? {
        if let answer = answers.withLock({ $0[question] }), answer.key == key { return answer.data }
        wanted.withLock { _ = $0.insert(question) }
        return nil
    }

    /// True when a client missed an answer since the last ``takeWanted()``.
    var hasWanted: Bool { wanted.withLock { !$0.isEmpty } }

    func takeWanted() -> Set<ServedQuestion> {
        wanted.withLock { wanted in
            defer { wanted = [] }
            return wanted
        }
    }

    func store(_ question: ServedQuestion, key: String, data: Data) {
        answers.withLock { $0[question] = Answer(key: key, data: data) }
    }

    func removeAll() { answers.withLock { $0 = [:] } }
}

extension Agent {
    /// `question`'s answer from the container's running agent when it has one for the
    /// references as they are now; nil otherwise (no agent, no answer yet, no reply within
    /// `timeout` milliseconds, or an answer this build cannot read): then work directly.
    static func served(_ question: ServedQuestion, of container: Container, timeout milliseconds: Int = 50) -> Data? {
        let socket = container.files.agentSocket
        guard FileStat(path: socket) != nil, let key = try? question.key(of: container) else { return nil }
        guard let answer = AgentSocketClient.request("\(question.rawValue) \(key)", path: socket, timeout: milliseconds),
              !answer.hasPrefix(#"{"unavailable""#) else { return nil }
        return Data(answer.utf8)
    }

    /// The documents as the running agent has them (see ``served(_:of:timeout:)``).
    static func servedDocuments(of container: Container) -> [MetadataItem]? {
        guard let data = served(.documents, of: container),
              let items = try? JSONDecoder().decode([ServedItem].self, from: data) else { return nil }
        return items.compactMap(\.item).count == items.count ? items.compactMap(\.item) : nil
    }

    /// The conflicts as the running agent has them (see ``served(_:of:timeout:)``).
    static func servedConflicts(of container: Container) -> [Conflict]? {
        guard let data = served(.conflicts, of: container),
              let conflicts = try? JSONDecoder().decode([ServedConflict].self, from: data) else { return nil }
        return conflicts.compactMap(\.conflict).count == conflicts.count ? conflicts.compactMap(\.conflict) : nil
    }
}

/// A ``DocumentVersion`` on the socket, with the ids the library keeps for it.
struct ServedVersion: Codable {
    var id: String
    var document: DocumentPath
    var device: Device
    var modified: Double
    var size: Int64
    var kind: DocumentKind
    var isDeletion: Bool
    var commit: String
    var entry: String?

    init(_ version: DocumentVersion) {
        id = version.id
        document = version.document
        device = version.device
        modified = version.modified.timeIntervalSinceReferenceDate
        size = version.size
        kind = version.kind
        isDeletion = version.isDeletion
        commit = version.commitID.hex
        entry = version.entryID?.hex
    }

    /// Nil when an id does not read.
    var version: DocumentVersion? {
        guard let commitID = ObjectID(hex: commit) else { return nil }
        var entryID: ObjectID?
        if let entry {
            guard let id = ObjectID(hex: entry) else { return nil }
            entryID = id
        }
        return DocumentVersion(id: id, document: document, device: device, modified: Date(timeIntervalSinceReferenceDate: modified),
                               size: size, kind: kind, isDeletion: isDeletion, commitID: commitID, entryID: entryID)
    }
}

/// A ``MetadataItem`` on the socket.
struct ServedItem: Codable {
    var document: DocumentPath
    var created: Double
    var current: ServedVersion
    var hasUnresolvedConflicts: Bool
    var syncStatus: SyncStatus

    init(_ item: MetadataItem) {
        document = item.document
        created = item.created.timeIntervalSinceReferenceDate
        current = ServedVersion(item.current)
        hasUnresolvedConflicts = item.hasUnresolvedConflicts
        syncStatus = item.syncStatus
    }

    var item: MetadataItem? {
        current.version.map {
            MetadataItem(document: document, created: Date(timeIntervalSinceReferenceDate: created), current: $0,
                         hasUnresolvedConflicts: hasUnresolvedConflicts, syncStatus: syncStatus)
        }
    }
}

/// A ``Conflict`` on the socket.
struct ServedConflict: Codable {
    var document: DocumentPath
    var current: ServedVersion
    var conflicts: [ServedVersion]
    var bases: [String: ServedVersion]

    init(_ conflict: Conflict) {
        document = conflict.document
        current = ServedVersion(conflict.current)
        conflicts = conflict.conflicts.map(ServedVersion.init)
        bases = conflict.bases.mapValues(ServedVersion.init)
    }

    var conflict: Conflict? {
        guard let current = current.version else { return nil }
        let versions = conflicts.compactMap(\.version)
        let bases = bases.compactMapValues(\.version)
        guard versions.count == conflicts.count, bases.count == self.bases.count else { return nil }
        return Conflict(document: document, current: current, conflicts: versions, bases: bases)
    }
}
