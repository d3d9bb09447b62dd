import DocverKit
import Foundation
import Synchronization
import Testing

/// A server given `outputPart` writes its `ls` answer in parts as it encodes it (issue 28:
/// 100,000 documents must not cost their whole line at once), and the parts, put together, are
/// byte for byte the line a server writing whole lines gives.
@Suite struct ProtocolPartsTests {
    /// What a server wrote: whole lines (their newline added) or parts, in order.
    final class Written: Sendable {
        let texts = Mutex<[String]>([])
        func append(_ text: String) { texts.withLock { $0.append(text) } }
        func take() -> [String] {
            texts.withLock { texts in
                defer { texts = [] }; return texts
            }
        }
    }

    /// 0, 1 and 4 documents, and 1,100: more than two of the parts it encodes at once; an id
    /// that is a number and one that is a string.
    @Test(arguments: [0, 1, 4, 1_100])
    func theLsAnswerInPartsIsTheWholeLinesBytes(documents: Int) async throws {
        let scratch = try Scratch()
        let alice = try scratch.listedDevice(documents: documents)

        let whole = Written()
        let parts = Written()
        let lineServer = ProtocolServer(container: alice, serverVersion: "test", output: { whole.append($0 + "\n") })
        let partServer = ProtocolServer(
            container: alice, serverVersion: "test", output: { parts.append($0 + "\n") }, outputPart: { parts.append($0) })
        defer {
            lineServer.stop()
            partServer.stop()
        }
        for id in ["7", #""an id""#] {
            let request = Data(#"{"jsonrpc":"2.0","id":\#(id),"method":"ls","params":{}}"#.utf8)
            _ = await lineServer.handle(request)
            _ = await partServer.handle(request)
            let line = whole.take()
            let inParts = parts.take()
            #expect(line.count == 1)
            #expect(inParts.count == 2 + (documents + 511) / 512, "the opening, one part per 512 documents, the end")
            #expect(inParts.joined() == line.joined())
            let answer = try JSONSerialization.jsonObject(with: Data(inParts.joined().utf8)) as? [String: Any]
            #expect((answer?["result"] as? [Any])?.count == documents)
        }
    }
}
