import DocverKit
import Foundation
import Testing

/// A large document is streamed into git: its size is exact and memory stays flat.
@Suite struct CoreLargeDocumentTests {
    static let size: Int64 = 200 * 1024 * 1024

    /// A sparse file of `size` bytes with a few marker bytes, so it is not all zeros.
    private func makeLargeFile(at url: URL, size: Int64) throws {
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
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
        let save =
            hasTime
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

    /// Issue 29: a big document arriving from another device is written into the working tree a
    /// piece at a time, searched for conflict markers a piece at a time, and shown a piece at
    /// a time: none of the three holds it. (A 64 MiB text; each held it two or three times
    /// over before. The transfer itself is libgit2's, and not measured here.)
    @Test func aBigDocumentIsReceivedSearchedAndShownWithoutBeingHeld() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        let size = 64 * 1024 * 1024
        let file = alice.root.appendingPathComponent("big.txt")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try FileHandle(forWritingTo: file)
        let line = Data("a line of a long text, with nothing special in it\n".utf8)
        let block = Array(repeating: line, count: (1 << 20) / line.count).reduce(Data(), +)
        var written = 0
        while written + block.count <= size - 64 {
            handle.write(block)
            written += block.count
            // A marked region near the end: the search must read that far.
            if written > size - 4 * block.count && written <= size - 3 * block.count {
                handle.write(Data("<<<<<<< ours\nmine\n=======\nyours\n>>>>>>> theirs\n".utf8))
            }
        }
        try handle.close()
        _ = try alice.saveAll()
        try alice.sync()

        let syncOutput = scratch.path("sync-output")
        let (sync, syncPeak) = try peakRSS(["sync"], in: bob.root, output: syncOutput)
        #expect(sync.status == 0, "\(sync.stderr)")
        let said = try String(contentsOf: syncOutput, encoding: .utf8)
        #expect(said.contains("big.txt") && said.contains("conflict markers"), "\(said)")
        #expect(try bob.git(["hash-object", "big.txt"]) == alice.git(["hash-object", "big.txt"]))
        #expect(syncPeak < size / 1024, "docver sync peaked at \(syncPeak / 1024) MB receiving a \(size >> 20) MiB document")

        let shown = scratch.path("shown")
        let (show, showPeak) = try peakRSS(["show", "big.txt"], in: bob.root, output: shown)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(try runGit(["hash-object", shown.path], in: bob.root) == bob.git(["hash-object", "big.txt"]))
        print("[figure] a \(size >> 20) MiB document: docver sync receiving it peaked at \(syncPeak / 1024) MB, show at \(showPeak / 1024) MB")
        #expect(showPeak < size / 1024, "docver show peaked at \(showPeak / 1024) MB for a \(size >> 20) MiB document")

        // Above core.bigFileThreshold, diff compares ids and reads neither side.
        try runGit(["config", "core.bigFileThreshold", "32m"], in: bob.root)
        let edit = try FileHandle(forWritingTo: bob.root.appendingPathComponent("big.txt"))
        try edit.seekToEnd()
        edit.write(Data("one more line\n".utf8))
        try edit.close()
        let patch = scratch.path("patch")
        let (diff, diffPeak) = try peakRSS(["diff", "big.txt"], in: bob.root, output: patch)
        #expect(diff.status == 0, "\(diff.stderr)")
        #expect(
            try String(contentsOf: patch, encoding: .utf8).hasSuffix("diff --git a/big.txt b/big.txt\nBinary files a/big.txt and b/big.txt differ\n"))
        #expect(diffPeak < size / 1024, "docver diff peaked at \(diffPeak / 1024) MB for a \(size >> 20) MiB document")
    }
}
