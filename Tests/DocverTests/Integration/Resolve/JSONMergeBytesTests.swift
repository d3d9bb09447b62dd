import DocverKit
import DocverTestSupport
import Foundation
import Testing

// The JSON merge changes only what a side changed: members nobody touched keep their exact
// bytes (number spelling, string escapes), their order and the current version's layout.
// Every case goes through a real conflict between two devices, resolved with MergeStrategy.

/// One JSON document for a merge: the base, the current version ("ours", the later save)
/// and the other device's version ("theirs").
struct JSONMergeCase {
    var base: String
    var current: String
    var other: String
}

/// Puts every document of `cases` (name → versions) in conflict between two devices, at
/// once, and merges each with `MergeStrategy` on the device of the other version: the merged
/// text, or the error.
func mergeJSONCases(
    _ cases: [String: JSONMergeCase], in scratch: Scratch,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> [String: Result<String, DocverError>] {
    let names = cases.keys.sorted()
    // "other" saves first, "current" a second later: its version is current everywhere.
    let fixture = try ConflictFixture.make(
        scratch, document: names[0], ids: ["other", "current"],
        base: cases.mapValues { Data($0.base.utf8) },
        edits: [cases.mapValues { Data($0.other.utf8) }, cases.mapValues { Data($0.current.utf8) }],
        sourceLocation: sourceLocation)
    let device = fixture.devices[0]
    var results: [String: Result<String, DocverError>] = [:]
    for name in names {
        let conflict = try #require(
            try device.conflicts(DocumentPath(name)).first, "\(name) is not in conflict",
            sourceLocation: sourceLocation)
        do {
            let resolution = try await MergeStrategy().resolve(conflict, in: device)
            guard case let .merged(.flat(data)) = resolution else {
                Issue.record("\(name): expected a merged flat document, got \(resolution)", sourceLocation: sourceLocation)
                continue
            }
            results[name] = .success(String(decoding: data, as: UTF8.self))
        } catch let error as DocverError {
            results[name] = .failure(error)
        }
    }
    return results
}

