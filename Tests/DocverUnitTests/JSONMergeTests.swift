import Foundation
import Testing

@testable import DocverKit

/// The structural JSON merge (docs/RESOLVING.md, "JSON"): objects merge key by key; any other
/// value changed to different values on both sides is a conflict reported by its JSON path.
/// The result is rewritten with sorted keys and two-space indentation.
@Suite struct JSONMergeTests {
    static func merge(base: String?, ours: String, theirs: String) throws -> String {
        let data = try JSONMerge.merge(path: "doc.json", base: base.map { Data($0.utf8) }, ours: Data(ours.utf8), theirs: Data(theirs.utf8))
        return String(decoding: data, as: UTF8.self)
    }

    /// The merged document in a canonical form, for comparisons that do not depend on layout.
    static func mergedValue(base: String?, ours: String, theirs: String) throws -> String {
        try value(merge(base: base, ours: ours, theirs: theirs))
    }

    /// `json` parsed and written back compactly with sorted keys.
    static func value(_ json: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }

    static func conflict(_ paths: String...) -> DocverError {
        .mergeFailed(document: "doc.json", reasons: paths.map { "\($0) changed to different values on both devices" })
    }

    // MARK: Clean merges

    @Test func disjointKeyChangesBothLand() throws {
        let merged = try Self.mergedValue(
            base: #"{"a": 1, "b": 2, "c": 3}"#, ours: #"{"a": 10, "b": 2, "c": 3}"#,
            theirs: #"{"a": 1, "b": 20, "c": 3}"#)
        #expect(merged == (try Self.value(#"{"a": 10, "b": 20, "c": 3}"#)))
    }

    @Test func nestedObjectsMergeKeyByKey() throws {
        let merged = try Self.mergedValue(
            base: #"{"o": {"x": 1, "y": 1, "deep": {"p": 0, "q": 0}}}"#,
            ours: #"{"o": {"x": 2, "y": 1, "deep": {"p": 5, "q": 0}}}"#,
            theirs: #"{"o": {"x": 1, "y": 3, "deep": {"p": 0, "q": 7}}}"#)
        #expect(merged == (try Self.value(#"{"o": {"x": 2, "y": 3, "deep": {"p": 5, "q": 7}}}"#)))
    }

    @Test func deletionOnOneSideWithTheKeyUntouchedOnTheOtherIsKept() throws {
        let merged = try Self.mergedValue(base: #"{"a": 1, "b": 2}"#, ours: #"{"b": 2}"#, theirs: #"{"a": 1, "b": 3}"#)
        #expect(merged == (try Self.value(#"{"b": 3}"#)))
    }

    @Test func additionsOfDifferentKeysBothLand() throws {
        let merged = try Self.mergedValue(base: #"{}"#, ours: #"{"a": [1, 2]}"#, theirs: #"{"b": null}"#)
        #expect(merged == (try Self.value(#"{"a": [1, 2], "b": null}"#)))
    }

    @Test func theSameChangeOnBothSidesIsNotAConflict() throws {
        let merged = try Self.mergedValue(base: #"{"a": 1, "l": [1]}"#, ours: #"{"a": 2, "l": [1, 2]}"#, theirs: #"{"a": 2, "l": [1, 2]}"#)
        #expect(merged == (try Self.value(#"{"a": 2, "l": [1, 2]}"#)))
    }

    @Test func deletionOnBothSidesIsClean() throws {
        let merged = try Self.mergedValue(base: #"{"a": 1, "b": 2}"#, ours: #"{"b": 2}"#, theirs: #"{"b": 2}"#)
        #expect(merged == (try Self.value(#"{"b": 2}"#)))
    }

    @Test func withoutABaseObjectsStillMergeKeyByKey() throws {
        let merged = try Self.mergedValue(base: nil, ours: #"{"a": 1, "same": true}"#, theirs: #"{"b": 2, "same": true}"#)
        #expect(merged == (try Self.value(#"{"a": 1, "b": 2, "same": true}"#)))
        #expect(throws: Self.conflict("$.k")) { try Self.merge(base: nil, ours: #"{"k": 1}"#, theirs: #"{"k": 2}"#) }
    }

    // MARK: Conflicts

    @Test func conflictingScalarChangesReportTheirPath() {
        #expect(throws: Self.conflict("$.a.b")) {
            try Self.merge(base: #"{"a": {"b": 1, "c": 1}}"#, ours: #"{"a": {"b": 2, "c": 1}}"#, theirs: #"{"a": {"b": 3, "c": 1}}"#)
        }
    }

    @Test func everyConflictIsReportedInDocumentOrder() {
        #expect(throws: Self.conflict("$.z.y", "$.a")) {
            try Self.merge(
                base: #"{"z": {"y": "0"}, "a": 0, "m": 0}"#, ours: #"{"z": {"y": "1"}, "a": 1, "m": 0}"#,
                theirs: #"{"z": {"y": "2"}, "a": 2, "m": 5}"#)
        }
    }

    @Test func arraysChangedDifferentlyConflictAsAWhole() {
        #expect(throws: Self.conflict("$.list")) {
            try Self.merge(base: #"{"list": [1, 2, 3]}"#, ours: #"{"list": [0, 1, 2, 3]}"#, theirs: #"{"list": [1, 2, 3, 4]}"#)
        }
    }

    @Test func deletionAgainstAChangeIsAConflict() {
        #expect(throws: Self.conflict("$.a")) {
            try Self.merge(base: #"{"a": 1, "b": 2}"#, ours: #"{"b": 2}"#, theirs: #"{"a": 5, "b": 2}"#)
        }
    }

    @Test func objectAgainstScalarIsAConflict() {
        #expect(throws: Self.conflict("$.a")) {
            try Self.merge(base: #"{"a": {"x": 1}}"#, ours: #"{"a": {"x": 2}}"#, theirs: #"{"a": "flat"}"#)
        }
    }

    @Test func typeChangesAreChanges() {
        // 1, "1", 1.5 and true are four different values.
        #expect(throws: Self.conflict("$.a")) { try Self.merge(base: #"{"a": 0}"#, ours: #"{"a": 1}"#, theirs: #"{"a": "1"}"#) }
        #expect(throws: Self.conflict("$.a")) { try Self.merge(base: #"{"a": 0}"#, ours: #"{"a": 1.5}"#, theirs: #"{"a": true}"#) }
    }

    @Test func topLevelNonObjectsConflictAtTheRoot() {
        #expect(throws: Self.conflict("$")) { try Self.merge(base: "[1]", ours: "[1, 2]", theirs: "[0, 1]") }
        #expect(throws: Self.conflict("$")) { try Self.merge(base: "1", ours: "2", theirs: "3") }
    }

    // MARK: Invalid input

    @Test func invalidJSONOnAnySideIsNotMergeable() {
        let valid = #"{"a": 1}"#
        #expect(throws: DocverError.notMergeable(document: "doc.json", reason: "the other version is not valid JSON")) {
            try Self.merge(base: valid, ours: #"{"a": 2}"#, theirs: #"{"a": "#)
        }
        #expect(throws: DocverError.notMergeable(document: "doc.json", reason: "the current version is not valid JSON")) {
            try Self.merge(base: valid, ours: "not json", theirs: #"{"a": 3}"#)
        }
        #expect(throws: DocverError.notMergeable(document: "doc.json", reason: "the base version is not valid JSON")) {
            try Self.merge(base: "{,}", ours: #"{"a": 2}"#, theirs: #"{"a": 3}"#)
        }
    }

    // MARK: Output

    @Test func outputKeepsTheCurrentLayoutAsDocumented() throws {
        // The example of docs/RESOLVING.md: alice renamed the title; bob changed days and added
        // budget. The current version's key order and layout stay; the added key follows them.
        let base = #"{"title": "Trip", "days": 3, "tags": ["sea"]}"#
        let alice = #"{"title": "Trip to the coast", "days": 3, "tags": ["sea"]}"#
        let bob = #"{"title": "Trip", "days": 4, "tags": ["sea"], "budget": 300}"#
        #expect(
            try Self.merge(base: base, ours: alice, theirs: bob)
                == #"{"title": "Trip to the coast", "days": 4, "tags": ["sea"], "budget": 300}"#)
    }

    @Test func integersStayIntegersAndTextStaysReadable() throws {
        let text = try Self.merge(base: #"{"n": 1, "s": "x"}"#, ours: #"{"n": 2, "s": "x"}"#, theirs: #"{"n": 1, "s": "a/b été 😀", "f": 1.5}"#)
        #expect(text == #"{"n": 2, "s": "a/b été 😀", "f": 1.5}"#)
    }

    // MARK: Issue 11 item 5: keep untouched members as they were

    @Test
    func integerBeyondInt64SurvivesUnchanged() throws {
        let text = try Self.merge(
            base: #"{"big": 12345678901234567890, "a": 1}"#, ours: #"{"big": 12345678901234567890, "a": 2}"#,
            theirs: #"{"big": 12345678901234567890, "a": 1}"#)
        #expect(text.contains("12345678901234567890"), "\(text)")
    }

    @Test
    func oneZeroStaysOneZero() throws {
        let text = try Self.merge(base: #"{"x": 1.0, "a": 1}"#, ours: #"{"x": 1.0, "a": 2}"#, theirs: #"{"x": 1.0, "a": 1}"#)
        #expect(text.contains("1.0"), "\(text)")
    }

    @Test
    func negativeZeroStays() throws {
        let text = try Self.merge(base: #"{"x": -0.0, "a": 1}"#, ours: #"{"x": -0.0, "a": 2}"#, theirs: #"{"x": -0.0, "a": 1}"#)
        #expect(text.contains("-0.0"), "\(text)")
    }

    @Test
    func keyOrderAndLayoutOfUntouchedMembersArePreserved() throws {
        let base = #"{"zeta": {"k": [1,2]}, "alpha": "x", "mid": 0}"#
        let text = try Self.merge(
            base: base, ours: #"{"zeta": {"k": [1,2]}, "alpha": "y", "mid": 0}"#,
            theirs: #"{"zeta": {"k": [1,2]}, "alpha": "x", "mid": 1}"#)
        #expect(text.contains(#"{"k": [1,2]}"#), "\(text)")
        let zeta = try #require(text.range(of: "zeta")), alpha = try #require(text.range(of: "alpha"))
        #expect(zeta.lowerBound < alpha.lowerBound, "\(text)")
    }
}
