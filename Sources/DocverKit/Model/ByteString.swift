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

    static func == (lhs: ByteString, rhs: ByteString) -> Bool { lhs.string.compareBytes(rhs.string) == 0 }

    func hash(into hasher: inout Hasher) { string.hashBytes(into: &hasher) }

    /// Byte order, as git orders names (and as `git ls-files` lists them).
    static func < (lhs: ByteString, rhs: ByteString) -> Bool { lhs.string.compareBytes(rhs.string) < 0 }

    var description: String { string }
}

extension String {
    /// The order of the UTF-8 bytes (negative, zero or positive, as `memcmp`), compared in
    /// place: a folder of 200,000 documents is sorted and looked up by these, and comparing
    /// through the `utf8` view a byte at a time was a tenth of its arrival.
    func compareBytes(_ other: String) -> Int {
        var lhs = self, rhs = other  // (`withUTF8` is mutating: it may make a bridged string contiguous)
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                let common = min(left.count, right.count)
                if common > 0, let a = left.baseAddress, let b = right.baseAddress {
                    let order = memcmp(a, b, common)
                    if order != 0 { return Int(order) }
                }
                return left.count - right.count
            }
        }
    }

    /// Feeds the UTF-8 bytes to `hasher` (equal bytes, equal hashes; unlike `String`'s own
    /// hash, which follows canonical equivalence).
    func hashBytes(into hasher: inout Hasher) {
        var copy = self
        copy.withUTF8 { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
    }
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
