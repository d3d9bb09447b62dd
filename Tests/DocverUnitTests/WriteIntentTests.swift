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
            // Valid JSON with its keys sorted, as docs/FORMAT.md describes the file.
            let object = try? JSONSerialization.jsonObject(with: intent.render()) as? [String: Any]
            #expect(object?["version"] as? Int == 1 && (object?["files"] as? [Any])?.count == files.count, "seed \(seed)")
            #expect(intent.render() == Self.encoderRendering(intent), "seed \(seed)")
        }
    }

    /// What `JSONEncoder` with sorted keys and unescaped slashes writes for an intent: the
    /// hand-written rendering must be the same bytes.
    private static func encoderRendering(_ intent: WriteIntent) -> Data {
        struct State: Encodable { var id: String; var mode: String }
        struct File: Encodable { var path: String; var old: State?; var new: State? }
        struct Intent: Encodable { var version: Int; var operation: String; var from: String?; var to: String; var files: [File] }
        let names: [(FileMode, String)] = [(.blob, "blob"), (.executable, "executable"), (.link, "link"), (.tree, "tree")]
        func state(_ state: EntryState?) -> State? {
            state.map { state in State(id: state.id.hex, mode: names.first { $0.0 == state.mode }!.1) }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try! encoder.encode(
            Intent(
                version: 1, operation: intent.operation.rawValue, from: intent.from?.hex, to: intent.to.hex,
                files: intent.files.map { File(path: $0.path, old: state($0.old), new: state($0.new)) }))
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
