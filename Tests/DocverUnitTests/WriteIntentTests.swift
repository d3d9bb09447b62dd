import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// The `intent` file (docs/FORMAT.md, "Local metadata"): written, read back, and refused when
/// it is not one this version wrote, so recovery never acts on a damaged record.
@Suite struct WriteIntentTests {
    private func state(_ random: inout SeededRandom) -> EntryState? {
        let modes: [FileMode] = [.blob, .executable, .link, .tree]
        guard Bool.random(using: &random) else { return nil }
        return EntryState(ObjectID(hex: random.hexID())!, modes.randomElement(using: &random)!)
    }

    @Test(arguments: Seeds.make(6, salt: 160))
    func intentsRoundTrip(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<200 {
            let files = (0..<Int.random(in: 0...6, using: &random)).map { _ in
                WriteIntent.File(path: "d" + random.awkwardString(length: 0...20), old: state(&random), new: state(&random))
            }
            let intent = WriteIntent(
                operation: WriteIntent.Operation.allCases.randomElement(using: &random)!,
                from: Bool.random(using: &random) ? nil : ObjectID(hex: random.hexID()),
                to: ObjectID(hex: random.hexID())!, files: files)
            #expect(WriteIntent.parse(intent.render()) == intent, "seed \(seed)")
        }
    }

    @Test func damagedIntentsAreRefused() {
        let good =
            #"{"files":[{"path":"a","new":{"id":"0123456789012345678901234567890123456789","mode":"blob"}}],"operation":"save","to":"0123456789012345678901234567890123456789","version":1}"#
        #expect(WriteIntent.parse(Data(good.utf8)) != nil)
        let damaged = [
            "", "{", "null", "[]",
            good.replacingOccurrences(of: #""version":1"#, with: #""version":2"#),
            good.replacingOccurrences(of: #""operation":"save""#, with: #""operation":"erase""#),
            good.replacingOccurrences(of: #""mode":"blob""#, with: #""mode":"fifo""#),
            good.replacingOccurrences(of: #""to":"0123456789012345678901234567890123456789""#, with: #""to":"xyz""#),
            good.replacingOccurrences(of: #""path":"a""#, with: #""path":"""#),
        ]
        for text in damaged {
            #expect(WriteIntent.parse(Data(text.utf8)) == nil, "\(text)")
        }
    }

    @Test func onlyASaveLeavesTheWorkingTreeAlone() {
        #expect(!WriteIntent.Operation.save.writesFiles)
        #expect(WriteIntent.Operation.integrate.writesFiles)
        #expect(WriteIntent.Operation.writeDocument.writesFiles)
    }
}
