import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// The key-value store's files (docs/FORMAT.md, "The key-value store"): file names, the
/// canonical JSON form, and reading values from ordinary JSON.
@Suite struct KeyValueFormatTests {
    /// A random property-list value, nested up to `depth` levels.
    static func value(_ random: inout SeededRandom, depth: Int = 3) -> PropertyListValue {
        switch Int.random(in: 0..<(depth > 0 ? 7 : 5), using: &random) {
        case 0: return .string(random.awkwardString(length: 0...12))
        case 1: return .data(Data((0..<Int.random(in: 0...20, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
        case 2:
            return .int([Int64.min, Int64.max, 0, -1, Int64.random(in: Int64.min...Int64.max, using: &random)].randomElement(using: &random)!)
        case 3:
            let special: [Double] = [0, -0.0, 1, 0.1, 1e-300, .greatestFiniteMagnitude, .leastNonzeroMagnitude, -2.5, 1e20, 123456789.125]
            return .double(
                Bool.random(using: &random)
                    ? special.randomElement(using: &random)!
                    : Double(bitPattern: UInt64.random(in: 0...0x7FEF_FFFF_FFFF_FFFF, using: &random)) * (Bool.random(using: &random) ? 1 : -1))
        case 4: return .bool(Bool.random(using: &random))
        case 5: return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in value(&random, depth: depth - 1) })
        default:
            var members: [String: PropertyListValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) { members[random.awkwardString(length: 0...6)] = value(&random, depth: depth - 1) }
            return .dictionary(members)
        }
    }

    @Test(arguments: Seeds.make(6, salt: 40))
    func everyValueRoundTripsThroughItsFileInOneCanonicalForm(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for _ in 0..<300 {
            let key = random.awkwardString(length: 1...10)
            let value = Self.value(&random)
            let bytes = KeyValueFiles.contents(key: key, value: value)
            let parsed = try #require(KeyValueFiles.parse(bytes), "seed \(seed): \(String(decoding: bytes, as: UTF8.self))")
            #expect(parsed.key == key && parsed.value == value, "seed \(seed)")
            #expect(KeyValueFiles.contents(key: parsed.key, value: parsed.value) == bytes, "seed \(seed): one canonical form")
            // The file is valid JSON for any other reader too.
            #expect((try? JSONSerialization.jsonObject(with: bytes)) != nil, "seed \(seed)")
        }
    }

    @Test func theFileNamesItsKeySoTwoKeysNeverHoldTheSameBytes() {
        let one = KeyValueFiles.contents(key: "a", value: .bool(true))
        let other = KeyValueFiles.contents(key: "b", value: .bool(true))
        #expect(one != other, "git's exact rename detection must never take one key's file for another's")
    }

    @Test func theCanonicalFormIsTheDocumentedOne() {
        #expect(
            String(decoding: KeyValueFiles.contents(key: "bg", value: .int(65280)), as: UTF8.self)
                == "{\n  \"key\": \"bg\",\n  \"type\": \"int\",\n  \"value\": 65280\n}\n")
        let nested = PropertyListValue.dictionary(["b": .data(Data([0, 1])), "a": .array([.double(1), .string("x\n")])])
        #expect(
            String(decoding: KeyValueFiles.contents(key: "k", value: nested), as: UTF8.self)
                == "{\n  \"key\": \"k\",\n  \"type\": \"dictionary\",\n  \"value\": {\"a\":{\"array\":[{\"double\":1.0},{\"string\":\"x\\n\"}]},\"b\":{\"data\":\"AAE=\"}}\n}\n"
        )
    }

