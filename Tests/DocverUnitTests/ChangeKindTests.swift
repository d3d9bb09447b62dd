import Testing

@testable import DocverKit

/// The one rule for added, modified and deleted.
@Suite struct ChangeKindTests {
    @Test(arguments: [(false, false, nil), (false, true, ChangeKind.added), (true, true, .modified), (true, false, .deleted)])
    func presenceBeforeAndAfterDecidesTheKind(before: Bool, after: Bool, expected: ChangeKind?) {
        #expect(ChangeKind(existedBefore: before, existsAfter: after) == expected)
    }

    @Test func rawValuesAreTheWordsOfChangeLines() {
        // Save messages list changes as `added: path` (docs/FORMAT.md, "Saves").
        #expect([ChangeKind.added, .modified, .deleted].map(\.rawValue) == ["added", "modified", "deleted"])
    }
}
