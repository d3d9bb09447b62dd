import DocverKit
import Foundation
import Testing

/// Loose objects are packed in the background once there are more than git's `gc.auto`
/// threshold, as `git commit` does (docs/CLI.md, "gc": automatic packing), and packing loses nothing.
@Suite struct CoreAutoPackTests {
    /// Contents whose blob ids start with `17`: git estimates the loose objects from the
    /// folder `.git/objects/17` alone, so three of these are over a threshold of 256.
    private static let contentsIn17 = [43, 534, 1263].map { "packed document \($0)\n" }

    private func looseAndPacked(_ container: Container) throws -> (loose: Int, packed: Int) {
        let fields = try container.git(["count-objects", "-v"]).split(separator: "\n").reduce(into: [String: Int]()) {
            let parts = $1.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, let value = Int(parts[1]) { $0[parts[0]] = value }
        }
        return (fields["count"] ?? -1, fields["in-pack"] ?? -1)
    }

    @Test func aSaveOverTheThresholdPacksItsLooseObjectsAndLosesNothing() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        _ = try alice.git(["config", "gc.auto", "256"])
        for (index, text) in Self.contentsIn17.enumerated() {
            try alice.write(text, to: "doc\(index).txt")
            #expect(try alice.git(["hash-object", "doc\(index).txt"]).hasPrefix("17"))
        }
        let save = try #require(try alice.save())
        #expect(save.changes.count == 3)

        // The save returned; git packs in the background. Wait for the pack (a handshake on
        // what git leaves behind, with a generous bound: it takes milliseconds).
        try await waitUntil(timeout: .seconds(120), "the loose objects packed") {
            let counts = try looseAndPacked(alice)
            return counts.loose == 0 && counts.packed > 0
        }
        try expectFsckClean(alice.root)
        for (index, text) in Self.contentsIn17.enumerated() {
            #expect(try alice.git(["show", "HEAD:doc\(index).txt"]) == text)
            #expect(try alice.versions(of: DocumentPath("doc\(index).txt")).current.id == save.id)
        }
        // The container goes on working over the packed objects.
        try alice.write("more\n", to: "doc0.txt")
        #expect(try alice.save() != nil)
        try expectFsckClean(alice.root)
    }

    /// Bad settings of the packing keys (`gc.auto`, `gc.autoPackLimit`,
    /// `docver.saveUnpackLimit`) never stop a save: each is read as its default.
    @Test func badPackingSettingsDoNotStopASave() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        for key in ["gc.auto", "gc.autoPackLimit", "docver.saveUnpackLimit"] {
            for value in ["many", "99999999999999999g", "-"] {
                try alice.git(["config", key, value])
                try alice.write("\(key) \(value)\n", to: "doc.txt")
                #expect(try alice.save() != nil, "\(key) = \(value)")
            }
            try alice.git(["config", "--unset", key])
        }
        try expectFsckClean(alice.root)
    }

    /// Saves of many documents write a pack each (`docver.saveUnpackLimit`); past git's
    /// `gc.autoPackLimit` they are put into one, and nothing is lost.
    @Test func packsOverGitsLimitArePutTogetherAndLoseNothing() async throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        _ = try alice.git(["config", "docver.saveUnpackLimit", "1"])
        _ = try alice.git(["config", "gc.autoPackLimit", "2"])
        var saves: [String] = []
        for round in 0..<3 {
            try alice.write("round \(round)\n", to: "doc.txt")
            saves.append(try #require(try alice.save()).id)
        }
        func packCount() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: alice.root.appendingPathComponent(".git/objects/pack").path)
                .filter { $0.hasSuffix(".pack") }.count
        }
        // Three packs are over the limit of two: git packs in the background after the third
        // save (a handshake on what it leaves behind).
        try await waitUntil(timeout: .seconds(120), "the packs put together") {
            let counts = try looseAndPacked(alice)
            return try packCount() == 1 && counts.loose == 0
        }
        try expectFsckClean(alice.root)
        for (round, save) in saves.enumerated() {
            #expect(try alice.git(["show", save + ":doc.txt"]) == "round \(round)\n")
        }
    }
}
