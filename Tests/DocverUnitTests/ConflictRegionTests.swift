import Foundation
import Testing

@testable import DocverKit

/// A refused merge names the lines of the two versions, counted in each version: the
/// merged text with markers is never shown to the user.
@Suite struct ConflictRegionTests {
    private func regions(_ text: String) -> [String] {
        Container.conflictRegions(in: Data(text.utf8), labels: ("bob (current)", "alice (1234)"))
    }

    @Test func linesAreCountedInEachVersion() {
        let merged = """
            one
            <<<<<<< bob (current)
            two (bob)
            two and a half (bob)
            ||||||| base
            two
            =======
            two (alice)
            >>>>>>> alice (1234)
            three
            <<<<<<< bob (current)
            ||||||| base
            four
            =======
            four (alice)
            more (alice)
            >>>>>>> alice (1234)

            """
        #expect(
            regions(merged) == [
                "both devices changed the same lines: bob (current) lines 2-3, alice (1234) line 2",
                "both devices changed the same lines: bob (current) removed them (after line 4), alice (1234) lines 4-5",
            ])
    }

    @Test func theWordsOfTheRealMergeMatch() throws {
        let base = Data("a\nb\nc\n".utf8)
        let result = try TextMerge.merge(
            base: base, ours: Data("a\nB1\nc\n".utf8), theirs: Data("a\nB2\nc\n".utf8),
            labels: (base: "base", ours: "bob (current)", theirs: "alice (1234)"))
        #expect(!result.clean)
        #expect(
            regions(String(decoding: result.merged, as: UTF8.self)) == [
                "both devices changed the same lines: bob (current) line 2, alice (1234) line 2"
            ])
    }

    @Test func withoutMarkersItSaysOverlappingChanges() {
        #expect(regions("plain\ntext\n") == ["overlapping changes"])
    }
}
