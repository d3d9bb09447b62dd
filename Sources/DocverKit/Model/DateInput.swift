import Foundation

/// Dates as people type them: an ISO 8601 date or date-time, local or with a zone.
///
/// Accepted forms (docs/CLI.md, "Dates"):
/// - `2026-11-01`: midnight at the start of that day, local time;
/// - `2026-11-01T09:30`, `2026-11-01T09:30:15` (also with a space for `T`, and a fraction of
///   a second, which is dropped): local time;
/// - any date-time followed by `Z`, `+01:00`, `+0100` or `+01`: in that zone.
///
/// Years have four digits (0001 to 9999); every field is checked against the calendar, so
/// `2026-02-30` is refused rather than taken as March 2nd.
public enum DateInput {
    /// The date `text` names, with local times read in `timeZone`; nil when `text` is not one
    /// of the accepted forms.
    public static func parse(_ text: String, timeZone: TimeZone = .current) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
            let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2)
        else { return nil }
        var hour = 0, minute = 0, second = 0
        var zone: TimeZone?
        if !scanner.atEnd {
            guard scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
                let h = scanner.number(digits: 2), scanner.skip(":"), let m = scanner.number(digits: 2)
            else { return nil }
            (hour, minute) = (h, m)
            if scanner.skip(":") {
                guard let s = scanner.number(digits: 2) else { return nil }
                second = s
                if scanner.skip(".") || scanner.skip(",") {
                    guard scanner.digits() > 0 else { return nil }
                }
            }
            if !scanner.atEnd {
                guard let offset = scanner.zoneOffset(), scanner.atEnd,
                    let parsed = TimeZone(secondsFromGMT: offset)
                else { return nil }
                zone = parsed
            }
        }
        guard year >= 1, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        // Proleptic Gregorian, as the listings print dates (localtime_r), not the calendar's
        // switch from the Julian calendar in 1582.
        let civil = Double(daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second)
        if let zone { return Date(timeIntervalSince1970: civil - Double(zone.secondsFromGMT())) }
        // Local time: the zone's offset at that moment (found again if the first guess
        // crossed a daylight-saving change).
        let guess = Date(timeIntervalSince1970: civil - Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: civil))))
        return Date(timeIntervalSince1970: civil - Double(timeZone.secondsFromGMT(for: guess)))
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date in the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `yyyy-MM-ddTHH:mm:ssZ`, UTC: how the library's messages name a date.
    static func iso8601(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int = 2) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return
            "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec))Z"
    }

    /// Reads ASCII fields from the front of the input.
    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { position == bytes.count }

        mutating func skip(_ character: Character) -> Bool {
            guard let ascii = character.asciiValue, position < bytes.count, bytes[position] == ascii else { return false }
            position += 1
            return true
        }

        /// Exactly `digits` decimal digits.
        mutating func number(digits: Int) -> Int? {
            guard position + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<position + digits] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            position += digits
            return value
        }

        /// Skips a run of digits; returns how many there were.
        mutating func digits() -> Int {
            let start = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position - start
        }

        /// `Z`, or `±HH`, `±HHMM`, `±HH:MM`, in seconds east of UTC.
        mutating func zoneOffset() -> Int? {
            if skip("Z") || skip("z") { return 0 }
            let sign: Int
            if skip("+") { sign = 1 } else if skip("-") { sign = -1 } else { return nil }
            guard let hours = number(digits: 2), hours <= 18 else { return nil }
            var minutes = 0
            if !atEnd {
                _ = skip(":")
                guard let parsed = number(digits: 2), parsed < 60 else { return nil }
                minutes = parsed
            }
            return sign * (hours * 3600 + minutes * 60)
        }
    }
}
