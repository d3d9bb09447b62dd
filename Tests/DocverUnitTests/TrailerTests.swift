import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// Commit messages (docs/FORMAT.md, "Commit messages"): rendering, the trailer paragraph
/// parser, user-message validation and the percent-encoding of paths in trailers.
@Suite struct TrailerTests {
    typealias Pair = (key: String, value: String)

    static func same(_ a: [Pair], _ b: [Pair]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    static func describe(_ pairs: [Pair]) -> String { pairs.map { "\($0.key)=\($0.value)" }.description }

    /// A trailer key: letters, digits and `-`, never empty (what git accepts as a token).
    static func key(_ random: inout SeededRandom) -> String {
        "K" + random.string(asciiLetters + ["-"], length: 0...12)
    }

    /// A trailer value with spaces, unicode, `%` and colons inside, but no line break and no
    /// surrounding blanks (the parser trims those).
    static func value(_ random: inout SeededRandom) -> String {
        let raw = random.awkwardString(length: 0...30)
        let oneLine = String(String.UnicodeScalarView(raw.unicodeScalars.filter { $0 != "\n" && $0 != "\r" }))
        return oneLine.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
    }

    /// A subject: any single line, not starting with a blank (git would strip it).
    static func subject(_ random: inout SeededRandom) -> String {
        "S" + String(String.UnicodeScalarView(random.awkwardString(length: 0...40).unicodeScalars.filter { $0 != "\n" }))
    }

    // MARK: Round trips

    @Test(arguments: Seeds.make(8, salt: 1))
    func renderedTrailersParseBackExactly(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<200 {
            var message = CommitMessage(subject: Self.subject(&random))
            message.body = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                // Body lines may look like trailers: only the last paragraph counts.
                Bool.random(using: &random) ? "\(Self.key(&random)): \(Self.value(&random))" : random.awkwardString(length: 0...30)
            }
            message.trailers = (0..<Int.random(in: 1...6, using: &random)).map { _ in (Self.key(&random), Self.value(&random)) }
            let parsed = CommitMessage.trailers(of: message.render())
            #expect(
                Self.same(parsed, message.trailers),
                "seed \(seed): \(message.render().debugDescription) parsed as \(Self.describe(parsed))")
        }
    }

    @Test func renderPutsSubjectBodyAndTrailersInSeparateParagraphs() {
        var message = CommitMessage(subject: "Subject", body: ["line one", "line two"])
        message.trailers = [("Docver-Device", "alice"), ("Docver-Conflict", "v - a%20b")]
        #expect(message.render() == "Subject\n\nline one\nline two\n\nDocver-Device: alice\nDocver-Conflict: v - a%20b\n")
        #expect(CommitMessage(subject: "Only").render() == "Only\n")
    }

    @Test func saveMessageKeepsTheUsersFurtherLinesAndListsChanges() throws {
        let device = try Device(id: "alice", name: "Alice's Laptop")
        let changes = [
            DocumentChange(document: try DocumentPath("a b.txt"), change: .added),
            DocumentChange(document: try DocumentPath("dir/c.md"), change: .deleted),
        ]
        let message = CommitMessage.save(
            subject: "Title\n\n\nMore: words\nsecond", changes: changes, device: device,
            records: [(Trailer.resolved, "abc a%20b.txt")])
        #expect(message.subject == "Title")
        #expect(message.body == ["More: words", "second", "", "added: a b.txt", "deleted: dir/c.md"])
        let parsed = CommitMessage.trailers(of: message.render())
        #expect(
            Self.same(
                parsed,
                [
                    (Trailer.device, "alice"), (Trailer.deviceName, "Alice's Laptop"),
                    (Trailer.resolved, "abc a%20b.txt"),
                ]), "\(Self.describe(parsed))")
    }

    @Test func saveMessageOfOneLineSubjectHasOnlyChangeLinesInItsBody() throws {
        let device = try Device(id: "bob")
        let message = CommitMessage.save(
            subject: "Save x", changes: [DocumentChange(document: try DocumentPath("x"), change: .modified)],
            device: device)
        #expect(message.render() == "Save x\n\nmodified: x\n\nDocver-Device: bob\nDocver-Device-Name: bob\n")
    }

    // MARK: Parsing rules

    @Test func messageWithoutATrailerParagraphHasNoTrailers() {
        // The first paragraph is the subject, never trailers, even when it looks like one.
        #expect(CommitMessage.trailers(of: "Docver-Device: alice").isEmpty)
        #expect(CommitMessage.trailers(of: "Docver-Device: alice\nDocver-Conflict: a - b\n").isEmpty)
        #expect(CommitMessage.trailers(of: "").isEmpty)
        #expect(CommitMessage.trailers(of: "\n\n\n").isEmpty)
        #expect(CommitMessage.trailers(of: "Subject\n\nA body sentence without a colon.\n").isEmpty)
    }

    @Test func onlyTheLastParagraphIsRead() {
        let message = "Subject\n\nEarly: not a trailer\n\nDocver-Device: alice\n"
        let parsed = CommitMessage.trailers(of: message)
        #expect(Self.same(parsed, [("Docver-Device", "alice")]), "\(Self.describe(parsed))")
    }

    @Test func trailingBlankLinesAndSpacesAreIgnored() {
        let parsed = CommitMessage.trailers(of: "Subject\n\nDocver-Device: alice\nDocver-Device-Name: A  \n\n\n \t\n")
        #expect(Self.same(parsed, [("Docver-Device", "alice"), ("Docver-Device-Name", "A")]), "\(Self.describe(parsed))")
    }

    @Test func carriageReturnsAtTheEndOfTrailerLinesAreNotPartOfValues() {
        let parsed = CommitMessage.trailers(of: "Subject\n\nDocver-Device: alice\r\nDocver-Device-Name: A\r\n")
        #expect(Self.same(parsed, [("Docver-Device", "alice"), ("Docver-Device-Name", "A")]), "\(Self.describe(parsed))")
    }

    @Test
    func crlfMessageHasTheSameTrailersAsItsLFForm() {
        let lf = "Subject\n\nBody\n\nDocver-Device: alice\nDocver-Device-Name: A\n"
        let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
        let parsed = CommitMessage.trailers(of: crlf)
        #expect(Self.same(parsed, CommitMessage.trailers(of: lf)), "\(Self.describe(parsed))")
        #expect(parsed.count == 2)
    }

    @Test
    func lineOfSpacesSeparatesTheTrailerParagraph() {
        let parsed = CommitMessage.trailers(of: "Subject\n  \nDocver-Device: alice\n")
        #expect(Self.same(parsed, [("Docver-Device", "alice")]), "\(Self.describe(parsed))")
    }

    @Test func keysWithSpacesAreNotTrailers() {
        let parsed = CommitMessage.trailers(of: "Subject\n\nNot a: trailer\nDocver Device: x\n: no key\nDocver-Device: alice\n")
        #expect(Self.same(parsed, [("Docver-Device", "alice")]), "\(Self.describe(parsed))")
    }

    @Test func indentedLinesAreNotTrailers() {
        // A leading blank makes the key contain a space: git reads such a line as a continuation.
        let parsed = CommitMessage.trailers(of: "Subject\n\nDocver-Device: alice\n Docver-Conflict: a - b\n")
        #expect(Self.same(parsed, [("Docver-Device", "alice")]), "\(Self.describe(parsed))")
    }

    @Test func valueKeepsEveryColonAfterTheFirst() {
        let parsed = CommitMessage.trailers(of: "Subject\n\nLink: https://example.com:8080/a:b\nEmpty:\nTight:value\n")
        #expect(
            Self.same(parsed, [("Link", "https://example.com:8080/a:b"), ("Empty", ""), ("Tight", "value")]),
            "\(Self.describe(parsed))")
    }

    @Test func linesWithoutAColonInTheTrailerParagraphAreSkipped() {
        let parsed = CommitMessage.trailers(of: "Subject\n\nDocver-Device: alice\nsome words\nDocver-Device-Name: A\n")
        #expect(Self.same(parsed, [("Docver-Device", "alice"), ("Docver-Device-Name", "A")]), "\(Self.describe(parsed))")
    }

    @Test(arguments: Seeds.make(4, salt: 2))
    func malformedInputNeverCrashesAndYieldsWellFormedPairs(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let pieces: [String] = ["\n", "\n\n", "\r\n", ":", ": ", " ", "\t", "\r", "Key", "Docver-Conflict", "é", "\0", "%", "\u{FEFF}"]
        var fixed = ["", "\n", ":", "\n\n:", "a\n\n:", "a\n\n:b", "\n\nK: v", "x\n\n\n\n", "x\n\nK", " \n\n ", "\r\n\r\n"]
        fixed += (0..<500).map { _ in (0..<Int.random(in: 0...30, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined() }
        for message in fixed {
            for pair in CommitMessage.trailers(of: message) {
                #expect(
                    !pair.key.isEmpty && !pair.key.contains(" ") && !pair.key.contains(":") && !pair.key.contains("\n"),
                    "\(message.debugDescription) gave key \(pair.key.debugDescription)")
                #expect(
                    !pair.value.contains("\n") && !pair.value.hasPrefix(" ") && !pair.value.hasSuffix(" ")
                        && !pair.value.hasSuffix("\r"), "\(message.debugDescription) gave value \(pair.value.debugDescription)")
            }
        }
    }

    @Test func invalidUTF8IsReadWithoutCrashing() {
        let bytes: [UInt8] = Array("Subject\n\nDocver-Device: ".utf8) + [0xFF, 0xC3] + Array("\nK\u{FF}: v\n".utf8)
        let parsed = CommitMessage.trailers(of: String(decoding: bytes, as: UTF8.self))
        #expect(parsed.count == 2)
        #expect(parsed.first?.key == "Docver-Device")
    }

    @Test func hugeTrailerParagraphIsReadWhole() {
        // 100,000 records, about 9 MB: an integration of a very large conflict. The parser is a
        // single scan, so this stays fast; a quadratic one would not finish in the test's time.
        let count = 100_000
        var text = "Integrate saves from 2 heads\n\n"
        text.reserveCapacity(count * 95)
        for index in 0..<count {
            text += "Docver-Conflict: \(String(repeating: "a", count: 34))\(100_000 + index) - folder/document%20\(index).txt\n"
        }
        let parsed = CommitMessage.trailers(of: text)
        #expect(parsed.count == count)
        #expect(parsed.last?.value.hasSuffix("folder/document%20\(count - 1).txt") == true)
    }

    // MARK: Validation of user messages

    @Test func userMessagesWithDocverLinesOrNULAreRejected() {
        for message in [
            "Docver-Resolved: abc x", "Title\n\nDocver-Device: mallory", "Title\nDocver-", "Title\0",
            "Title\n\nbody\0more",
        ] {
            #expect(throws: DocverError.self, "\(message.debugDescription)") { try CommitMessage.validateUserMessage(message) }
        }
    }

    @Test func ordinaryUserMessagesAreAccepted() throws {
        for message in [
            "Fix typo", "Title\n\nMentions Docver-Device inside a line", " Docver-Device: indented",
            "Title\n\nKey: value", "docver-device: lower case is not docver's", "Ünïcödé 😀",
        ] {
            try CommitMessage.validateUserMessage(message)
        }
    }

    @Test
    func userMessageWithDocverLineAfterCRLFIsRejected() {
        #expect(throws: DocverError.self) { try CommitMessage.validateUserMessage("Title\r\nDocver-Resolved: abc x") }
    }

    // MARK: Paths in trailers

    @Test(arguments: Seeds.make(8, salt: 3))
    func pathEncodingRoundTripsAndLeavesNoBlanks(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<300 {
            let path = random.awkwardString(length: 0...40)
            let encoded = TrailerPath.encode(path)
            #expect(TrailerPath.decode(encoded) == path, "seed \(seed): \(path.debugDescription) -> \(encoded.debugDescription)")
            #expect(!encoded.utf8.contains { $0 <= 0x20 || $0 == 0x7F }, "\(encoded.debugDescription) has a blank or control byte")
            // Every `%` starts an escape of two uppercase hexadecimal digits.
            let bytes = Array(encoded.utf8)
            for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "%") {
                let digits = bytes.dropFirst(index + 1).prefix(2)
                #expect(
                    digits.count == 2 && digits.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) },
                    "\(encoded.debugDescription): bad escape at \(index)")
            }
        }
    }

    @Test func pathEncodingMatchesTheDocumentedForm() {
        #expect(TrailerPath.encode("trip notes.txt") == "trip%20notes.txt")
        #expect(TrailerPath.encode("100%.txt") == "100%25.txt")
        #expect(TrailerPath.encode("a\tb\nc\u{7F}") == "a%09b%0Ac%7F")
        #expect(TrailerPath.encode("dir/été-😀.md") == "dir/été-😀.md")
        #expect(TrailerPath.encode("") == "")
    }

    @Test func everySingleByteControlEncodesAndDecodes() {
        for value in UInt8(0)...UInt8(0x7F) {
            let path = "a" + String(Unicode.Scalar(value)) + "b"
            let encoded = TrailerPath.encode(path)
            #expect(TrailerPath.decode(encoded) == path, "byte \(value)")
            let escaped = value <= 0x20 || value == 0x25 || value == 0x7F
            #expect((encoded.utf8.count == 5) == escaped, "byte \(value) encoded as \(encoded)")
        }
    }

    @Test func malformedEscapesDecodeToNil() {
        for text in ["%Z1", "a%1Z", "%4", "abc%", "%", "%%", "%G0", "a% b"] {
            #expect(TrailerPath.decode(text) == nil, "\(text.debugDescription)")
        }
    }

    @Test func lowercaseEscapesAreAccepted() {
        #expect(TrailerPath.decode("a%2fb%20c") == "a/b c")
    }

    @Test
    func escapesWithASignAreMalformed() {
        #expect(TrailerPath.decode("a%+1") == nil)
        #expect(TrailerPath.decode("a%-0") == nil)
    }

    @Test
    func escapesOfInvalidUTF8AreMalformed() {
        #expect(TrailerPath.decode("a%FF") == nil)
        #expect(TrailerPath.decode("a%C3") == nil)
    }

    @Test func escapedMultiByteSequencesDecode() {
        #expect(TrailerPath.decode("%C3%A9t%C3%A9") == "été")
    }
}
