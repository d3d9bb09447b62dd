import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// The version syntax (docs/CLI.md, "Versions") and the dates it and `--modified-since` read.
@Suite struct VersionSpecifierTests {
    static let utc = TimeZone(secondsFromGMT: 0)!
    static let paris = TimeZone(identifier: "Europe/Paris")!

    @Test(arguments: [
        ("@", VersionSpecifier.current), ("HEAD", .current), ("@-", .back(1)), ("@-0", .back(0)),
        ("@-1", .back(1)), ("@-12", .back(12)), ("@~3", .back(3)), ("HEAD~2", .back(2)), ("HEAD~", .back(1)),
        ("5f7d", .id("5f7d")), ("5F7D7C21", .id("5f7d7c21")),
        (String(repeating: "a", count: 40), .id(String(repeating: "a", count: 40))),
    ])
    func acceptedForms(text: String, expected: VersionSpecifier) throws {
        #expect(try VersionSpecifier(text) == expected)
    }

    @Test(arguments: [
        "", "@@", "@-x", "@-+1", "@--1", "@-1.5", "@-9999999999", "HEAD^", "head", "5f7", "5f7g",
        String(repeating: "a", count: 41), "notes.txt", "@{}", "@{yesterday}", "@{2026-13-01}", "٣٤٥٦", "@-٣",
    ])
    func refusedForms(text: String) {
        #expect(throws: DocverError.invalidVersion(text)) { try VersionSpecifier(text) }
        #expect(!VersionSpecifier.looksLikeVersion(text))
    }

    @Test func aDateInBracesIsAtThatDate() throws {
        let expected = try #require(DateInput.parse("2026-11-01T09:30:00Z"))
        #expect(try VersionSpecifier("@{2026-11-01T09:30:00Z}") == .at(expected))
        #expect(try VersionSpecifier("@{2026-11-01}", timeZone: Self.utc) == .at(Date(timeIntervalSince1970: 1_793_491_200)))
    }

    // MARK: Dates

    @Test(arguments: [
        ("2026-11-01", 1_793_491_200.0),
        ("2026-11-01T00:00", 1_793_491_200), ("2026-11-01 00:00:00", 1_793_491_200), ("2026-11-01t00:00:00", 1_793_491_200),
        ("2026-11-01T09:30:15", 1_793_525_415), ("2026-11-01T09:30:15.999", 1_793_525_415), ("2026-11-01T09:30:15,5", 1_793_525_415),
        ("2026-11-01T09:30:15Z", 1_793_525_415), ("2026-11-01T10:30:15+01:00", 1_793_525_415), ("2026-11-01T10:30:15+0100", 1_793_525_415),
        ("2026-11-01T10:30:15+01", 1_793_525_415), ("2026-11-01T04:00:15-05:30", 1_793_525_415), ("2026-11-01T09:30Z", 1_793_525_400),
        ("2024-02-29", 1_709_164_800), ("1970-01-01T00:00:00Z", 0), ("0001-01-01T00:00:00Z", -62_135_596_800),
    ])
    func datesInUTC(text: String, seconds: Double) throws {
        #expect(DateInput.parse(text, timeZone: Self.utc) == Date(timeIntervalSince1970: seconds))
    }

    @Test func localDatesAreReadInTheGivenZoneAndZonedOnesAreNot() throws {
        // Paris is UTC+1 in November, UTC+2 in July.
        #expect(DateInput.parse("2026-11-01", timeZone: Self.paris) == Date(timeIntervalSince1970: 1_793_491_200 - 3600))
        #expect(DateInput.parse("2026-07-01T12:00", timeZone: Self.paris) == DateInput.parse("2026-07-01T10:00Z", timeZone: Self.utc))
        #expect(DateInput.parse("2026-11-01T09:30:15Z", timeZone: Self.paris) == Date(timeIntervalSince1970: 1_793_525_415))
    }

