import Foundation

// docs/FORMAT.md, "Records": the trailer values of conflict and resolution records.

/// A conflict record (`Docver-Conflict: VERSION BASE PATH`): `version` of `path` lost to
/// another version when devices integrated.
struct ConflictRecord: Codable, Hashable {
    var path: String
    var version: String
    /// The common ancestor commit of the integration that recorded it (nil, written `-`: the
    /// document did not exist there). Records written before version 0.2 name the base
    /// version itself, which reads the same: a version commit is its own version.
    var base: String?

    /// The trailer that records it.
    var trailer: (key: String, value: String) {
        (Trailer.conflict, "\(version) \(base ?? "-") \(TrailerPath.encode(path))")
    }

    /// Parses a `Docver-Conflict` value; nil when it is malformed.
    init?(trailerValue value: String) {
        guard let fields = Self.fields(of: value), let path = TrailerPath.decode(String(fields.path)) else { return nil }
        self.init(path: path, version: String(fields.version), base: fields.base.map(String.init))
    }

    /// Whether a `Docver-Conflict` value parses, without making its strings (`log` counts the
    /// records of every integration it lists, thousands after a long offline period).
    static func isWellFormed(trailerValue value: String) -> Bool {
        var value = value
        if let known = value.withUTF8({ bytes -> Bool? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            // The fields `split(separator: " ", maxSplits: 2)` gives, on bytes: two words
            // (empty ones skipped), then the rest after one space.
            var index = 0
            var words: [Range<Int>] = []
            while words.count < 2 {
                while index < bytes.count, bytes[index] == 0x20 { index += 1 }
                let start = index
                while index < bytes.count, bytes[index] != 0x20 { index += 1 }
                guard index > start else { return false }
                words.append(start..<index)
            }
            guard index + 1 < bytes.count else { return false }
            let rest = UnsafeBufferPointer(rebasing: bytes[(index + 1)...])
            func isID(_ word: Range<Int>) -> Bool {
                word.count == 40 && bytes[word].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
            }
            guard isID(words[0]), (words[1].count == 1 && bytes[words[1].lowerBound] == 0x2D) || isID(words[1]) else { return false }
            return rest.contains(0x25) ? TrailerPath.decode(String(decoding: rest, as: UTF8.self)) != nil : true
        }) {
            return known
        }
        return ConflictRecord(trailerValue: value) != nil
    }

    /// The version, base and encoded path of a value whose ids are well formed.
    private static func fields(of value: String) -> (version: Substring, base: Substring?, path: Substring)? {
        // An integration can hold thousands of records: substrings until the record is known to
        // be valid, and ASCII split on bytes (the same fields; splitting on characters walks
        // grapheme boundaries, and a space followed by a combining mark is no separator).
        let fields =
            value.utf8.allSatisfy({ $0 < 0x80 })
            ? value.utf8.split(separator: 0x20, maxSplits: 2).map { Substring($0) }
            : value.split(separator: " ", maxSplits: 2)
        guard fields.count == 3, RecordID.isValid(fields[0]), fields[1] == "-" || RecordID.isValid(fields[1]) else { return nil }
        return (fields[0], fields[1] == "-" ? nil : fields[1], fields[2])
    }

    init(path: String, version: String, base: String?) {
        self.path = path
        self.version = version
        self.base = base
    }

    /// The version it names, without the base.
    var versionRecord: VersionRecord { VersionRecord(path: path, version: version) }

    // Paths are bytes (docs/FORMAT.md, "Names"): two spellings of one name are two records.
    static func == (lhs: ConflictRecord, rhs: ConflictRecord) -> Bool {
        lhs.version == rhs.version && lhs.base == rhs.base && lhs.path.bytesEqual(rhs.path)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ByteString(path))
        hasher.combine(version)
        hasher.combine(base)
    }
}

/// A record naming one version of one document (`KEY: VERSION PATH`): resolved, removed,
/// replaced or restored.
struct VersionRecord: Codable, Hashable {
    var path: String
    var version: String

