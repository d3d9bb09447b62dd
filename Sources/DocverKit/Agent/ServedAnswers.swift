import Foundation
import Synchronization

// Answers the agent keeps for other processes besides the status: the documents (`ls`, the
// metadata query) and the conflicts (`conflicts`). Both depend on the repository alone, not on
// the working tree, so an answer computed for one state of the references is right for as
// long as they stay there: the client sends the references as it sees them (the key), and the
// agent answers only from an answer computed under the same key. On a miss the client works
// directly and the agent computes the answer for the next request.

extension ServedQuestion {
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
