import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// `.git/docver/checked-heads` (docs/FORMAT.md, "Local files"): the heads that passed the
/// arrival checks, trusted only under the settings they were checked with.
@Suite struct CheckedHeadsFileTests {
    @Test(arguments: 0..<5)
    func recordsRoundTripUnderTheirSettingsOnly(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) + 70)
        func id() -> ObjectID { ObjectID(bytes: (0..<20).map { _ in UInt8.random(in: 0...255, using: &random) })! }
        var heads: [ObjectID: ObjectID?] = [:]
        for _ in 0..<Int.random(in: 0...12, using: &random) { heads[id()] = Bool.random(using: &random) ? id() : .some(nil) }
        let settings = CheckedHeadsFile.settings(
            maximumDocumentSize: Bool.random(using: &random) ? nil : Int64.random(in: 0...Int64.max, using: &random),
            contentsMayBeMissing: Bool.random(using: &random))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("docver-checked-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("checked-heads").path
        var text = String(decoding: CheckedHeadsFile.render(heads, settings: settings), as: UTF8.self)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(CheckedHeadsFile.read(file, settings: settings) == heads)
        // Other settings (another limit, contents that may be missing, another version of the
        // checks): nothing is trusted.
        for other in [
            CheckedHeadsFile.settings(maximumDocumentSize: 7, contentsMayBeMissing: false),
            CheckedHeadsFile.settings(maximumDocumentSize: nil, contentsMayBeMissing: true),
            settings.replacingOccurrences(of: "\t\(CheckedHeadsFile.checksVersion)\t", with: "\t0\t"),
        ] where other != settings {
            #expect(CheckedHeadsFile.read(file, settings: other).isEmpty)
        }
        // Malformed lines are skipped, the others kept.
        text += "zz \(id().hex)\n\(id().hex)\n\(id().hex) nothex\n\n"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(CheckedHeadsFile.read(file, settings: settings) == heads)
        try FileManager.default.removeItem(atPath: file)
        #expect(CheckedHeadsFile.read(file, settings: settings).isEmpty)
    }
}
