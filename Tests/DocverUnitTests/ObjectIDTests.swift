import DocverTestSupport
import Testing

@testable import DocverKit

/// Object ids are read from listings, records and the command line before any repository is
/// open; reading them must not need libgit2 (whose error state does not exist before its
/// initialisation: an invalid id read first in a process crashed there).
@Suite struct ObjectIDTests {
    @Test func fortyHexadecimalDigitsOfEitherCaseAreAnID() throws {
        let lower = try #require(ObjectID(hex: "0123456789abcdef0123456789abcdef01234567"))
        let upper = try #require(ObjectID(hex: "0123456789ABCDEF0123456789ABCDEF01234567"))
        #expect(lower == upper)
        #expect(lower.hex == "0123456789abcdef0123456789abcdef01234567")
        #expect(lower.bytes.prefix(3) == [0x01, 0x23, 0x45])
    }

    @Test(arguments: [
        "", "0123", "0123456789abcdef0123456789abcdef0123456", "0123456789abcdef0123456789abcdef012345678",
        "0123456789abcdef0123456789abcdef0123456g", "g123456789abcdef0123456789abcdef01234567",
        "0123456789abcdef0123456789abcdef0123456 ", "0123456789abcdef0123456789abcdéf012345",
    ])
    func anythingElseIsNot(_ text: String) {
        #expect(ObjectID(hex: text) == nil)
    }

    /// Random texts of 40 bytes, mostly digits, some of any byte value (the neighbours of the
    /// digit ranges, ':' '@' '`' 'g' 'G', and non-ASCII), read as an id exactly when a
    /// byte-by-byte reading of the digits says so, with the same 20 bytes.
    @Test func randomTextsAreReadAsTheDigitsSay() {
        var random = SeededRandom(seed: 28)
        let digits = Array("0123456789abcdefABCDEF".utf8)
        func value(_ byte: UInt8) -> UInt8? {
            if let index = digits.firstIndex(of: byte) { return UInt8(index < 16 ? index : index - 6) }
            return nil
        }
        for _ in 0..<20_000 {
            var bytes = (0..<40).map { _ in digits.randomElement(using: &random)! }
            if Bool.random(using: &random) { bytes[Int.random(in: 0..<40, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            let expected: [UInt8]? = {
                var result: [UInt8] = []
                for pair in stride(from: 0, to: 40, by: 2) {
                    guard let high = value(bytes[pair]), let low = value(bytes[pair + 1]) else { return nil }
                    result.append(high << 4 | low)
                }
                return result
            }()
            let id = bytes.withUnsafeBufferPointer { ObjectID(hexDigits: $0) }
            #expect(id?.bytes == expected, "\(bytes)")
        }
    }
}
