import Foundation

/// The text form of document and conflict listings: one record per line, fields separated by
/// tabs, strings escaped (`%`, tab, newline and carriage return as `%25`, `%09`, `%0A`, `%0D`),
/// dates as the bit pattern of their `Double` (exact). A form split in milliseconds where
/// decoding JSON of 10,000 documents took hundreds. The agent's answers use it on its socket
/// (docs/AGENT.md), and the cached conflict listing in `.git/docver/conflict-listing`
/// (docs/FORMAT.md).
enum ListingText {
    /// The longest answer a client reads (beyond it, it works directly).
    static let limit = 512 << 20
    static func escape(_ text: String) -> String {
        guard text.contains(where: { $0 == "%" || $0 == "\t" || $0 == "\n" || $0 == "\r" }) else { return text }
        return text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\t", with: "%09")
            .replacingOccurrences(of: "\n", with: "%0A").replacingOccurrences(of: "\r", with: "%0D")
    }

    static func unescape<S: StringProtocol>(_ text: S) -> String {
        guard text.utf8.contains(0x25) else { return String(text) }
        return text.replacingOccurrences(of: "%09", with: "\t").replacingOccurrences(of: "%0A", with: "\n")
            .replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%25", with: "%")
    }

    static func date(_ date: Date) -> String { String(date.timeIntervalSinceReferenceDate.bitPattern, radix: 16) }

    static func date<S: StringProtocol>(_ text: S) -> Date? {
        UInt64(text, radix: 16).map { Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0)) }
    }

    /// 10 fields.
    static func fields(_ version: DocumentVersion) -> [String] {
        [
            version.id, escape(version.document.path), escape(version.device.id), escape(version.device.name), date(version.modified),
            version.size.map { String($0) } ?? "-", version.kind.rawValue, version.isDeletion ? "1" : "0", version.commitID.hex,
            version.entryID?.hex ?? "-",
        ]
    }

    static func version(_ fields: ArraySlice<Substring>) -> DocumentVersion? {
        guard fields.count == 10 else { return nil }
        // Read in place (a listing decodes 10,000 of these: copying each slice into an array
        // was a measurable part of `ls`).
        func f(_ offset: Int) -> Substring { fields[fields.startIndex + offset] }
        guard let modified = date(f(4)), let size: Int64? = f(5) == "-" ? .some(nil) : Int64(f(5)).map({ .some($0) }),
            let kind = DocumentKind(rawValue: String(f(6))),
            let commitID = ObjectID(hex: String(f(8)))
        else { return nil }
        var entryID: ObjectID?
        if f(9) != "-" {
            guard let id = ObjectID(hex: String(f(9))) else { return nil }
            entryID = id
        }
        return DocumentVersion(
            id: String(f(0)), document: DocumentPath(trusted: unescape(f(1))),
            device: Device(unchecked: unescape(f(2)), name: unescape(f(3))), modified: modified,
            size: size, kind: kind, isDeletion: f(7) == "1", commitID: commitID, entryID: entryID)
    }

    /// The records of a text: its lines, split into fields at tabs. One pass over the UTF-8
    /// bytes of one string, slicing fields out of it without copying; a tab or newline is a
    /// grapheme of its own (Unicode breaks after control characters), so every slice starts
    /// and ends on a character boundary.
    static func lines(_ data: Data) -> [ArraySlice<Substring>] {
        var result: [ArraySlice<Substring>] = []
        forEachLine(data) { fields in
            result.append(fields); return true
        }
        return result
    }

    /// Calls `body` with each record of a text, as ``lines(_:)`` splits them, in a buffer
    /// reused from line to line (no array per line kept); stops when `body` returns false.
    static func forEachLine(_ data: Data, _ body: (ArraySlice<Substring>) -> Bool) {
        let text = String(decoding: data, as: UTF8.self)
        let bytes = text.utf8
        var fields: [Substring] = []
        var start = bytes.startIndex
        var index = start
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == 0x09 || byte == 0x0A {
                fields.append(text[start..<index])
                if byte == 0x0A {
                    if !(fields.count == 1 && fields[0].isEmpty), !body(fields[...]) { return }
                    fields.removeAll(keepingCapacity: true)
                }
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        if start != bytes.endIndex || !fields.isEmpty {
            fields.append(text[start..<bytes.endIndex])
            if !(fields.count == 1 && fields[0].isEmpty) { _ = body(fields[...]) }
        }
    }

    // Documents: one line each: document, created, uncommitted flags, then the current version.

    static func encode(_ items: [MetadataItem]) -> Data {
        var text = ""
        for item in items {
            let head = [
                escape(item.document.path), date(item.created), item.hasUnresolvedConflicts ? "1" : "0",
                item.syncStatus.isUploaded ? "1" : "0", item.syncStatus.hasRemoteChanges ? "1" : "0",
            ]
            text += (head + fields(item.current)).joined(separator: "\t") + "\n"
        }
        return Data(text.utf8)
    }

    static func decodeItems(_ data: Data, expected: Int = 0) -> [MetadataItem]? {
        data.withUnsafeBytes { raw in DocumentLines(bytes: raw.bindMemory(to: UInt8.self)).items(expected: expected) }
    }

    // Conflicts: a line `C document versions bases`, then `V` + the current version, one `V`
    // line per conflict version, and one `B key` line per base.

    static func encode(_ conflicts: [Conflict]) -> Data {
        var text = ""
        for conflict in conflicts {
            text +=
                ["C", escape(conflict.document.path), String(conflict.conflicts.count), String(conflict.bases.count)].joined(separator: "\t") + "\n"
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
                count >= 0, baseCount >= 0, lines.count >= 1 + count + baseCount
            else { return nil }
            var versions: [DocumentVersion] = []
            for _ in 0...count {
                guard let line = lines.popFirst(), line.first == "V", let version = version(line.dropFirst()) else { return nil }
                versions.append(version)
            }
            var bases: [String: DocumentVersion] = [:]
            for _ in 0..<baseCount {
                guard let line = lines.popFirst(), line.count == 12, line.first == "B",
                    let base = version(line.dropFirst(2))
                else { return nil }
                bases[String(line[line.startIndex + 1])] = base
            }
            result.append(
                Conflict(
                    document: DocumentPath(trusted: unescape(header[start + 1])), current: versions[0],
                    conflicts: Array(versions.dropFirst()), bases: bases))
        }
        return result
    }
}