    @Test(arguments: [
        "", "2026", "2026-11", "26-11-01", "2026-1-01", "2026-11-1", "2026-13-01", "2026-00-10", "2026-02-30",
        "2025-02-29", "2026-04-31", "2026-11-01T", "2026-11-01T24:00", "2026-11-01T09:60", "2026-11-01T09:30:60",
        "2026-11-01T9:30", "2026-11-01T09:30:", "2026-11-01T09:30:15.", "2026-11-01X09:30", "2026-11-01T09:30+",
        "2026-11-01T09:30+1", "2026-11-01T09:30+19:00", "2026-11-01T09:30+01:60", "2026-11-01T09:30Zjunk",
        "2026-11-01 ", "0000-01-01", "２０２６-11-01", "2026-11-01T09:30:15+01:00:00", "yesterday", "@{2026-11-01}",
    ])
    func refusedDates(text: String) {
        #expect(DateInput.parse(text, timeZone: Self.utc) == nil)
    }

    /// Every date-time printed as ISO 8601 with a random zone offset reads back as the same
    /// instant; printed without a zone, it reads back in the local zone given.
    @Test(arguments: Seeds.make(20, salt: 61))
    func printedDatesReadBack(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for _ in 0..<50 {
            let instant = Date(timeIntervalSince1970: Double(Int64.random(in: -62_000_000_000...253_000_000_000, using: &random)))
            let offset =
                Int.random(in: -18...18, using: &random) * 3600 + [0, 30, 45].randomElement(using: &random)! * 60
                * (Bool.random(using: &random) ? 1 : 0)
            guard abs(offset) <= 18 * 3600, let zone = TimeZone(secondsFromGMT: offset) else { continue }
            // The wall-clock time in that zone, by the C library (proleptic Gregorian).
            var seconds = time_t(instant.timeIntervalSince1970) + time_t(offset)
            var parts = tm()
            gmtime_r(&seconds, &parts)
            func pad<N: BinaryInteger>(_ value: N, _ width: Int = 2) -> String {
                let text = String(value)
                return String(repeating: "0", count: max(0, width - text.count)) + text
            }
            guard parts.tm_year + 1900 >= 1, parts.tm_year + 1900 <= 9999 else { continue }
            let local =
                "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec))"
            let sign = offset < 0 ? "-" : "+"
            let zoned = local + sign + pad(abs(offset) / 3600) + ":" + pad(abs(offset) % 3600 / 60)
            #expect(DateInput.parse(zoned, timeZone: Self.paris) == instant, "\(zoned)")
            #expect(DateInput.parse(local, timeZone: zone) == instant, "\(local) in \(offset)")
            #expect(
                DateInput.parse(local.replacingOccurrences(of: "T", with: " ") + (offset == 0 ? "Z" : zoned.suffix(6)), timeZone: Self.paris)
                    == instant)
        }
    }

    // MARK: Names relative to a folder

    @Test(arguments: [
        ("cake.md", "recipes", "recipes/cake.md"), ("../list.txt", "recipes", "list.txt"),
        ("./a/../b.txt", "", "b.txt"), ("../../x", "a/b", "x"), ("sub/", "a", "a/sub"), (".", "recipes", "recipes"),
        ("..", "a/b", "a"), ("x//y", "", "x/y"),
    ])
    func namesRelativeToAFolder(name: String, folder: String, path: String) throws {
        #expect(try DocumentPath(name, inFolder: folder).path == path)
    }

    @Test(arguments: [
        ("..", ""), ("../x", ""), ("../../x", "a"), ("a/../../x", ""), ("../.git/config", "a"),
        ("../.docver/kv", "a"), (".", ""), ("..", "a"), ("/abs", "a"), ("", "a"), ("a\nb", "a"),
    ])
    func namesRelativeToAFolderThatAreRefused(name: String, folder: String) {
        #expect {
            try DocumentPath(name, inFolder: folder)
        } throws: { error in
            guard case let DocverError.invalidDocumentName(quoted, _) = error else { return false }
            return quoted == name  // the error names what the user typed
        }
    }

    /// Writing a path relative to a folder and reading it back from that folder gives the
    /// same document.
    @Test(arguments: Seeds.make(10, salt: 62))
    func relativePathsRoundTrip(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let parts = ["a", "b", "recipes", "x.pkg", "é"]
        func randomPath(_ depth: ClosedRange<Int>) -> String {
            (0..<Int.random(in: depth, using: &random)).map { _ in parts.randomElement(using: &random)! }.joined(separator: "/")
        }
        for _ in 0..<200 {
            let document = try DocumentPath(randomPath(1...4))
            let folder = randomPath(0...3)
            let written = document.relative(toFolder: folder)
            #expect(try DocumentPath(written, inFolder: folder) == document, "\(document) from \(folder): \(written)")
        }
    }
}
