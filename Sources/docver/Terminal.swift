import DocverKit
import Foundation

/// How the CLI writes to the terminal: diagnostics on stderr, JSON, and the formats of the
/// text listings.
enum Terminal {
    // MARK: Diagnostics (stderr)

    static func error(_ message: String, hint: String?) {
        var line = "docver: error: \(message)\n"
        if let hint { line += "hint: \(hint)\n" }
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// A library error: its one-line description, and the CLI's advice where there is some.
    static func error(_ error: DocverError) {
        self.error(error.description, hint: Advice.hint(for: error))
    }

    /// Advice that follows a result rather than an error (`hint: ...` on stderr).
    static func hint(_ advice: String) {
        fflush(nil) // after the result lines already printed, also when stdout is a pipe
        FileHandle.standardError.write(Data("hint: \(DocverError.printable(advice))\n".utf8))
    }

    /// A word as a shell reads it back: as it is when that is safe, else in single quotes.
    static func shellWord(_ text: String) -> String {
        let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_-./+@%,:="))
        if !text.isEmpty, text.unicodeScalars.allSatisfy(plain.contains) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    static func warning(_ message: String) {
        FileHandle.standardError.write(Data("docver: warning: \(message)\n".utf8))
    }

    // MARK: JSON (stdout)

    /// Prints `value` in the --json contract's form: sorted keys, ISO 8601 dates in UTC, pretty
    /// printed, or on one line for streams of objects (`watch --json`).
    static func printJSON<T: Encodable>(_ value: T, onOneLine: Bool = false) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = onOneLine ? [.sortedKeys, .withoutEscapingSlashes]
                                             : [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(iso8601(date))
        }
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    // MARK: Text listings

    /// One version in a listing: its role, short id, date, device and size.
    static func versionLine(_ role: String, _ version: DocumentVersion, deviceWidth: Int? = nil) -> String {
        let device = deviceWidth.map { version.device.name.padded(to: $0) } ?? version.device.name
        return "\(role.padded(to: 9)) \(version.shortID)  \(date(version.modified))  \(device)  \(size(of: version))"
    }

    /// The conflicts a sync, integration or clone brought in, one line a document.
    /// What a sync or integration changed for this device, a line per document (at most
    /// `limit`, then a count), and where to look next when conflicts arrived. A clone shows
    /// only the conflicts (every document is new to it).
    static func printDocumentChanges(_ report: SyncReport, conflictsOnly: Bool = false, limit: Int = 20) {
        let changes = conflictsOnly ? report.documentChanges.filter { $0.kind != .updated } : report.documentChanges
        for change in changes.prefix(limit) { print(DocverError.printable(change.summary)) }
        if changes.count > limit { print("... and \(count(changes.count - limit, "more document change"))") }
        let conflicted = Set(changes.filter { $0.kind == .yoursIsConflictVersion || $0.kind == .conflictVersionKept }.map(\.document))
        if !conflicted.isEmpty {
            print("\(count(conflicted.count, "document")) in conflict; see 'docver conflicts'")
            hint(Advice.afterArrivedConflicts(conflicted.sorted { $0.path < $1.path }))
        }
    }

    /// A version's size, or "deleted" for a version that records a deletion.
    static func size(of version: DocumentVersion) -> String {
        version.isDeletion ? "deleted" : size(version.size)
    }

    /// The 12-digit form of a save's id that listings show (any unique prefix of 4 or more
    /// digits is accepted back).
    static func shortID(_ id: String) -> String { String(id.prefix(12)) }

    /// "1 document", "2 documents".
    static func count(_ count: Int, _ noun: String) -> String {
        "\(grouped(count)) \(noun)\(count == 1 ? "" : "s")"
    }

    /// 1238 → "1,238": counts at the scale of a team's joins stay readable.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (number < 0 ? "-" : "") + result
    }

    // Dates and sizes are formatted by hand: Foundation's formatters load ICU, which costs
    // more than the rest of a listing (measured with perf on 100 conflicts).

    /// Local time as `yyyy-MM-dd HH:mm:ss`.
    static func date(_ date: Date) -> String {
        guard DocumentVersion.isValidDate(date) else { return "invalid date" }
        var seconds = time_t(clamping: date)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return format(parts, utc: false)
    }

    /// UTC as ISO 8601, `yyyy-MM-ddTHH:mm:ssZ`: the JSON contract's date format.
    static func iso8601(_ date: Date) -> String {
        var seconds = time_t(clamping: date)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return format(parts, utc: true)
    }

    private static func format(_ parts: tm, utc: Bool) -> String {
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
        let time = "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        return utc ? day + "T" + time + "Z" : day + " " + time
    }

    /// "2 hours ago", for people choosing between versions.
    static func relative(_ date: Date, now: Date = Date()) -> String {
        guard DocumentVersion.isValidDate(date) else { return "at an invalid date" }
        let seconds = Int(now.timeIntervalSince(date))
        if seconds < 60 { return "just now" }
        for (unit, size) in [("day", 86_400), ("hour", 3_600), ("minute", 60)] where seconds >= size {
            return "\(count(seconds / size, unit)) ago"
        }
        return "just now"
    }

    static func size(_ bytes: Int64) -> String {
        if bytes < 1000 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(bytes) / 1000
        var unit = 0
        while value >= 999.95 && unit < units.count - 1 { value /= 1000; unit += 1 }
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 || value >= 100 ? "\(Int(value.rounded())) \(units[unit])" : "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}

extension time_t {
    /// Seconds since 1970, clamped to the dates docver shows: converting a date beyond
    /// `Int64` (a forged commit) would otherwise trap.
    init(clamping date: Date) {
        let bounds = DocumentVersion.validDates
        let clamped = Swift.min(Swift.max(date, bounds.lowerBound), bounds.upperBound)
        self = time_t(clamped.timeIntervalSince1970.rounded(.down))
    }
}

extension String {
    /// The string as a column `width` characters wide: filled with spaces, or cut.
    func padded(to width: Int) -> String {
        padding(toLength: width, withPad: " ", startingAt: 0)
    }
}