extension ListingText {
    /// The first line of a stored conflict listing: what it was computed for.
    static let listingMagic = "docver-conflict-listing"

    /// A conflict listing as stored: a header line (magic, format, head, signing rule or `-`),
    /// then the conflicts as ``encode(_:)-([Conflict])`` writes them.
    static func encodeListing(format: Int, head: String, trust: String?, conflicts: [Conflict]) -> Data {
        var data = Data(([listingMagic, String(format), head, trust.map(escape) ?? "-"].joined(separator: "\t") + "\n").utf8)
        data.append(encode(conflicts))
        return data
    }

    /// The conflicts of a stored listing, when it was computed for exactly this format, head
    /// and signing rule; nil otherwise (it is then recomputed).
    static func decodeListing(_ data: Data, format: Int, head: String, trust: String?) -> [Conflict]? {
        guard let end = data.firstIndex(of: 0x0A) else { return nil }
        let header = [listingMagic, String(format), head, trust.map(escape) ?? "-"].joined(separator: "\t")
        guard data[data.startIndex..<end].elementsEqual(header.utf8) else { return nil }
        return decodeConflicts(data[(end + 1)...])
    }

    /// One document's conflict from a stored listing, without decoding the others: the
    /// listing is sorted by document and each block starts with a `C` line naming its
    /// document, so only that block is split. The outer nil says the listing is not usable
    /// (as ``decodeListing(_:format:head:trust:)``); the inner, that the document has no
    /// open conflict in it.
    static func decodeListing(_ data: Data, format: Int, head: String, trust: String?, document: String) -> Conflict?? {
        guard let end = data.firstIndex(of: 0x0A) else { return nil }
        let header = [listingMagic, String(format), head, trust.map(escape) ?? "-"].joined(separator: "\t")
        guard data[data.startIndex..<end].elementsEqual(header.utf8) else { return nil }
        let marker = Array(("\nC\t" + escape(document) + "\t").utf8)
        return data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Conflict?? in
            let bytes = buffer.bindMemory(to: UInt8.self)
            // From the header's newline: every block's `C` line follows a newline.
            guard let start = firstOccurrence(of: marker, in: bytes, from: end - data.startIndex) else { return .some(nil) }
            // The block ends before the next `C` line (or at the end of the listing).
            var blockEnd = bytes.count
            var index = start + marker.count
            while index < bytes.count {
                if bytes[index] == 0x0A, index + 2 < bytes.count, bytes[index + 1] == 0x43, bytes[index + 2] == 0x09 {
                    blockEnd = index + 1
                    break
                }
                index += 1
            }
            guard let conflicts = decodeConflicts(Data(bytes[(start + 1)..<blockEnd])), conflicts.count == 1 else { return nil }
            return .some(conflicts[0])
        }
    }

    /// Each document's count of unresolved conflict versions in a stored listing, in its
    /// order, reading only the `C` lines and skipping the version lines by their first byte
    /// (`status` needs no more; decoding every version of thousands of conflicts was a third of
    /// it). Nil when the listing is not usable, as ``decodeListing(_:format:head:trust:)``
    /// says, or not well formed.
    static func decodeConflictCounts(_ data: Data, format: Int, head: String, trust: String?) -> [(document: String, conflicts: Int)]? {
        guard let end = data.firstIndex(of: 0x0A) else { return nil }
        let header = [listingMagic, String(format), head, trust.map(escape) ?? "-"].joined(separator: "\t")
        guard data[data.startIndex..<end].elementsEqual(header.utf8) else { return nil }
        return data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> [(document: String, conflicts: Int)]? in
            let bytes = buffer.bindMemory(to: UInt8.self)
            var result: [(document: String, conflicts: Int)] = []
            var index = end - data.startIndex + 1
            /// The line from `index`: its end (the newline's index, or the end of the data).
            func lineEnd(from start: Int) -> Int {
                var cursor = start
                while cursor < bytes.count, bytes[cursor] != 0x0A { cursor += 1 }
                return cursor
            }
            while index < bytes.count {
                let stop = lineEnd(from: index)
                // `C`, the escaped document, the conflict count, the base count.
                let fields = bytes[index..<stop].split(separator: 0x09, omittingEmptySubsequences: false)
                guard fields.count == 4, fields[0].elementsEqual([UInt8(ascii: "C")]),
                    let count = Int(String(decoding: fields[2], as: UTF8.self)), let bases = Int(String(decoding: fields[3], as: UTF8.self)),
                    count >= 0, bases >= 0
                else { return nil }
                result.append((unescape(String(decoding: fields[1], as: UTF8.self)), count))
                index = stop + 1
                // The current version and each conflict version (`V`), then each base (`B`).
                for line in 0..<(1 + count + bases) {
                    guard index < bytes.count, bytes[index] == UInt8(ascii: line <= count ? "V" : "B") else { return nil }
                    index = lineEnd(from: index) + 1
                }
            }
            return result
        }
    }

    private static func firstOccurrence(of pattern: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let first = pattern.first, pattern.count <= bytes.count else { return nil }
        var index = start
        let last = bytes.count - pattern.count
        while index <= last {
            if bytes[index] == first {
                var matched = 1
                while matched < pattern.count, bytes[index + matched] == pattern[matched] { matched += 1 }
                if matched == pattern.count { return index }
            }
            index += 1
        }
        return nil
    }
}

