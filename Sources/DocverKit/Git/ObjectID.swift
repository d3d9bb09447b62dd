internal import Clibgit2

/// A git object id. Internal: the domain layer exposes ids as hexadecimal strings.
struct ObjectID: Hashable, Sendable, Comparable, CustomStringConvertible {
    var raw: git_oid

    init(_ raw: git_oid) { self.raw = raw }

    /// Read in Swift, not with `git_oid_fromstr`: that records its error in libgit2's
    /// per-thread state, which does not exist before `git_libgit2_init` (a process that reads
    /// an invalid id before opening any repository crashed there).
    init?(hex: String) {
        var hex = hex
        guard let id = hex.withUTF8({ ObjectID(hexDigits: $0) }) else { return nil }
        self = id
    }

    /// From 40 hexadecimal digits (either case), as `git_oid_fromstr` reads them, straight
    /// from bytes (a listing holds two ids per document).
    init?(hexDigits digits: UnsafeBufferPointer<UInt8>) {
        guard digits.count == 40 else { return nil }
        var oid = git_oid()
        let valid = Self.digitValues.withUnsafeBufferPointer { values in
            withUnsafeMutableBytes(of: &oid.id) { bytes -> Bool in
                // A byte that is no digit has the value 0xff; any such byte sets a high bit.
                var invalid: UInt8 = 0
                for offset in 0..<20 {
                    let high = values[Int(digits[2 * offset])], low = values[Int(digits[2 * offset + 1])]
                    invalid |= high | low
                    bytes[offset] = high << 4 | low & 0x0f
                }
                return invalid & 0xf0 == 0
            }
        }
        guard valid else { return nil }
        raw = oid
    }

    /// Each byte's value as a hexadecimal digit (either case); 0xff for any other byte.
    private static let digitValues: [UInt8] = (0...255).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(byte) - UInt8(ascii: "A") + 10
        default: 0xff
        }
    }

    var hex: String {
        var copy = raw
        var buffer = [CChar](repeating: 0, count: 41)
        git_oid_tostr(&buffer, 41, &copy)
        return String(decoding: buffer.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    var description: String { hex }

    /// The 20 bytes of the id, for binary files.
    var bytes: [UInt8] { withUnsafeBytes(of: raw.id) { Array($0) } }

    /// An id from its 20 bytes; nil for any other length.
    init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 20 else { return nil }
        var oid = git_oid()
        withUnsafeMutableBytes(of: &oid.id) { buffer in buffer.copyBytes(from: bytes) }
        raw = oid
    }

    /// The empty tree, which git knows without storing it.
    static let emptyTree = ObjectID(hex: "4b825dc642cb6eb9a060e54bf8d69288fbee4904")!
    /// The id of the empty blob (a file of no bytes).
    static let emptyBlob = ObjectID(hex: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")!

    static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        var l = lhs.raw, r = rhs.raw
        return git_oid_cmp(&l, &r) == 0
    }

    static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        var l = lhs.raw, r = rhs.raw
        return git_oid_cmp(&l, &r) < 0
    }

    func hash(into hasher: inout Hasher) {
        withUnsafeBytes(of: raw.id) { hasher.combine(bytes: $0) }
    }
}
