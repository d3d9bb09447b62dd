import DocverKit
import Foundation

/// How the CLI writes to the terminal: diagnostics on stderr, JSON, and the formats of the
/// text listings.
enum Terminal {
    // MARK: Diagnostics (stderr)

    /// The style of results on stdout (colour only where stdout is a terminal, or --color=always).
    static var style: Style { OutputSettings.current.stdout }

    static func error(_ message: String, hint: String?) {
        let style = OutputSettings.current.stderr
        var line = "docver: \(style.apply(.error, "error:")) \(message)\n"
        if let hint { line += "\(style.apply(.hint, "hint:")) \(hint)\n" }
        writeError(line)
    }

    /// A library error: its one-line description, and the CLI's advice where there is some.
    static func error(_ error: DocverError) {
        self.error(error.description, hint: Advice.hint(for: error))
    }

    /// Advice that follows a result rather than an error (`hint: ...` on stderr); `-q`
    /// silences it.
    static func hint(_ advice: String) {
        let settings = OutputSettings.current
        guard !settings.quiet else { return }
        fflush(nil)  // after the result lines already printed, also when stdout is a pipe
        writeError("\(settings.stderr.apply(.hint, "hint:")) \(DocverError.printable(advice))\n")
    }

    /// `docver: warning: ...` on stderr. A warning of no consequence (a repair already made,
    /// a retry that followed) is left out with `-q`; others always show.
    static func warning(_ message: String) { warning(message, ofConsequence: true) }

    static func warning(_ message: String, ofConsequence: Bool) {
        let settings = OutputSettings.current
        if !ofConsequence && settings.quiet { return }
        writeError("docver: \(settings.stderr.apply(.warning, "warning:")) \(message)\n")
    }

