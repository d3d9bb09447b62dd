import Foundation

// The client side of the answers a running agent keeps for other processes (the agent side:
// Agent/ServedAnswers.swift). Here, below the rooms that ask (status, conflicts, the
// listing), so that none of them depends on the agent: a question, its key (the state of the
// references it depends on), and one request over the agent's socket.

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
}

extension Container {
    /// `question`'s answer from the container's running agent when it has one for the
    /// references as they are now; nil otherwise (no agent, no answer yet, no reply within
    /// `timeout` milliseconds, or an answer this build cannot read): then work directly.
    func served(_ question: ServedQuestion, timeout milliseconds: Int = 20) -> Data? {
        let socket = files.agentSocket
        guard asksAgent, FileStat(path: socket) != nil, !SocketClient.isRememberedSilent(socket),
            let key = try? question.key(of: self)
        else { return nil }
        guard
            let answer = SocketClient.request(
                "\(question.rawValue) \(key)", path: socket, timeout: milliseconds,
                limit: ListingText.limit, rememberingSilence: true),
            !answer.hasPrefix(#"{"unavailable""#)
        else { return nil }
        return Data(answer.utf8)
    }

    /// The documents as the running agent has them (see ``served(_:timeout:)``).
    func servedDocuments() -> [MetadataItem]? {
        served(.documents).flatMap { ListingText.decodeItems($0) }
    }

    /// The conflicts as the running agent has them (see ``served(_:timeout:)``).
    func servedConflicts() -> [Conflict]? {
        served(.conflicts).flatMap(ListingText.decodeConflicts)
    }
}
