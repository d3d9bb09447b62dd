import DocverTestSupport
import Foundation

extension SeededRandom {
    /// A string of `length` scalars drawn from `alphabet`.
    mutating func string(_ alphabet: [Unicode.Scalar], length: ClosedRange<Int>) -> String {
        var result = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: length, using: &self) { result.append(alphabet.randomElement(using: &self)!) }
        return String(result)
    }

    /// Any Unicode scalar, weighted towards the awkward ones: ASCII controls, space, `%`,
    /// `:`, `-`, multi-byte letters, emoji and the last plane.
    mutating func awkwardScalar() -> Unicode.Scalar {
        switch Int.random(in: 0..<10, using: &self) {
        case 0: return Unicode.Scalar(UInt8.random(in: 0...0x1F, using: &self))
        case 1: return [" ", "%", ":", "-", "\u{7F}", "/", "\\", "\t"].randomElement(using: &self)!
        case 2: return ["é", "ß", "Ω", "ж", "中", "€", "\u{85}", "\u{A0}", "\u{2028}", "\u{FEFF}"].randomElement(using: &self)!
        case 3: return ["😀", "👩‍🚀".unicodeScalars.first!, "\u{10FFFD}", "\u{1F600}"].randomElement(using: &self)!
        default: return Unicode.Scalar(UInt8.random(in: 0x21...0x7E, using: &self))
        }
    }

    /// A string of awkward scalars (see ``awkwardScalar()``).
    mutating func awkwardString(length: ClosedRange<Int>) -> String {
        var result = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: length, using: &self) { result.append(awkwardScalar()) }
        return String(result)
    }

    /// A 40-digit lowercase hexadecimal id.
    mutating func hexID() -> String {
        String((0..<40).map { _ in "0123456789abcdef".randomElement(using: &self)! })
    }
}

/// Seeds of the property tests. `DOCVER_UNIT_SEED=<n>` replays one seed.
enum Seeds {
    static func make(_ count: Int, salt: UInt64) -> [UInt64] {
        if let seed = ProcessInfo.processInfo.environment["DOCVER_UNIT_SEED"].flatMap(UInt64.init) { return [seed] }
        return (0..<UInt64(count)).map { salt &* 0x1_0000 &+ $0 &* 7919 }
    }
}

/// Printable scalars for names: ASCII letters, digits and a few punctuation marks.
let asciiLetters: [Unicode.Scalar] = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".unicodeScalars)
