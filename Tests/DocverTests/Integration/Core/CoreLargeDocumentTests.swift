import DocverKit
import Foundation
import Testing

/// A large document is streamed into git: its size is exact and memory stays flat.
@Suite struct CoreLargeDocumentTests {
    static let size: Int64 = 200 * 1024 * 1024

    /// A sparse file of `size` bytes with a few marker bytes, so it is not all zeros.
    private func makeLargeFile(at url: URL, size: Int64) throws {
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(size))
        for offset in [0, size / 3, size / 2, size - 16] {
            try handle.seek(toOffset: UInt64(offset))
            handle.write(Data("docver@\(offset)".utf8.prefix(16)))
        }
    }

    /// Peak resident set size in kilobytes, from GNU time's verbose report.
    private func peakRSSKilobytes(_ report: String) -> Int? {
        for line in report.split(separator: "\n") where line.contains("Maximum resident set size") {
            return line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        return nil
    }

    @Test func a200MegabyteDocumentIsSavedByStreaming() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let file = alice.root.appendingPathComponent("big.bin")
        try makeLargeFile(at: file, size: Self.size)

        let time = "/usr/bin/time"
        let hasTime = FileManager.default.isExecutableFile(atPath: time)
        let save = hasTime
            ? try runProcess(time, ["-v", docverExecutable, "save", "big.bin"], in: alice.root)
            : try docver("save", "big.bin", in: alice.root)
        #expect(save.status == 0, "save failed: \(save.stderr)")
        #expect(save.stdout.hasPrefix("added: big.bin\nsaved 1 document as "))

        let stored = try alice.git(["cat-file", "-s", "HEAD:big.bin"]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(stored == String(Self.size))
        // The stored blob is exactly the file's bytes.
        let blob = try alice.git(["rev-parse", "HEAD:big.bin"])
        let hashed = try alice.git(["hash-object", "big.bin"])
        #expect(blob == hashed)
        #expect(try alice.currentVersion(of: DocumentPath("big.bin"))?.size == Self.size)

        if hasTime {
            let peak = try #require(peakRSSKilobytes(save.stderr), "no RSS in: \(save.stderr)")
            #expect(peak < 100 * 1024, "docver save peaked at \(peak / 1024) MB for a 200 MB document")
            // Checking status afterwards must not read the document into memory either.
            let status = try runProcess(time, ["-v", docverExecutable, "status"], in: alice.root)
            #expect(status.status == 0)
            #expect(status.stdout.hasSuffix("\nnothing changed since the last save; no conflicts\n"))
            if let statusPeak = peakRSSKilobytes(status.stderr) {
                #expect(statusPeak < 100 * 1024, "docver status peaked at \(statusPeak / 1024) MB")
            }
        }
        try expectFsckClean(alice.root)
    }
}
