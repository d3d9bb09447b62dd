import DocverKit
import DocverTestSupport
import Foundation
import Testing

/// `Container.version(_:of:)` with a ``VersionSpecifier`` on real containers, against a model:
/// the list of a document's saves (edits and restores) in order.
@Suite struct CoreVersionSpecifierTests {
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func specifiersNameTheVersionsOfTheModel(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let document = try DocumentPath("notes/today.txt")
        try alice.saveText("other", to: "other.txt")
        // The model: every version of the document, oldest first, with its contents.
        var model: [(id: String, text: String)] = []
        for step in 0..<Int.random(in: 3...9, using: &random) {
            let back = model.count > 1 ? Int.random(in: 1..<model.count, using: &random) : 0
            // A restore to the contents the document has already would not be a new version.
            if back > 0, model[model.count - 1 - back].text != model.last!.text, Int.random(in: 0..<3, using: &random) == 0 {
                let result = try alice.restore(document, to: model[model.count - 1 - back].id)
                model.append((result.id, model[model.count - 1 - back].text))
            } else {
                let text = "step \(step) \(Int.random(in: 0..<1000, using: &random))\n"
                model.append((try alice.saveText(text, to: document.path), text))
            }
            if Bool.random(using: &random) { try alice.saveText("other \(step)", to: "other.txt") }  // saves of another document
        }
        func text(_ version: DocumentVersion) throws -> String {
            guard case let .flat(data) = try alice.contents(of: version) else { return "(not flat)" }
            return String(decoding: data, as: UTF8.self)
        }

        for back in 0..<model.count {
            let found = try alice.version(.back(back), of: document)
            #expect(found.id == model[model.count - 1 - back].id, "@-\(back)")
            #expect(try text(found) == model[model.count - 1 - back].text)
        }
        #expect(try alice.version(.current, of: document).id == model.last!.id)
        #expect(throws: DocverError.notThatManyVersions(document: document.path, back: model.count, available: model.count - 1)) {
            try alice.version(.back(model.count), of: document)
        }
        for entry in model {
            #expect(try alice.version(.id(String(entry.id.prefix(10))), of: document).id == entry.id)
        }

        // By date: the newest version saved at or before it (saves in one second share a date).
        let versions = try [alice.version(.current, of: document)] + alice.history(of: document)
        for version in versions {
            let newestThen = versions.first { $0.modified <= version.modified }!
            #expect(try alice.version(.at(version.modified), of: document) == newestThen)
        }
        let first = versions.last!.modified
        #expect(throws: DocverError.noVersionAtDate(document: document.path, date: first.addingTimeInterval(-1))) {
            try alice.version(.at(first.addingTimeInterval(-1)), of: document)
        }
        #expect(try alice.version(.at(Date.distantFuture), of: document).id == model.last!.id)

        // A document never saved has no current version, no history and no date.
        let never = try DocumentPath("never.txt")
        for specifier in [VersionSpecifier.current, .back(1), .at(Date())] {
            #expect(throws: DocverError.noSuchDocument("never.txt")) { try alice.version(specifier, of: never) }
        }
    }

    /// Versions dated a second apart: `--at` picks by date, whatever the order of the saves.
    @Test func aDateBetweenTwoSavesNamesTheEarlierOne() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let document = try DocumentPath("a.txt")
        let first = try alice.saveText("one", to: "a.txt")
        scratch.clock.tick()
        let second = try alice.saveText("two", to: "a.txt")
        let secondDate = try alice.version(.current, of: document).modified
        #expect(try alice.version(.at(secondDate.addingTimeInterval(-0.5)), of: document).id == first)
        #expect(try alice.version(.at(secondDate), of: document).id == second)
    }
}
