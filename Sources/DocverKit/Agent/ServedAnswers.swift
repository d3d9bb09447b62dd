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
        case .documents: ServedWire.encode(try container.computeQuery(DocumentQuery()))
        case .conflicts: ServedWire.encode(try container.computeConflicts())
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
                                                     limit: ServedWire.limit, rememberingSilence: true),
              !answer.hasPrefix(#"{"unavailable""#) else { return nil }
        return Data(answer.utf8)
    }

    /// The documents as the running agent has them (see ``served(_:of:timeout:)``).
    static func servedDocuments(of container: Container) -> [MetadataItem]? {
        served(.documents, of: container).flatMap(ServedWire.decodeItems)
    }

    /// The conflicts as the running agent has them (see ``served(_:of:timeout:)``).
    static func servedConflicts(of container: Container) -> [Conflict]? {
        served(.conflicts, of: container).flatMap(ServedWire.decodeConflicts)
    }
}

/// The served answers' wire form: one record per line, fields separated by tabs, strings
/// escaped (`%`, tab, newline and carriage return as `%25`, `%09`, `%0A`, `%0D`), dates as the
/// bit pattern of their `Double` (exact). A text form the client splits in milliseconds where
/// decoding JSON of 10,000 documents took hundreds. Internal to the socket: never stored.
enum ServedWire {
    /// The longest answer a client reads (beyond it, it works directly).
    static let limit = 512 << 20
    static func escape(_ text: String) -> String {
        guard text.contains(where: { $0 == "%" || $0 == "\t" || $0 == "\n" || $0 == "\r" }) else { return text }
        return text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\t", with: "%09")
            .replacingOccurrences(of: "\n", with: "%0A").replacingOccurrences(of: "\r", with: "%0D")
    }

    static func unescape<S: StringProtocol>(_ text: S) -> String {
        // A byte search: `contains("%")` on a substring goes through Foundation's `range(of:)`.
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        return text.replacingOccurrences(of: "%09", with: "\t").replacingOccurrences(of: "%0A", with: "\n")
            .replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%25", with: "%")
    }

    static func date(_ date: Date) -> String { String(date.timeIntervalSinceReferenceDate.bitPattern, radix: 16) }

    static func date<S: StringProtocol>(_ text: S) -> Date? {
        UInt64(text, radix: 16).map { Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0)) }
    }

    /// 10 fields.
    static func fields(_ version: DocumentVersion) -> [String] {
        [version.id, escape(version.document.path), escape(version.device.id), escape(version.device.name), date(version.modified),
         String(version.size), version.kind.rawValue, version.isDeletion ? "1" : "0", version.commitID.hex, version.entryID?.hex ?? "-"]
    }

    static func version(_ fields: ArraySlice<Substring>) -> DocumentVersion? {
        guard fields.count == 10 else { return nil }
        let f = Array(fields)
        guard let modified = date(f[4]), let size = Int64(f[5]), let kind = DocumentKind(rawValue: String(f[6])),
              let commitID = ObjectID(hex: String(f[8])) else { return nil }
        var entryID: ObjectID?
        if f[9] != "-" {
            guard let id = ObjectID(hex: String(f[9])) else { return nil }
            entryID = id
        }
        return DocumentVersion(id: String(f[0]), document: DocumentPath(trusted: unescape(f[1])),
                               device: Device(unchecked: unescape(f[2]), name: unescape(f[3])), modified: modified,
                               size: size, kind: kind, isDeletion: f[7] == "1", commitID: commitID, entryID: entryID)
    }

    /// Split on bytes, not characters: a field that begins with a combining mark would join
    /// the tab before it into one character.
    static func lines(_ data: Data) -> [ArraySlice<Substring>] {
        // On an array, not on `Data`: splitting `Data` byte by byte was a tenth of a served
        // `docver conflicts` (exclusivity checks on every access).
        [UInt8](data).split(separator: 0x0A, omittingEmptySubsequences: true).map { line in
            ArraySlice(line.split(separator: 0x09, omittingEmptySubsequences: false).map { Substring(String(decoding: $0, as: UTF8.self)) })
        }
    }

    // Documents: one line each: document, created, uncommitted flags, then the current version.

    static func encode(_ items: [MetadataItem]) -> Data {
        var text = ""
        for item in items {
            let head = [escape(item.document.path), date(item.created), item.hasUnresolvedConflicts ? "1" : "0",
                        item.syncStatus.isUploaded ? "1" : "0", item.syncStatus.hasRemoteChanges ? "1" : "0"]
            text += (head + fields(item.current)).joined(separator: "\t") + "\n"
        }
        return Data(text.utf8)
    }

    static func decodeItems(_ data: Data) -> [MetadataItem]? {
        var items: [MetadataItem] = []
        for line in lines(data) {
            guard line.count == 15, let created = date(line[line.startIndex + 1]),
                  let current = version(line.dropFirst(5)) else { return nil }
            let start = line.startIndex
            items.append(MetadataItem(document: DocumentPath(trusted: unescape(line[start])), created: created, current: current,
                                      hasUnresolvedConflicts: line[start + 2] == "1",
                                      syncStatus: SyncStatus(isUploaded: line[start + 3] == "1", hasRemoteChanges: line[start + 4] == "1")))
        }
        return items
    }

    // Conflicts: a line `C document versions bases`, then `V` + the current version, one `V`
    // line per conflict version, and one `B key` line per base.

    static func encode(_ conflicts: [Conflict]) -> Data {
        var text = ""
        for conflict in conflicts {
            text += ["C", escape(conflict.document.path), String(conflict.conflicts.count), String(conflict.bases.count)].joined(separator: "\t") + "\n"
            for version in [conflict.current] + conflict.conflicts {
                text += (["V"] + fields(version)).joined(separator: "\t") + "\n"
            }
            for (key, base) in conflict.bases.sorted(by: { $0.key < $1.key }) {
                text += (["B", key] + fields(base)).joined(separator: "\t") + "\n"
            }
        }
        return Data(text.utf8)
    }

    static func decodeConflicts(_ data: Data) -> [Conflict]? {
        var result: [Conflict] = []
        var lines = lines(data)[...]
        while let header = lines.popFirst() {
            let start = header.startIndex
            guard header.count == 4, header[start] == "C", let count = Int(header[start + 2]), let baseCount = Int(header[start + 3]),
                  count >= 0, baseCount >= 0, lines.count >= 1 + count + baseCount else { return nil }
            var versions: [DocumentVersion] = []
            for _ in 0...count {
                guard let line = lines.popFirst(), line.first == "V", let version = version(line.dropFirst()) else { return nil }
                versions.append(version)
            }
            var bases: [String: DocumentVersion] = [:]
            for _ in 0..<baseCount {
                guard let line = lines.popFirst(), line.count == 12, line.first == "B",
                      let base = version(line.dropFirst(2)) else { return nil }
                bases[String(line[line.startIndex + 1])] = base
            }
            result.append(Conflict(document: DocumentPath(trusted: unescape(header[start + 1])), current: versions[0],
                                   conflicts: Array(versions.dropFirst()), bases: bases))
        }
        return result
    }
}