    /// The trailer `key` recording it.
    func trailer(_ key: String) -> (key: String, value: String) {
        (key, "\(version) \(TrailerPath.encode(path))")
    }

    /// Parses a `VERSION PATH` value; nil when it is malformed.
    init?(trailerValue value: String) {
        // Split on the byte: a space followed by a combining mark is one character.
        let fields = value.utf8.split(separator: 0x20, maxSplits: 1, omittingEmptySubsequences: true).map { Substring($0) }
        guard fields.count == 2, RecordID.isValid(fields[0]), let path = TrailerPath.decode(String(fields[1])) else { return nil }
        self.init(path: path, version: String(fields[0]))
    }

    init(path: String, version: String) {
        self.path = path
        self.version = version
    }

    // Paths are bytes (docs/FORMAT.md, "Names"): two spellings of one name are two records.
    static func == (lhs: VersionRecord, rhs: VersionRecord) -> Bool {
        lhs.version == rhs.version && lhs.path.bytesEqual(rhs.path)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ByteString(path))
        hasher.combine(version)
    }
}

/// The version ids records name: a full commit id in lowercase hex.
enum RecordID {
    static func isValid(_ value: some StringProtocol) -> Bool {
        value.utf8.count == 40 && value.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// Which commits' records docver honours (docs/FORMAT.md, "Records from plain git").
///
/// Conflict records are written by the integrator only, so they count only in integration
/// commits; decision records (resolved, removed, replaced) only in docver's own saves and
/// resolutions: commits that name their device and were not made with plain `git commit`
/// (which the commit hook marks). A record in any other commit (typed by hand into a plain
/// `git commit`, or copied by a plain merge) is ignored, and the sync that brings it says so.
struct RecordTrust {
    private let isIntegration: Bool
    private let isDocverSave: Bool

    /// Reads once what the commit with these trailers is (so judging each of its records is
    /// constant time, however many it holds).
    /// `decisionsSigned`: false when the container requires signed decisions and the commit's
    /// signature does not verify (see ``SigningPolicy``).
    init(_ trailers: [(key: String, value: String)], decisionsSigned: Bool = true) {
        isIntegration = trailers.contains { $0.key == Trailer.integration }
        // A plain `git commit` marked by the commit hook names its device too: a save of that
        // device, but its decision records were typed by hand, not made by a resolution.
        isDocverSave =
            decisionsSigned && trailers.contains { $0.key == Trailer.device }
            && !trailers.contains { $0.key == Trailer.plainCommit }
    }

    /// (docs/MODEL.md: R25, R26.)
    func honours(_ key: String) -> Bool {
        switch key {
        case Trailer.conflict: isIntegration
        case Trailer.resolved, Trailer.removed, Trailer.replaced: isDocverSave
        default: true
        }
    }
}

extension Commit {
    /// The commit message's trailers; a long message's are parsed once per repository handle.
    var trailers: [(key: String, value: String)] {
        if let known = repository.parsedTrailers[id] { return known }
        let parsed = CommitMessage.trailers(of: message)
        if messageLength > 4096 {
            GitWorkCounter.countLongMessageParse()
            if repository.parsedTrailers.count >= Repository.parsedTrailersLimit { repository.parsedTrailers.removeAll() }
            repository.parsedTrailers[id] = parsed
        }
        return parsed
    }

    /// The version records of the trailers named `key`.
    func records(_ key: String) -> [VersionRecord] {
        trailers.compactMap { $0.key == key ? VersionRecord(trailerValue: $0.value) : nil }
    }

    /// The conflict records of the commit.
    var conflictRecords: [ConflictRecord] {
        trailers.compactMap { $0.key == Trailer.conflict ? ConflictRecord(trailerValue: $0.value) : nil }
    }
}

extension [(key: String, value: String)] {
    /// How many well-formed conflict records these trailers hold (`conflictRecords.count`).
    var conflictRecordCount: Int {
        reduce(0) { $0 + ($1.key == Trailer.conflict && ConflictRecord.isWellFormed(trailerValue: $1.value) ? 1 : 0) }
    }
}
