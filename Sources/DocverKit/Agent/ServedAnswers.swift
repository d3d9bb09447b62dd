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
        switch self {
        case .documents: ListingText.encode(try container.computeQuery(DocumentQuery()))
        case .conflicts: ListingText.encode(try container.computeConflicts())
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
    static func served(_ question: ServedQuestion, of container: Container,
                       timeout milliseconds: Int = 20) -> Data? {
        let socket = container.files.agentSocket
        guard container.asksAgent, FileStat(path: socket) != nil, !AgentSocketClient.isRememberedSilent(socket),
              let key = try? question.key(of: container) else { return nil }
        guard let answer = AgentSocketClient.request("\(question.rawValue) \(key)", path: socket, timeout: milliseconds,
                                                     limit: ListingText.limit, rememberingSilence: true),
              !answer.hasPrefix(#"{"unavailable""#) else { return nil }
        return Data(answer.utf8)
    }

    /// The documents as the running agent has them (see ``served(_:of:timeout:)``).
    static func servedDocuments(of container: Container) -> [MetadataItem]? {
        served(.documents, of: container).flatMap(ListingText.decodeItems)
    }

    /// The conflicts as the running agent has them (see ``served(_:of:timeout:)``).
    static func servedConflicts(of container: Container) -> [Conflict]? {
        served(.conflicts, of: container).flatMap(ListingText.decodeConflicts)
    }
}
