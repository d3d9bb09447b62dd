import DocverKit
import Foundation
import Testing

/// `ls --json` prints its array one document at a time (issue 28: 100,000 documents must not
/// cost a tree of all of them in the encoder), and what it prints is byte for byte the array
/// the --json contract's encoder writes in one piece.
@Suite struct ListJSONCLITests {
    /// The --json contract's encoding of the whole array at once: sorted keys, pretty printed,
    /// dates in ISO 8601 UTC with whole seconds.
    private func wholeArray(_ items: [ItemOutput]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            // (A formatter per date: one shared with the @Sendable closure would not be Sendable.)
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(identifier: "UTC")
            var container = encoder.singleValueContainer()
            try container.encode(formatter.string(from: date))
        }
        return String(decoding: try encoder.encode(items), as: UTF8.self) + "\n"
    }

    /// 0, 1 and 4 documents, and 1,100: more than two of the batches it encodes at once.
    @Test(arguments: [0, 1, 4, 1_100])
    func theStreamedArrayIsTheWholeArraysBytes(documents: Int) throws {
        let scratch = try Scratch()
        let alice = try scratch.listedDevice(documents: documents)
        let expected = try wholeArray(try alice.query().map(ItemOutput.init))
        let result = try docver("ls", "--json", in: alice.root)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == expected)
        #expect(result.stdout.hasPrefix(documents == 0 ? "[\n\n]" : "[\n  {\n"))
    }
}