extension ListingText {
    /// The first line of a stored document listing: what it was computed for.
    static let documentListingMagic = "docver-document-listing"

    /// A document listing as stored: a header line (magic, format, item count, then the key),
    /// then the items as ``encode(_:)-([MetadataItem])`` writes them.
    static func encodeDocumentListing(format: Int, key: String, items: [MetadataItem]) -> Data {
        var data = Data(([documentListingMagic, String(format), String(items.count), key].joined(separator: "\t") + "\n").utf8)
        data.append(encode(items))
        return data
    }

    /// The items of a stored document listing, when it was computed for exactly this format
    /// and key (any key when `key` is nil) and holds as many items as its header says; nil
    /// otherwise.
    static func decodeDocumentListing(_ data: Data, format: Int, key: String?) -> [MetadataItem]? {
        guard let end = data.firstIndex(of: 0x0A) else { return nil }
        let header = data[data.startIndex..<end]
        let prefix = Data((documentListingMagic + "\t" + String(format) + "\t").utf8)
        guard header.starts(with: prefix) else { return nil }
        let rest = header.dropFirst(prefix.count)
        guard let tab = rest.firstIndex(of: 0x09), let count = Int(String(decoding: rest[..<tab], as: UTF8.self)),
            key.map({ rest[(tab + 1)...].elementsEqual($0.utf8) }) ?? true,
            let items = decodeItems(data[(end + 1)...], expected: count), items.count == count
        else { return nil }
        return items
    }
}

