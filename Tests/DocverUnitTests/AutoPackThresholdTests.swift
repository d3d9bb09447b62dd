import Foundation
import Testing

@testable import DocverKit

/// git's estimate of the loose objects (`too_many_loose_objects`) and its config integers.
@Suite struct AutoPackThresholdTests {
    private func objectsFolder(withLooseIn17 count: Int, extra: [String] = []) throws -> String {
        let objects = FileManager.default.temporaryDirectory.appendingPathComponent("autopack-\(UUID().uuidString)")
        let folder = objects.appendingPathComponent("17")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 0..<count {
            let name = String(repeating: "0", count: 38 - String(index, radix: 16).count) + String(index, radix: 16)
            #expect(FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: Data()))
        }
        for name in extra { #expect(FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: Data())) }
        return objects.path
    }

    @Test func theEstimateCountsTheFolder17AsGitDoes() throws {
        // A threshold of 6,700 allows 27 (6,700 / 256 rounded up) in the folder: git packs at 28.
        #expect(!Container.looseObjectEstimateExceeds(6_700, objects: try objectsFolder(withLooseIn17: 27)))
        #expect(Container.looseObjectEstimateExceeds(6_700, objects: try objectsFolder(withLooseIn17: 28)))
        // Temporary files and other names are not objects.
        let others = ["tmp_obj_abc", String(repeating: "g", count: 38), String(repeating: "a", count: 37)]
        #expect(!Container.looseObjectEstimateExceeds(256, objects: try objectsFolder(withLooseIn17: 1, extra: others)))
        #expect(!Container.looseObjectEstimateExceeds(256, objects: "/nonexistent-objects-folder"))
    }

    @Test func gitConfigIntegersTakeUnitSuffixes() {
        #expect(ConfigKey.gitInteger("6700") == 6_700)
        #expect(ConfigKey.gitInteger(" 7k ") == 7 * 1024)
        #expect(ConfigKey.gitInteger("1M") == 1 << 20)
        #expect(ConfigKey.gitInteger("0") == 0)
        #expect(ConfigKey.gitInteger("many") == nil)
        // Too big to hold once multiplied: not an integer (this multiplication trapped).
        #expect(ConfigKey.gitInteger("99999999999999999g") == nil)
        #expect(ConfigKey.gitInteger("8589934592g") == nil)
        #expect(ConfigKey.gitInteger("8589934591g") == 8_589_934_591 << 30)
        #expect(ConfigKey.gitInteger("8589934591m") == 8_589_934_591 << 20)
    }
}
