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
}