    @Test func fileNamesAreSafeAndOnePerKey() {
        #expect(KeyValueFiles.fileName(ofKey: "bg") == "bg.json")
        #expect(KeyValueFiles.fileName(ofKey: "a/b") == "a%2Fb.json")
        #expect(KeyValueFiles.fileName(ofKey: ".x") == "%2Ex.json")
        #expect(KeyValueFiles.fileName(ofKey: "a.b") == "a.b.json")
        #expect(KeyValueFiles.fileName(ofKey: "%") == "%25.json")
        #expect(KeyValueFiles.path(ofKey: "é") == ".docver/kv/%C3%A9.json")
        var random = SeededRandom(seed: 41)
        var seen: [String: String] = [:]
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.%".unicodeScalars)
        for _ in 0..<5000 {
            let key = random.awkwardString(length: 1...6)
            let name = KeyValueFiles.fileName(ofKey: key)
            #expect(name.unicodeScalars.allSatisfy(allowed.contains) && !name.hasPrefix("."), "\(name)")
            #expect(name.utf8.count <= 3 * 64 + 5)
            if let other = seen[name] { #expect(Array(other.utf8) == Array(key.utf8), "two keys share the file \(name)") }
            seen[name] = key
        }
    }

    @Test(arguments: [
        "", "{}", "[]", "not json",
        "{\"key\":\"k\",\"type\":\"int\"}",  // no value
        "{\"key\":\"k\",\"type\":\"int\",\"value\":1.5}",  // a double as an int
        "{\"key\":\"k\",\"type\":\"int\",\"value\":9223372036854775808}",  // past Int64
        "{\"key\":\"k\",\"type\":\"bool\",\"value\":1}",
        "{\"key\":\"k\",\"type\":\"data\",\"value\":\"***\"}",
        "{\"key\":\"k\",\"type\":\"date\",\"value\":1}",  // an unknown type
        "{\"key\":\"k\",\"type\":\"array\",\"value\":[1]}",  // an untagged element
        "{\"key\":\"k\",\"type\":\"array\",\"value\":[{\"int\":1,\"bool\":true}]}",
        "{\"key\":\"k\",\"type\":\"int\",\"value\":1,\"extra\":2}",
        "{\"key\":\"k\",\"key\":\"k\",\"type\":\"int\"}",
    ])
    func whatIsNotAKeyFileIsRefused(text: String) {
        #expect(KeyValueFiles.parse(Data(text.utf8)) == nil)
    }

    @Test func ordinaryJSONBecomesPropertyListValues() throws {
        let value = try PropertyListValue(
            jsonText: #"{"n": 1, "d": 1.0, "e": 2e3, "s": "\u00e9\ud83d\ude00", "b": [true, false], "big": 9223372036854775807}"#)
        #expect(
            value
                == .dictionary([
                    "n": .int(1), "d": .double(1), "e": .double(2000), "s": .string("é😀"),
                    "b": .array([.bool(true), .bool(false)]), "big": .int(Int64.max),
                ]))
        #expect(try PropertyListValue(jsonText: "9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try PropertyListValue(jsonText: " \"x\" ") == .string("x"))
    }

    @Test(arguments: [
        "null", "[1, null]", "{\"a\": null}", "{", "[1,]", "01", "1.", "\"\\ud800\"", "{\"a\":1,\"a\":2}",
        "\"a\u{01}\"", "1 2", String(repeating: "[", count: 600) + String(repeating: "]", count: 600), "1e999",
    ])
    func badJSONIsAnInvalidValue(text: String) {
        #expect(throws: DocverError.self) { try PropertyListValue(jsonText: text) }
    }

    @Test(arguments: Seeds.make(4, salt: 42))
    func jsonTextReadsBackAsTheSameValue(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for _ in 0..<300 {
            let value = Self.value(&random)
            func withoutData(_ value: PropertyListValue) -> PropertyListValue {
                switch value {
                case let .data(data): .string(data.base64EncodedString())
                case let .array(elements): .array(elements.map(withoutData))
                case let .dictionary(members): .dictionary(members.mapValues(withoutData))
                default: value
                }
            }
            #expect(try PropertyListValue(jsonText: value.jsonText) == withoutData(value), "seed \(seed): \(value.jsonText)")
        }
    }

    @Test func keysAreOneToSixtyFourBytesWithoutControlCharacters() throws {
        try KeyValueQuota.validate(key: "bg")
        try KeyValueQuota.validate(key: String(repeating: "k", count: 64))
        try KeyValueQuota.validate(key: String(repeating: "😀", count: 16))  // 64 bytes
        for bad in ["", String(repeating: "k", count: 65), String(repeating: "😀", count: 16) + "k", "a\nb", "\u{7F}", "\u{85}"] {
            #expect(throws: DocverError.self, "\(bad.debugDescription)") { try KeyValueQuota.validate(key: bad) }
        }
        #expect(PropertyListValue.double(.nan).storageProblem != nil)
        #expect(PropertyListValue.array([.dictionary(["a": .double(.infinity)])]).storageProblem != nil)
        #expect(PropertyListValue.double(1).storageProblem == nil)
    }
}
