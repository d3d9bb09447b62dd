import Foundation
import Testing

@testable import DocverKit

/// `Subprocess`: a helper program that exits without reading its input (ssh-keygen given a
/// key file that does not exist) is a failed run, never the end of the calling process.
@Suite struct SubprocessTests {
    /// A megabyte is more than any pipe or socket buffer holds, so the writer is still writing
    /// when the child has gone. Through a pipe that write raised SIGPIPE, which killed the
    /// whole test process (found by the AddressSanitizer run of SignedSavesTests, where the
    /// slower writer lost the race to ssh-keygen every time).
    @Test func aChildThatExitsWithoutReadingItsInputIsAFailedRun() throws {
        let outcome = try Subprocess.run(["sh", "-c", "echo gone; exit 3"], input: Data(count: 1 << 20))
        #expect(outcome.status == 3)
        #expect(String(decoding: outcome.output, as: UTF8.self) == "gone\n")
    }

    @Test func aChildThatReadsItsInputGetsAllOfIt() throws {
        let input = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let outcome = try Subprocess.run(["wc", "-c"], input: input)
        #expect(outcome.status == 0)
        #expect(String(decoding: outcome.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "\(1 << 20)")
    }

    @Test func signingWithAMissingKeyFileThrows() {
        #expect(throws: SystemError.self) {
            _ = try SSHSigning.sign(Data(count: 1 << 20), keyFile: "/nonexistent/docver-no-such-key")
        }
    }
}
