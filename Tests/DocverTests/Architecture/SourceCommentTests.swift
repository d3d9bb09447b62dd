import Foundation
import Testing

/// Issue 27: a rule's reason lives in the docs and in the tests that pin it, not in a fuzz
/// seed. No comment in Sources cites one (the replay tests keep their seeds).
@Suite struct SourceCommentTests {
    private var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
    }

    /// The lines of Swift files below `folder` that cite a seed ("seed 42", "seeds 163 and 189").
    static func seedCitations(below folder: URL) throws -> [String] {
        let pattern = try NSRegularExpression(pattern: "\\bseeds? [0-9]", options: [.caseInsensitive])
        var found: [String] = []
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains("//") && pattern.firstMatch(in: String(line), range: NSRange(line.startIndex..., in: line)) != nil {
                found.append("\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return found
    }

    @Test func noCommentInSourcesCitesAFuzzSeed() throws {
        let found = try Self.seedCitations(below: sources)
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// The search finds a citation.
    @Test func aCitationIsFound() throws {
        let scratch = try Scratch()
        try Data("/// Keeps the version (fuzz seed 12).\nfunc keep() {}\n".utf8).write(to: scratch.path("Keep.swift"))
        #expect(try Self.seedCitations(below: scratch.url).count == 1)
    }
}