    /// Writes to stderr at once (stderr is unbuffered).
    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// A word as a shell reads it back: as it is when that is safe, else in single quotes.
    static func shellWord(_ text: String) -> String {
        let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_-./+@%,:="))
        if !text.isEmpty, text.unicodeScalars.allSatisfy(plain.contains) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    // MARK: JSON (stdout)

    /// Prints `value` in the --json contract's form: sorted keys, ISO 8601 dates in UTC, pretty
    /// printed, or on one line for streams of objects (`watch --json`).
    static func printJSON<T: Encodable>(_ value: T, onOneLine: Bool = false) throws {
        print(String(decoding: try jsonEncoder(onOneLine: onOneLine).encode(value), as: UTF8.self))
        JSONFailure.notePrinted(onOneLine: onOneLine)
    }

    /// Prints a JSON array as ``printJSON(_:onOneLine:)`` prints it, byte for byte, a few
    /// hundred elements at a time: only those elements' encoding is in memory at once, so the
    /// output of `ls --json` on 100,000 documents does not cost a tree of all of them in the
    /// encoder (326 MB, against 95 MB for the listing itself). Each batch is encoded as an
    /// array, whose elements pretty printing already indents as the whole array's; its
    /// brackets (`[` and a newline, a newline and `]`) are dropped.
    static func printJSONArray<S: Sequence>(_ elements: S, batchSize: Int = 512) throws where S.Element: Encodable {
        let encoder = jsonEncoder(onOneLine: false)
        var first = true
        var batch: [S.Element] = []
        batch.reserveCapacity(batchSize)
        func flush() throws {
            guard !batch.isEmpty else { return }
            let encoded = try encoder.encode(batch)
            print((first ? "" : ",\n") + String(decoding: encoded.dropFirst(2).dropLast(2), as: UTF8.self), terminator: "")
            first = false
            batch.removeAll(keepingCapacity: true)
        }
        print("[")
        for element in elements {
            batch.append(element)
            if batch.count == batchSize { try flush() }
        }
        try flush()
        print("\n]")
        JSONFailure.notePrinted(onOneLine: false)
    }

    /// The encoder of the --json contract: sorted keys, ISO 8601 dates in UTC, pretty printed
    /// or on one line.
    private static func jsonEncoder(onOneLine: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            onOneLine
            ? [.sortedKeys, .withoutEscapingSlashes]
            : [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(iso8601(date))
        }
        return encoder
    }

    // MARK: Text listings

    /// The widths of a version listing's variable columns (dates: relative on a terminal, so
    /// of varying width; device names), so that every line of the listing lines up.
    struct VersionColumns {
        var date = 0
        var device = 0

        init(_ versions: [DocumentVersion]) {
            for version in versions {
                date = max(date, Terminal.date(version.modified).count)
                device = max(device, version.device.name.count)
            }
        }
    }

    /// One version in a listing: its role, short id, date, device and size.
    static func versionLine(_ role: String, _ version: DocumentVersion, columns: VersionColumns) -> String {
        versionLine(role, version, deviceWidth: columns.device, dateWidth: columns.date)
    }

    /// One version in a listing: its role, short id, date, device and size.
    static func versionLine(_ role: String, _ version: DocumentVersion, deviceWidth: Int? = nil, dateWidth: Int? = nil) -> String {
        let device = deviceWidth.map { version.device.name.padded(to: $0) } ?? version.device.name
        let when = dateWidth.map { date(version.modified).padded(to: $0) } ?? date(version.modified)
        let style = self.style
        let roleStyle: Style.Role =
            switch role {
            case "current": .current
            case "conflict": .conflict
            case "resolved": .resolved
            case "base": .base
            default: .history
            }
        return "\(style.apply(roleStyle, role.padded(to: 9))) \(style.apply(.id, version.shortID))  \(when)  \(device)  \(size(of: version))"
    }

    /// The conflicts a sync, integration or clone brought in, one line a document.
    /// What a sync or integration changed for this device, a line per document (at most
    /// `limit`, then a count), and where to look next when conflicts arrived. A clone shows
    /// only the conflicts (every document is new to it).
    static func printDocumentChanges(_ report: SyncReport, conflictsOnly: Bool = false, limit: Int = 20) {
        // (A clone says how many documents it received on its own line.)
        if !conflictsOnly, report.receivedDocuments > 0 { print("received \(count(report.receivedDocuments, "document"))") }
        let changes = conflictsOnly ? report.documentChanges.filter { $0.kind != .updated } : report.documentChanges
        for change in changes.prefix(limit) { print(DocverError.printable(change.summary)) }
        if changes.count > limit { print("... and \(count(changes.count - limit, "more document change"))") }
        if !conflictsOnly {
            for change in report.keyValueChanges.prefix(limit) { print(DocverError.printable(change.summary)) }
            if report.keyValueChanges.count > limit { print("... and \(count(report.keyValueChanges.count - limit, "more key"))") }
        }
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
    static func shortID(_ id: String) -> String { style.apply(.id, String(id.prefix(12))) }

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

    /// A date in human output. On a terminal, relative ("3 minutes ago") within the last week,
    /// else (older, or in the future) the local date and time with the zone,
    /// `2026-11-01 14:03:22 +01:00`. Off a terminal, ISO 8601 in local time with the offset,
    /// `2026-11-01T14:03:22+01:00`, which programs read back.
    static func date(_ date: Date) -> String {
        guard DocumentVersion.isValidDate(date) else { return "invalid date" }
        let settings = OutputSettings.current
        guard settings.relativeDates else { return localDate(date, separator: "T", zoneSeparator: "") }
        let age = settings.now.timeIntervalSince(date)
        if age >= 0 && age < 7 * 86_400 { return relative(date, now: settings.now) }
        return localDate(date, separator: " ", zoneSeparator: " ")
    }

    /// The local date and time with the zone's offset, whatever the terminal (for lines that
    /// show a relative date beside it).
    static func absoluteDate(_ date: Date) -> String {
        guard DocumentVersion.isValidDate(date) else { return "invalid date" }
        return localDate(date, separator: " ", zoneSeparator: " ")
    }

    /// A date that stamps an event in a stream (`agent`): never relative, since the lines are
    /// read later; the terminal's form with the zone, or ISO 8601 off a terminal.
    static func timestamp(_ date: Date) -> String {
        guard DocumentVersion.isValidDate(date) else { return "invalid date" }
        return OutputSettings.current.relativeDates
            ? localDate(date, separator: " ", zoneSeparator: " ")
            : localDate(date, separator: "T", zoneSeparator: "")
    }

    private static func localDate(_ date: Date, separator: String, zoneSeparator: String) -> String {
        var seconds = time_t(clamping: date)
        var parts = tm()
        localtime_r(&seconds, &parts)
        let offset = parts.tm_gmtoff / 60
        let hours = abs(offset) / 60, minutes = abs(offset) % 60
        let zone = (offset < 0 ? "-" : "+") + (hours < 10 ? "0" : "") + "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes)"
        return format(parts, separator: separator) + zoneSeparator + zone
    }

    /// UTC as ISO 8601, `yyyy-MM-ddTHH:mm:ssZ`: the JSON contract's date format.
    static func iso8601(_ date: Date) -> String {
        var seconds = time_t(clamping: date)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return format(parts, separator: "T") + "Z"
    }

    private static func format(_ parts: tm, separator: String) -> String {
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
        let time = "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        return day + separator + time
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

    /// A size, or "not here" when the contents are not on this device (documents on demand).
    static func size(_ bytes: Int64?) -> String {
        guard let bytes else { return "not here" }
        return size(bytes)
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
        // Foundation's `padding` counts UTF-16 units and goes through NSString: a string that
        // is not cut gets the same spaces here for a fraction of the cost.
        let length = utf16.count
        if length <= width { return self + String(repeating: " ", count: width - length) }
        return padding(toLength: width, withPad: " ", startingAt: 0)
    }
}
