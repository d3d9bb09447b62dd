import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// Issue 29: the sync report searches a big document for conflict markers a piece at a time.
/// The answer must be the whole-file search's, wherever the pieces break the lines.
@Suite struct ConflictMarkerScanTests {
    private static let lines = [
        "text", "<<<<<<< ours", "<<<<<<<", "<<<<<<<<", "<<<<<<<x", ">>>>>>> theirs", ">>>>>>>",
        ">>>>>>>\r", ">>>>>>>>", "=======", "||||||| base", " <<<<<<< indented", "",
    ]

    @Test(arguments: Array(1...300) as [UInt64])
    func thePieceByPieceSearchAgreesWithTheWholeFileSearch(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var text = (0..<Int.random(in: 0...12, using: &random)).map { _ in Self.lines.randomElement(using: &random)! }
            .joined(separator: "\n")
        if Bool.random(using: &random) { text += "\n" }
        var data = Data(text.utf8)
        if Int.random(in: 0..<6, using: &random) == 0 { data.insert(0, at: Int.random(in: 0...data.count, using: &random)) }
        let whole = !ConflictMarkers.locations(in: .flat(data)).isEmpty
        let pieceSize = Int.random(in: 1...9, using: &random)
        let scanned = try ConflictMarkers.hasRegions { piece in
            var offset = 0
            try data.withUnsafeBytes { bytes in
                while offset < bytes.count {
                    let end = min(offset + pieceSize, bytes.count)
                    try piece(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                    offset = end
                }
            }
        }
        #expect(scanned == whole, "seed \(seed), pieces of \(pieceSize): \(text.debugDescription)")
    }
}
