import Foundation

// docs/FORMAT.md, "Commit messages": the subject, the body, and the trailer paragraph.

/// The git trailers docver writes into commit messages. They are docver's only metadata:
/// saves, integrations and resolutions are all plain commits on device branches.
enum Trailer {
    static let device = "Docver-Device"
    static let deviceName = "Docver-Device-Name"
    static let integration = "Docver-Integration"
    static let conflict = "Docver-Conflict"
    static let resolved = "Docver-Resolved"
    static let removed = "Docver-Removed"
    static let restored = "Docver-Restored"
    static let replaced = "Docver-Replaced"
    static let strategy = "Docver-Strategy"
    /// Marks a plain `git commit` made through docver's commit hook: a save of the device,
    /// whose decision records (typed by hand) docver does not honour.
    static let plainCommit = "Docver-Plain-Commit"

    /// The trailers that record something about one document (`VERSION PATH` values, the
    /// conflict record with its base between them).
    static let documentRecords = [conflict, resolved, removed, replaced, restored]

    // The records that are a device's explicit decision: ``Decision/Kind``.
}

/// A commit message in docver's format: subject, body lines, then one paragraph of trailers.
struct CommitMessage {
    var subject: String
    var body: [String] = []
    var trailers: [(key: String, value: String)] = []

    /// A save's message: the subject, the user's further lines, one `change: path` line per
    /// document, then the device trailers and any records.
    static func save(
        subject: String, changes: [DocumentChange], device: Device,
        records: [(key: String, value: String)] = []
    ) -> CommitMessage {
        var message = CommitMessage(subject: subject)
        if subject.contains("\n") {
            let lines = subject.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            message.subject = lines[0]
            message.body = Array(lines.dropFirst().drop(while: \.isEmpty))
            if !message.body.isEmpty { message.body.append("") }
        }
        message.body += changes.map { "\($0.change.rawValue): \($0.document.path)" }
        message.trailers = [(Trailer.device, device.id), (Trailer.deviceName, device.name)] + records
        return message
    }

    func render() -> String {
        var text = subject + "\n"
        if !body.isEmpty { text += "\n" + body.joined(separator: "\n") + "\n" }
        if !trailers.isEmpty {
            text += "\n" + trailers.map { "\($0.key): \($0.value)" }.joined(separator: "\n") + "\n"
        }
        return text
    }

    /// The trailers of a message: the `Key: value` lines of its last paragraph.
    ///
    /// Scans UTF-8 bytes directly: integration messages can carry many records and this runs
    /// for every version listed, so it avoids Foundation's string machinery.
    static func trailers(of message: String) -> [(key: String, value: String)] {
        // Lines, without their line ends (LF or CRLF), as git reads them.
        var lines: [ArraySlice<UInt8>] = []
        let bytes = Array(message.utf8)
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == 0x0A {
            var end = index
            if end > start, bytes[end - 1] == 0x0D { end -= 1 }
            lines.append(bytes[start..<end])
            start = index + 1
        }
        func isBlank(_ line: ArraySlice<UInt8>) -> Bool { line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }
        while let last = lines.last, isBlank(last) { lines.removeLast() }
        // The last paragraph starts after the last blank line; a message of one paragraph has none.
        guard let blank = lines.lastIndex(where: isBlank) else { return [] }
        var result: [(key: String, value: String)] = []
        for line in lines[(blank + 1)...] {
            guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex,
                !line[line.startIndex..<colon].contains(0x20)
            else { continue }
            var valueStart = colon + 1
            while valueStart < line.endIndex, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
            var valueEnd = line.endIndex
            while valueEnd > valueStart, [0x20, 0x09, 0x0D].contains(line[valueEnd - 1]) { valueEnd -= 1 }
            result.append(
                (
                    String(decoding: line[line.startIndex..<colon], as: UTF8.self),
                    String(decoding: line[valueStart..<valueEnd], as: UTF8.self)
                ))
        }
        return result
    }

    /// Rejects user messages that could forge docver's records.
    static func validateUserMessage(_ message: String) throws {
        if message.utf8.split(separator: 0x0A).contains(where: { $0.starts(with: "Docver-".utf8) }) {
            throw DocverError.invalidMessage("lines starting with 'Docver-' are reserved for docver's records")
        }
        if message.contains("\0") { throw DocverError.invalidMessage("it contains a NUL byte") }
    }
}

/// Paths in trailers are percent-encoded so that spaces, `%` and odd bytes survive a line format.
enum TrailerPath {
    static func encode(_ path: String) -> String {
        var bytes: [UInt8] = []
        for byte in path.utf8 {
            if byte <= 0x20 || byte == 0x25 || byte == 0x7F {
                bytes.append(contentsOf: Array(String(format: "%%%02X", byte).utf8))
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func decode(_ text: String) -> String? {
        func hexValue(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x41...0x46: digit - 0x41 + 10
            case 0x61...0x66: digit - 0x61 + 10
            default: nil
            }
        }
        // Without an escape the text is the path (a String is valid UTF-8 already).
        guard text.utf8.contains(0x25) else { return text }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == 0x25 {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        // An escape of bytes that are not UTF-8 names no path docver could have written.
        return String(validating: bytes, as: UTF8.self)
    }
}