/// The merged text of a case (recording an issue when it failed).
func mergedText(
    _ results: [String: Result<String, DocverError>], _ name: String,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> String {
    switch try #require(results[name], "no result for \(name)", sourceLocation: sourceLocation) {
    case let .success(text): return text
    case let .failure(error):
        Issue.record("\(name) did not merge: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// Parses JSON with Foundation (the result must be valid JSON for another parser too).
func foundationJSON(_ text: String) throws -> NSObject {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? NSObject)
}

@Suite struct JSONMergeBytesTests {
    // MARK: Untouched members keep their bytes

    @Test func numberSpellingsAndEscapesOfUntouchedMembersSurvive() async throws {
        let scratch = try Scratch()
        let base = #"""
            {
              "big": 12345678901234567890,
              "one": 1.0,
              "negativeZero": -0.0,
              "thousand": 1e3,
              "small": 1E-7,
              "name": "caf\u00e9 \"au\" lait\/\ud83d\ude00",
              "counter": 1,
              "title": "Plan"
            }

            """#
        let other = base.replacingOccurrences(of: #""counter": 1"#, with: #""counter": 2"#)
        let current = base.replacingOccurrences(of: #""title": "Plan""#, with: #""title": "Plan B""#)
        let results = try await mergeJSONCases(["a.json": JSONMergeCase(base: base, current: current, other: other)], in: scratch)
        let merged = try mergedText(results, "a.json")
        #expect(merged == current.replacingOccurrences(of: #""counter": 1"#, with: #""counter": 2"#))
        for member in [
            #""big": 12345678901234567890,"#, #""one": 1.0,"#, #""negativeZero": -0.0,"#, #""thousand": 1e3,"#,
            #""small": 1E-7,"#, #""name": "caf\u00e9 \"au\" lait\/\ud83d\ude00","#,
        ] {
            #expect(merged.contains(member), "\(member) was rewritten")
        }
    }

    @Test func theMergedDocumentIsSavedByteForByte() async throws {
        let scratch = try Scratch()
        let base = "{\"b\": 12345678901234567890, \"a\": 1.0, \"c\": [1e3, -0.0]}\n"
        let fixture = try ConflictFixture.text(
            scratch, document: "settings.json", base: base,
            edits: [
                "{\"b\": 12345678901234567890, \"a\": 1.0, \"c\": [1e3, -0.0], \"d\": \"\\u00e9\"}\n",
                "{\"b\": 12345678901234567890, \"a\": 2.50, \"c\": [1e3, -0.0]}\n",
            ])
        let alice = fixture.devices[0]
        let outcome = try await alice.resolve(fixture.document, using: MergeStrategy())
        let expected = "{\"b\": 12345678901234567890, \"a\": 2.50, \"c\": [1e3, -0.0], \"d\": \"\\u00e9\"}\n"
        #expect(outcome.resolution == .merged(.flat(Data(expected.utf8))))
        #expect(try alice.read("settings.json") == expected)
        try alice.sync()
        try fixture.devices[1].sync()
        #expect(try fixture.devices[1].read("settings.json") == expected)
        #expect(try alice.conflicts().isEmpty)
    }

    // MARK: Layout

    @Test func keyOrderAndIndentationOfTheCurrentVersionAreKept() async throws {
        let scratch = try Scratch()
        var cases: [String: JSONMergeCase] = [:]
        for (name, unit) in [("two", "  "), ("four", "    "), ("tab", "\t")] {
            func document(_ members: [(String, String)]) -> String {
                "{\n" + members.map { "\(unit)\"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + "\n}\n"
            }
            let inner = "{\n\(unit)\(unit)\"y\": 1,\n\(unit)\(unit)\"x\": 2\n\(unit)}"
            let base = document([("zebra", "1"), ("apple", inner), ("mango", "true")])
            // The current version changes mango; the other one, written compact with sorted
            // keys, changes zebra and apple.x and adds a key.
            let current = document([("zebra", "1"), ("apple", inner), ("mango", "false")])
            let other = #"{"apple":{"x":3,"y":1},"mango":true,"new":{"list":[1,2]},"zebra":2}"#
            cases["\(name).json"] = JSONMergeCase(base: base, current: current, other: other)
        }
        let results = try await mergeJSONCases(cases, in: scratch)
        #expect(
            try mergedText(results, "two.json") == """
                {
                  "zebra": 2,
                  "apple": {
                    "y": 1,
                    "x": 3
                  },
                  "mango": false,
                  "new": {"list":[1,2]}
                }

                """)
        #expect(
            try mergedText(results, "four.json") == """
                {
                    "zebra": 2,
                    "apple": {
                        "y": 1,
                        "x": 3
                    },
                    "mango": false,
                    "new": {"list":[1,2]}
                }

                """)
        #expect(
            try mergedText(results, "tab.json")
                == "{\n\t\"zebra\": 2,\n\t\"apple\": {\n\t\t\"y\": 1,\n\t\t\"x\": 3\n\t},\n\t\"mango\": false,\n\t\"new\": {\"list\":[1,2]}\n}\n")
    }

    @Test func aKeyAddedByTheOtherSideTakesTheCurrentIndentation() async throws {
        let scratch = try Scratch()
        let base = "{\n    \"a\": 1,\n    \"b\": {\n        \"c\": 1\n    }\n}\n"
        // The other version is indented by two spaces; its new members are re-indented to four.
        let other = "{\n  \"a\": 1,\n  \"b\": {\n    \"c\": 1,\n    \"d\": [\n      1,\n      2\n    ]\n  },\n  \"e\": {\n    \"f\": null\n  }\n}\n"
        let current = "{\n    \"a\": 2,\n    \"b\": {\n        \"c\": 1\n    }\n}\n"
        let inline = JSONMergeCase(base: #"{ "a": 1 }"#, current: #"{ "a": 2 }"#, other: #"{ "a": 1, "b": [true] }"#)
        let compact = JSONMergeCase(base: #"{"a":1,"b":2}"#, current: #"{"a":1,"b":3}"#, other: "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 4\n}")
        let results = try await mergeJSONCases(
            [
                "indent.json": JSONMergeCase(base: base, current: current, other: other),
                "inline.json": inline, "compact.json": compact,
            ], in: scratch)
        #expect(
            try mergedText(results, "indent.json") == """
                {
                    "a": 2,
                    "b": {
                        "c": 1,
                        "d": [
                            1,
                            2
                        ]
                    },
                    "e": {
                        "f": null
                    }
                }

                """)
        #expect(try mergedText(results, "inline.json") == #"{ "a": 2, "b": [true] }"#)
        #expect(try mergedText(results, "compact.json") == #"{"a":1,"b":3,"c":4}"#)
    }

    @Test func aKeyDeletedByTheOtherSideGoesWithItsComma() async throws {
        let scratch = try Scratch()
        let base = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3,\n  \"d\": 4\n}\n"
        let current = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3,\n  \"d\": 5\n}\n"
        let cases = [
            "first.json": JSONMergeCase(base: base, current: current, other: "{\"b\": 2, \"c\": 3, \"d\": 4}"),
            "middle.json": JSONMergeCase(base: base, current: current, other: "{\"a\": 1, \"c\": 3, \"d\": 4}"),
            "last.json": JSONMergeCase(
                base: base, current: "{\n  \"a\": 0,\n  \"b\": 2,\n  \"c\": 3,\n  \"d\": 4\n}\n",
                other: "{\"a\": 1, \"b\": 2, \"c\": 3}"),
            "all.json": JSONMergeCase(
                base: #"{"x": {"a": 1, "b": 2}, "y": 1}"#, current: #"{"x": {"a": 1, "b": 2}, "y": 2}"#,
                other: #"{"x": {}, "y": 1}"#),
            "inline.json": JSONMergeCase(
                base: #"{ "a": 1, "b": 2, "c": 3 }"#, current: #"{ "a": 1, "b": 2, "c": 4 }"#,
                other: #"{ "a": 1, "c": 3 }"#),
        ]
        let results = try await mergeJSONCases(cases, in: scratch)
        let expected = [
            "first.json": "{\n  \"b\": 2,\n  \"c\": 3,\n  \"d\": 5\n}\n",
            "middle.json": "{\n  \"a\": 1,\n  \"c\": 3,\n  \"d\": 5\n}\n",
            "last.json": "{\n  \"a\": 0,\n  \"b\": 2,\n  \"c\": 3\n}\n",
            "all.json": #"{"x": {}, "y": 2}"#,
            "inline.json": #"{ "a": 1, "c": 4 }"#,
        ]
        for (name, text) in expected {
            let merged = try mergedText(results, name)
            #expect(merged == text, "\(name)")
            #expect(throws: Never.self, "\(name) is not valid JSON") { try foundationJSON(merged) }
        }
    }

    @Test func nestedObjectsMergeMemberByMember() async throws {
        let scratch = try Scratch()
        let base = """
            {
              "app": {
                "window": { "width": 800, "height": 600 },
                "theme": { "name": "light", "accent": "#00f" }
              },
              "recent": ["a.txt"]
            }

            """
        let current = """
            {
              "app": {
                "window": { "width": 1024, "height": 600 },
                "theme": { "name": "light", "accent": "#00f" }
              },
              "recent": ["b.txt", "a.txt"]
            }

            """
        let other = """
            {
              "app": {
                "window": { "width": 800, "height": 700, "x": 10 },
                "theme": { "name": "dark" }
              },
              "recent": ["a.txt"]
            }

            """
        let results = try await mergeJSONCases(["prefs.json": JSONMergeCase(base: base, current: current, other: other)], in: scratch)
        #expect(
            try mergedText(results, "prefs.json") == """
                {
                  "app": {
                    "window": { "width": 1024, "height": 700, "x": 10 },
                    "theme": { "name": "dark" }
                  },
                  "recent": ["b.txt", "a.txt"]
                }

                """)
    }

    @Test func reSpellingOrReLayingOutAValueIsNoChange() async throws {
        let scratch = try Scratch()
        // The current version only re-spelled and re-laid-out the base: it changed no value,
        // so the other version's changes apply in the current layout.
        let respelled = JSONMergeCase(
            base: #"{"a": 1, "b": 10}"#, current: "{\n  \"b\": 1e1,\n  \"a\": 1.0\n}\n",
            other: #"{"a": 2, "b": 10}"#)
        // The other version only re-laid-out the base: the current version stays as it is.
        let relaid = JSONMergeCase(base: #"{"a": 1, "b": 10}"#, current: #"{"a": 1, "b": 11}"#, other: "{\"a\":1,\n\"b\":10}")
        let results = try await mergeJSONCases(["respelled.json": respelled, "relaid.json": relaid], in: scratch)
        #expect(try mergedText(results, "respelled.json") == "{\n  \"b\": 1e1,\n  \"a\": 2\n}\n")
        #expect(try mergedText(results, "relaid.json") == #"{"a": 1, "b": 11}"#)
    }

    // MARK: Failures

    @Test func conflictingChangesFailNamingEachPath() async throws {
        let scratch = try Scratch()
        let base = #"{"a": {"b": {"c": 1, "d": [1]}, "e": 1}, "f": "x", "g": 1}"#
        let cases = [
            "conflict.json": JSONMergeCase(
                base: base, current: #"{"a": {"b": {"c": 2, "d": [1, 2]}, "e": 1}, "f": "y", "g": 2}"#,
                other: #"{"a": {"b": {"c": 3, "d": [0]}, "e": 2}, "f": "z", "g": 1}"#),
            "invalid.json": JSONMergeCase(base: base, current: #"{"a": 1}"#, other: #"{"a": 2,}"#),
            "duplicate.json": JSONMergeCase(base: base, current: #"{"a": {"b": 1, "b": 2}}"#, other: #"{"a": 3}"#),
            "deep.json": JSONMergeCase(
                base: base, current: String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
                other: #"{"a": 3}"#),
        ]
        let results = try await mergeJSONCases(cases, in: scratch)
        let reasons = ["$.a.b.c", "$.a.b.d", "$.f"].map { "\($0) changed to different values on both devices" }
        #expect(results["conflict.json"] == .failure(.mergeFailed(document: "conflict.json", reasons: reasons)))
        #expect(results["invalid.json"] == .failure(.notMergeable(document: "invalid.json", reason: "the other version is not valid JSON")))
        #expect(
            results["duplicate.json"]
                == .failure(
                    .notMergeable(
                        document: "duplicate.json",
                        reason: #"the current version is not valid JSON for merging: the key "b" appears more than once in $.a"#)))
        #expect(results["deep.json"] == .failure(.notMergeable(document: "deep.json", reason: "the current version is not valid JSON")))
    }

    // MARK: Randomized

    @Test func randomDisjointChangesMergeAndLeaveEverythingElseByteForByte() async throws {
        var generator = RandomJSONCases(seed: 0x5EED_1150)
        var cases: [String: JSONMergeCase] = [:]
        var plans: [String: RandomJSONCases.Plan] = [:]
        for index in 0..<200 {
            let plan = generator.plan()
            let name = String(format: "r%03d.json", index)
            plans[name] = plan
            cases[name] = JSONMergeCase(base: plan.base, current: plan.current, other: plan.other)
        }
        let scratch = try Scratch()
        let results = try await mergeJSONCases(cases, in: scratch)
        for (name, plan) in plans.sorted(by: { $0.key < $1.key }) {
            let context = "\(name)\n--- base\n\(plan.base)\n--- current\n\(plan.current)\n--- other\n\(plan.other)"
            guard case let .success(merged)? = results[name] else {
                Issue.record("\(results[name].map { "\($0)" } ?? "no result"): \(context)")
                continue
            }
            let parsed = try? foundationJSON(merged)
            #expect(parsed != nil, "the merge is not valid JSON: \(context)\n--- merged\n\(merged)")
            #expect(
                parsed == (try? foundationJSON(plan.expected)),
                "the merge does not hold both sides' changes: \(context)\n--- merged\n\(merged)\n--- expected\n\(plan.expected)")
            if plan.sameLayout {
                #expect(merged == plan.expected, "\(context)\n--- merged\n\(merged)\n--- expected\n\(plan.expected)")
            }
            for member in plan.untouched where !merged.contains(member) {
                Issue.record("an untouched member lost its bytes: \(member)\n\(context)\n--- merged\n\(merged)")
            }
        }
    }
}

/// Random JSON documents and disjoint changes of two sides, for the randomized merge test.
struct RandomJSONCases {
    /// A value: scalars are kept as their JSON text.
    indirect enum Value {
        case scalar(String)
        case array([Value])
        case object([(key: String, value: Value)])
    }

    /// A text layout.
    struct Layout: Equatable {
        /// One level of indentation; nil writes everything on one line.
        var unit: String?
        var colon: String
        /// One-line layouts: a space inside brackets and after commas.
        var spaced: Bool

        func write(_ value: Value, level: Int = 0) -> String {
            switch value {
            case let .scalar(text): return text
            case let .array(elements):
                return wrap("[", elements.map { write($0, level: level + 1) }, "]", level: level)
            case let .object(members):
                return wrap("{", members.map { "\"\($0.key)\"" + colon + write($0.value, level: level + 1) }, "}", level: level)
            }
        }

        private func wrap(_ open: String, _ items: [String], _ close: String, level: Int) -> String {
            guard !items.isEmpty else { return open + close }
            if let unit {
                let inner = String(repeating: unit, count: level + 1)
                return open + "\n" + items.map { inner + $0 }.joined(separator: ",\n") + "\n"
                    + String(repeating: unit, count: level) + close
            }
            let space = spaced ? " " : ""
            return open + space + items.joined(separator: "," + space) + space + close
        }
    }

    struct Plan {
        var base: String
        var current: String
        var other: String
        /// Both sides' changes applied to the base, in the current layout.
        var expected: String
        /// The other version has the current one's layout: the merge must be `expected` exactly.
        var sameLayout: Bool
        /// The text of each member neither side touched, as the current version has it.
        var untouched: [String]
    }

    private var random: SeededRandom
    private var counter = 0

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    private mutating func next() -> UInt64 { random.next() }

    private mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    private mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    private mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    private static let layouts = [
        Layout(unit: "  ", colon: ": ", spaced: false), Layout(unit: "    ", colon: ": ", spaced: false),
        Layout(unit: "\t", colon: ": ", spaced: false), Layout(unit: "  ", colon: " : ", spaced: false),
        Layout(unit: nil, colon: ":", spaced: false), Layout(unit: nil, colon: ": ", spaced: true),
    ]
    private static let scalars = [
        "12345678901234567890", "1.0", "-0.0", "1e3", "2.50", "-7", "0", "1E-7", "true", "false", "null",
        #""caf\u00e9""#, #""line\nbreak""#, #""a\/b""#, #""quote \" here""#, "\"😀\"", #""\ud83d\ude00""#, #""plain""#, #""""#,
    ]
    private static let keys = ["zeta", "alpha", "mid", "b", "a", "Z", "key with space", #"\u00e9t\u00e9"#, "n1", "n10", "n2", "_"]

    /// A fresh value no other generated value equals.
    private mutating func freshValue(depth: Int) -> Value {
        counter += 1
        switch below(depth < 3 ? 5 : 3) {
        case 0: return .scalar("\"new \(counter)\"")
        case 1: return .scalar("\(counter).25e1")
        case 2: return .array([.scalar("\(counter)"), randomValue(depth: depth + 1)])
        default: return .object([(key: "fresh\(counter)", value: randomValue(depth: depth + 1))])
        }
    }

    private mutating func randomValue(depth: Int) -> Value {
        let roll = below(10)
        if depth < 4, roll < 3 { return randomObject(depth: depth + 1) }
        if depth < 4, roll < 4 {
            return .array((0..<below(4)).map { _ in randomValue(depth: depth + 1) })
        }
        return .scalar(pick(Self.scalars))
    }

    private mutating func randomObject(depth: Int) -> Value {
        var names = Self.keys
        var members: [(key: String, value: Value)] = []
        for _ in 0..<below(depth == 1 ? 8 : 5) + (depth == 1 ? 2 : 0) {
            members.append((key: names.remove(at: below(names.count)), value: randomValue(depth: depth)))
        }
        return .object(members)
    }

    /// The sides' versions of an object's members and the expected merge; records the members
    /// neither side touched (written at `level` in `layout`).
    private mutating func change(
        _ members: [(key: String, value: Value)], depth: Int, layout: Layout,
        untouched: inout [String], changed: inout (current: Bool, other: Bool)
    )
        -> (current: [(key: String, value: Value)], other: [(key: String, value: Value)], expected: [(key: String, value: Value)])
    {
        var current: [(key: String, value: Value)] = [], other: [(key: String, value: Value)] = []
        var expected: [(key: String, value: Value)] = []
        for member in members {
            let roll = below(100)
            if case let .object(inner) = member.value, roll >= 75 {
                let split = change(inner, depth: depth + 1, layout: layout, untouched: &untouched, changed: &changed)
                current.append((member.key, .object(split.current)))
                other.append((member.key, .object(split.other)))
                expected.append((member.key, .object(split.expected)))
            } else if roll < 10 {  // the current version changes it
                let value = freshValue(depth: depth)
                current.append((member.key, value)); other.append(member); expected.append((member.key, value))
                changed.current = true
            } else if roll < 17 {  // the current version deletes it
                other.append(member)
                changed.current = true
            } else if roll < 27 {  // the other version changes it
                let value = freshValue(depth: depth)
                current.append(member); other.append((member.key, value)); expected.append((member.key, value))
                changed.other = true
            } else if roll < 34 {  // the other version deletes it
                current.append(member)
                changed.other = true
            } else {
                current.append(member); other.append(member); expected.append(member)
                untouched.append("\"\(member.key)\"" + layout.colon + layout.write(member.value, level: depth))
            }
        }
        // Additions: the current version's first, then the other's (where the merge puts them).
        // At the top, each side must have changed something, or there is no conflict to merge.
        var added: [(key: String, value: Value)] = []
        if chance(20) || (depth == 1 && !changed.current) {
            counter += 1
            let member = (key: "current\(counter)", value: freshValue(depth: depth))
            current.append(member); expected.append(member)
            changed.current = true
        }
        if chance(20) || (depth == 1 && !changed.other) {
            counter += 1
            added.append((key: "other\(counter)", value: freshValue(depth: depth)))
            changed.other = true
        }
        other += added
        expected += added
        return (current, other, expected)
    }

    mutating func plan() -> Plan {
        guard case let .object(members) = randomObject(depth: 1) else { fatalError("an object") }
        let layout = pick(Self.layouts)
        let otherLayout = chance(50) ? layout : pick(Self.layouts)
        var untouched: [String] = []
        var changed = (current: false, other: false)
        let sides = change(members, depth: 1, layout: layout, untouched: &untouched, changed: &changed)
        return Plan(
            base: layout.write(.object(members)) + "\n", current: layout.write(.object(sides.current)) + "\n",
            other: otherLayout.write(.object(sides.other)) + "\n",
            expected: layout.write(.object(sides.expected)) + "\n", sameLayout: layout == otherLayout,
            untouched: untouched)
    }
}
