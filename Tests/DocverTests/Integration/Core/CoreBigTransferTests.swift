import DocverKit
import Foundation
import Testing

/// Issue 29: a big document moves between devices through a repository on this machine a
/// piece at a time: pushed (its own pack, written by docver), cloned and received (that pack
/// copied and checked by docver), each in less memory than the document's size, and the
/// remote stays a repository git reads.
@Suite struct CoreBigTransferTests {
    static let size = 64 << 20

    /// A file of random bytes (which do not compress: the pack holds all of them).
    private func writeRandomFile(at url: URL, size: Int) throws {
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var generator = SystemRandomNumberGenerator()
        var written = 0
        while written < size {
            let count = min(1 << 20, size - written)
            handle.write(Data((0..<count / 8).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } }))
            written += count
        }
    }

    /// The pack files of a repository's object folder, by name.
    private func packs(_ gitDirectory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: gitDirectory.appendingPathComponent("objects/pack").path)
            .filter { $0.hasSuffix(".pack") }.sorted()
    }

    @Test func aBigDocumentIsPushedClonedAndReceivedWithoutBeingHeld() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try Data("small\n".utf8).write(to: alice.root.appendingPathComponent("notes.txt"))
        try writeRandomFile(at: alice.root.appendingPathComponent("film.bin"), size: Self.size)
        _ = try alice.saveAll()

        let (push, pushPeak) = try peakRSS(["sync"], in: alice.root, output: scratch.path("push-output"))
        #expect(push.status == 0, "\(push.stderr)")
        #expect(try String(contentsOf: scratch.path("push-output"), encoding: .utf8).contains("pushed to origin"))
        #expect(pushPeak < Self.size / 1024, "docver sync peaked at \(pushPeak / 1024) MB pushing a \(Self.size >> 20) MiB document")
        // The remote: the document whole in a pack of its own, and all of it as git wants it.
        try expectFsckClean(remote)
        var bigPacks = 0
        for pack in try packs(remote) {
            let verified = try runGit(["verify-pack", "-v", "objects/pack/" + pack], in: remote)
            #expect(verified.hasSuffix(": ok\n"), "\(verified)")
            if verified.contains("blob   \(Self.size) ") {
                bigPacks += 1
                #expect(verified.contains("non delta: 1 object"), "\(verified)")
            }
        }
        #expect(bigPacks == 1)
        // Nothing made for the push stays on the device (the pack builder's hidden commit
        // lives in memory only).
        let fsck = try runProcess("/usr/bin/git", ["fsck", "--strict", "--no-progress", "--dangling"], in: alice.root)
        #expect(fsck.status == 0 && !fsck.stdout.contains("dangling"), "\(fsck.stdout)\(fsck.stderr)")
        let expected = try alice.git(["hash-object", "film.bin"])

        // Another device receives it.
        let (receive, receivePeak) = try peakRSS(["sync"], in: bob.root, output: scratch.path("receive-output"))
        #expect(receive.status == 0, "\(receive.stderr)")
        #expect(try bob.git(["hash-object", "film.bin"]) == expected)
        #expect(
            receivePeak < Self.size / 1024, "docver sync peaked at \(receivePeak / 1024) MB receiving a \(Self.size >> 20) MiB document")
        try expectFsckClean(bob.root)

        // A new device clones it.
        let carol = scratch.path("carol")
        let (clone, clonePeak) = try peakRSS(
            ["clone", remote.path, carol.path, "--device", "carol"], in: scratch.url, output: scratch.path("clone-output"))
        #expect(clone.status == 0, "\(clone.stderr)")
        #expect(try runGit(["hash-object", "film.bin"], in: carol) == expected)
        #expect(clonePeak < Self.size / 1024, "docver clone peaked at \(clonePeak / 1024) MB for a \(Self.size >> 20) MiB document")
        try expectFsckClean(carol)
        print(
            "[figure] a \(Self.size >> 20) MiB random document: push \(pushPeak / 1024) MB, receive \(receivePeak / 1024) MB, clone \(clonePeak / 1024) MB"
        )

        // git reads what docver pushed.
        let plain = scratch.path("plain")
        try runGit(["clone", "-q", "--no-local", "-b", "docver/alice", remote.path, plain.path], in: scratch.url)
        #expect(try runGit(["hash-object", "film.bin"], in: plain) == expected)
    }

    /// A push killed after its big pack was written, before the branch moved: the next push
    /// does not send the document again, and still holds none of it.
    @Test func aBigDocumentAlreadyOnTheRemoteIsNotSentAgain() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try Data("first\n".utf8).write(to: alice.root.appendingPathComponent("notes.txt"))
        _ = try alice.saveAll()
        try alice.sync()
        let first = try runGit(["rev-parse", "refs/heads/docver/alice"], in: remote).trimmingCharacters(in: .whitespacesAndNewlines)
        try writeRandomFile(at: alice.root.appendingPathComponent("film.bin"), size: Self.size)
        _ = try alice.saveAll()
        try alice.sync()
        // As if the first push had stopped before moving the branch.
        try runGit(["update-ref", "refs/heads/docver/alice", first], in: remote)
        let before = try packs(remote)

        let (push, peak) = try peakRSS(["sync"], in: alice.root, output: scratch.path("output"))
        #expect(push.status == 0, "\(push.stderr)")
        #expect(peak < Self.size / 1024, "docver sync peaked at \(peak / 1024) MB")
        let added = try Set(packs(remote)).subtracting(before)
        for pack in added {
            let size = try #require(
                FileManager.default.attributesOfItem(atPath: remote.appendingPathComponent("objects/pack/" + pack).path)[.size] as? Int)
            #expect(size < 64 << 10, "a pack of \(size) bytes was sent again")
        }
        #expect(
            try runGit(["rev-parse", "refs/heads/docver/alice"], in: remote) == alice.git(["rev-parse", "refs/heads/docver/alice"]))
        try expectFsckClean(remote)
    }

    /// A big pack damaged on the remote (one byte) is refused whole, as a damaged pack from a
    /// network remote is: the clone and the sync fail with one error line that says so (and a
    /// hint), and nothing of it lands.
    @Test func aDamagedBigPackIsRefused() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try writeRandomFile(at: alice.root.appendingPathComponent("film.bin"), size: Self.size / 4)
        _ = try alice.saveAll()
        try alice.sync()
        let big = try #require(
            try packs(remote).max {
                let folder = remote.appendingPathComponent("objects/pack")
                let first = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent($0).path)[.size] as? Int ?? 0
                let second = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent($1).path)[.size] as? Int ?? 0
                return first < second
            })
        let path = remote.appendingPathComponent("objects/pack/" + big).path
        chmod(path, 0o644)
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64(Self.size / 8))
        let byte = try #require(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: UInt64(Self.size / 8))
        handle.write(Data([byte ^ 0x40]))
        try handle.close()

        let clone = try docver(["clone", remote.path, scratch.path("carol").path, "--device", "carol"], in: scratch.url)
        #expect(clone.status == 1, "\(clone.stdout)\(clone.stderr)")
        #expect(clone.stderrLines.first?.contains("is damaged") == true, "\(clone.stderr)")
        #expect(clone.stderrLines.filter { $0.hasPrefix("docver: error:") }.count == 1, "\(clone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("carol").path))

        let refs = try refSnapshot(bob.root)
        let sync = try docver(["sync"], in: bob.root)
        #expect(sync.status == 1, "\(sync.stdout)\(sync.stderr)")
        #expect(sync.stderrLines.first?.contains("is damaged") == true, "\(sync.stderr)")
        #expect(sync.stderrLines.filter { $0.hasPrefix("docver: error:") }.count == 1, "\(sync.stderr)")
        #expect(try refSnapshot(bob.root) == refs)
        #expect(!FileManager.default.fileExists(atPath: bob.root.appendingPathComponent("film.bin").path))
        let blob = try alice.git(["rev-parse", "HEAD:film.bin"]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try runProcess("/usr/bin/git", ["cat-file", "-e", blob], in: bob.root).status != 0)
        try expectFsckClean(bob.root)
    }
}
