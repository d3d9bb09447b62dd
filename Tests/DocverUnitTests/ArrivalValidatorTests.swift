import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// The checks of what arrives from a remote (ArrivalValidator): commit identities, names and
/// git-style escaping, on random input. HostileRemoteTests pushes real objects with plain git.
@Suite struct ArrivalValidatorTests {
    private func identity(_ random: inout SeededRandom, seconds: Int64) -> String {
        let name = random.awkwardString(length: 0...12).filter { $0 != "<" && $0 != ">" && $0 != "\n" }
        let email = random.awkwardString(length: 0...12).filter { $0 != "<" && $0 != ">" && $0 != "\n" }
        let zone = (Bool.random(using: &random) ? "+" : "-") + String(format: "%04d", Int.random(in: 0...1400, using: &random))
        return "\(name) <\(email)> \(seconds) \(zone)"
    }

    @Test(arguments: Seeds.make(6, salt: 170))
    func identitiesInRangeAreAcceptedAndOthersRefused(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<300 {
            let inRange = Int64.random(in: 0...ArrivalValidator.latestTimestamp, using: &random)
            let good = identity(&random, seconds: inRange)
            #expect(ArrivalValidator.identityProblem(good) == nil, "seed \(seed): \(good.debugDescription)")
            let late = Int64.random(in: (ArrivalValidator.latestTimestamp + 1)...Int64.max, using: &random)
            #expect(ArrivalValidator.identityProblem(identity(&random, seconds: late)) != nil)
            let header = ["tree \(random.hexID())", "author \(good)", "committer \(good)"]
            #expect(ArrivalValidator.headerProblem(header) == nil)
            #expect(ArrivalValidator.headerProblem(header + ["author \(good)"]) != nil, "a second author line")
            #expect(ArrivalValidator.headerProblem(Array(header.dropFirst())) != nil, "no tree line")
        }
    }

    @Test(arguments: Seeds.make(6, salt: 171))
    func randomTextNeverTrapsTheChecks(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<500 {
            let text = random.awkwardString(length: 0...40)
            _ = ArrivalValidator.identityProblem(text)
            _ = ArrivalValidator.headerProblem(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
            _ = ArrivalValidator.nameProblem(text)
        }
    }

    @Test func gitsForbiddenNamesAreRefused() {
        for name in [
            "", ".", "..", ".git", ".GIT", ".Git", "git~1", "GIT~1", ".git.", ".git ", ".git. .",
            ".g\u{200C}it", "\u{FEFF}.git", "a/b",
        ] {
            #expect(ArrivalValidator.nameProblem(name) != nil, "\(name.debugDescription)")
        }
        for name in ["git", ".gitignore", ".github", "x.git", "..a", "a..", "…", "git~2"] {
            #expect(ArrivalValidator.nameProblem(name) == nil, "\(name.debugDescription)")
        }
    }

    @Test(arguments: Seeds.make(4, salt: 172))
    func escapedNamesArePrintableASCIIAndDecodeBack(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<300 {
            let bytes = (0..<Int.random(in: 0...20, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let escaped = ArrivalValidator.escaped(bytes)
            #expect(escaped.utf8.allSatisfy { (0x20..<0x7F).contains($0) })
            #expect(decode(escaped) == bytes, "seed \(seed): \(escaped)")
        }
    }

    /// The order tree entries are checked in (and matched against a reference tree by) is
    /// git's: names compared as bytes, a folder's with "/" appended. Names are drawn from a
    /// few bytes around "/" so that prefixes and ties are frequent.
    @Test(arguments: Seeds.make(4, salt: 173))
    func sortKeysCompareAsNamesWithASlashAfterFolders(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let alphabet: [UInt8] = [0x21, 0x2E, 0x2F, 0x30, 0x61, 0xFF]
        func name() -> [UInt8] { (0..<Int.random(in: 0...4, using: &random)).map { _ in alphabet.randomElement(using: &random)! } }
        for _ in 0..<2000 {
            let a = name(), b = name(), aIsTree = Bool.random(using: &random), bIsTree = Bool.random(using: &random)
            let aKey = a + (aIsTree ? [0x2F] : []), bKey = b + (bIsTree ? [0x2F] : [])
            let expected = aKey == bKey ? 0 : aKey.lexicographicallyPrecedes(bKey) ? -1 : 1
            #expect(BorrowedTreeEntry.gitOrder(a, aIsTree, b, bIsTree) == expected, "seed \(seed): \(a) \(aIsTree) \(b) \(bIsTree)")
        }
    }

    /// git's C-style unquoting, as the oracle of ``ArrivalValidator/escaped(_:)``.
    private func decode(_ text: String) -> [UInt8] {
        var result: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            guard byte == UInt8(ascii: "\\"), let next = bytes.first else { result.append(byte); continue }
            if next == UInt8(ascii: "\\") || next == UInt8(ascii: "\"") {
                result.append(next)
                bytes = bytes.dropFirst()
            } else if next == UInt8(ascii: "t") || next == UInt8(ascii: "n") {
                result.append(next == UInt8(ascii: "t") ? 0x09 : 0x0A)
                bytes = bytes.dropFirst()
            } else {
                result.append(UInt8(String(decoding: bytes.prefix(3), as: UTF8.self), radix: 8)!)
                bytes = bytes.dropFirst(3)
            }
        }
        return result
    }
}