/// A document listing read straight from its bytes: the same records as ``ListingText/lines(_:)``
/// splits and ``ListingText/version(_:)`` reads, without a String for the whole text or a
/// Substring per field (decoding 10,000 documents was a third of a cached `ls`).
private struct DocumentLines {
    let bytes: UnsafeBufferPointer<UInt8>

    /// `expected`: the count the header gives (room is made for that many, at most a million).
    func items(expected: Int = 0) -> [MetadataItem]? {
        var items: [MetadataItem] = []
        items.reserveCapacity(min(max(expected, 0), 1 << 20))
        var fields: [Range<Int>] = []
        fields.reserveCapacity(16)
        var start = 0
        for index in 0...bytes.count {
            let byte: UInt8 = index == bytes.count ? 0x0A : bytes[index]
            guard byte == 0x09 || byte == 0x0A else { continue }
            if index == bytes.count && start == index && fields.isEmpty { break }  // ends with a newline
            fields.append(start..<index)
            start = index + 1
            guard byte == 0x0A else { continue }
            if !(fields.count == 1 && fields[0].isEmpty) {
                guard let item = item(fields) else { return nil }
                items.append(item)
            }
            fields.removeAll(keepingCapacity: true)
        }
        return items
    }

    private func field(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[range]) }

    private func text(_ range: Range<Int>) -> String { String(decoding: field(range), as: UTF8.self) }

    private func escaped(_ range: Range<Int>) -> String {
        field(range).contains(0x25) ? ListingText.unescape(text(range)) : text(range)
    }

    private func isOne(_ range: Range<Int>) -> Bool { range.count == 1 && bytes[range.lowerBound] == UInt8(ascii: "1") }

    /// Digits only (what the writer writes); anything else is read as the String form reads it.
    private func integer<T: FixedWidthInteger>(_ range: Range<Int>, radix: Int) -> T? {
        var value: T = 0
        guard !range.isEmpty, range.count <= 16 else { return T(text(range), radix: radix) }
        for byte in field(range) {
            let digit: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = Int(byte - UInt8(ascii: "a")) + 10
            default: return T(text(range), radix: radix)
            }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: T(radix))
            let (sum, overflow2) = shifted.addingReportingOverflow(T(digit))
            guard !overflow && !overflow2 else { return T(text(range), radix: radix) }
            value = sum
        }
        return value
    }

    private func isDash(_ range: Range<Int>) -> Bool { range.count == 1 && bytes[range.lowerBound] == UInt8(ascii: "-") }

    private func date(_ range: Range<Int>) -> Date? {
        (integer(range, radix: 16) as UInt64?).map { Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0)) }
    }

    /// document, created, conflicted, uploaded, remote changes, then the 10 version fields.
    private func item(_ f: [Range<Int>]) -> MetadataItem? {
        guard f.count == 15, let created = date(f[1]), let modified = date(f[9]),
            let size: Int64? = isDash(f[10]) ? .some(nil) : (integer(f[10], radix: 10) as Int64?).map({ .some($0) }),
            let kind = DocumentKind(rawValue: text(f[11])),
            let commitID = ObjectID(hexDigits: field(f[13]))
        else { return nil }
        var entryID: ObjectID?
        if !isDash(f[14]) {
            guard let id = ObjectID(hexDigits: field(f[14])) else { return nil }
            entryID = id
        }
        let versionPath = DocumentPath(trusted: escaped(f[6]))
        // The document is its current version's: one string for both when the bytes agree.
        let document = field(f[0]).elementsEqual(field(f[6])) ? versionPath : DocumentPath(trusted: escaped(f[0]))
        let current = DocumentVersion(
            id: text(f[5]), document: versionPath,
            device: Device(unchecked: escaped(f[7]), name: escaped(f[8])), modified: modified,
            size: size, kind: kind, isDeletion: isOne(f[12]), commitID: commitID, entryID: entryID)
        return MetadataItem(
            document: document, created: created, current: current, hasUnresolvedConflicts: isOne(f[2]),
            syncStatus: SyncStatus(isUploaded: isOne(f[3]), hasRemoteChanges: isOne(f[4])))
    }
}
