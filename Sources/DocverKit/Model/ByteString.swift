import Foundation

/// A name or path compared, hashed and ordered by its UTF-8 bytes, as git compares names.
///
/// Swift's `String` equality is canonical equivalence: `café.txt` precomposed (NFC, as Linux
/// writes it) and decomposed (NFD, as macOS writes it) are equal strings, yet two files to
/// git. A `[String: …]`, `Set<String>` or sort of names merges or reorders them; keys of
/// names are of this type instead (documents: ``DocumentPath``, which compares the same way).
struct ByteString: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    let string: String

    init(_ string: String) { self.string = string }
    init(stringLiteral value: String) { string = value }

    static func == (lhs: ByteString, rhs: ByteString) -> Bool { lhs.string.utf8.elementsEqual(rhs.string.utf8) }

    func hash(into hasher: inout Hasher) {
        hasher.combine(string.utf8.count)
        for byte in string.utf8 { hasher.combine(byte) }
    }

    /// Byte order, as git orders names (and as `git ls-files` lists them).
    static func < (lhs: ByteString, rhs: ByteString) -> Bool { lhs.string.utf8.lexicographicallyPrecedes(rhs.string.utf8) }

    var description: String { string }
}

extension StringProtocol {
    /// Byte equality, as git compares names (not Swift's canonical equivalence).
    func bytesEqual(_ other: some StringProtocol) -> Bool { utf8.elementsEqual(other.utf8) }

    /// Byte order, as git orders names.
    func bytesPrecede(_ other: some StringProtocol) -> Bool { utf8.lexicographicallyPrecedes(other.utf8) }

    /// True when the bytes start with `prefix`'s bytes (`hasPrefix` compares characters by
    /// canonical equivalence: `cafe\u{301}/x` has the prefix `café/` spelled NFC).
    func bytesHavePrefix(_ prefix: some StringProtocol) -> Bool { utf8.starts(with: prefix.utf8) }
}
