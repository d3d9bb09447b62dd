import DocverKit
import Foundation
import Testing

/// A full disk is named: a save, a sync fetching into a full disk, a push to a remote on a full
/// disk and a clone onto a full disk each end with one line `no space left on device (while
/// writing PATH)`, change nothing, and leave repositories that `git fsck --strict` finds clean
/// once space is freed (and the same command then succeeds).
///
/// Each case runs on a 2 MiB tmpfs mounted for it (as root); where mounting is not allowed the
/// case is skipped, saying why, except on CI (`CI=true`), where it must run.
@Suite(.serialized) struct FullDiskTests {
    /// A small tmpfs at `directory`, unmounted by ``unmount()``.
    final class SmallDisk {
        let directory: URL
        private var mounted = false

        /// nil (and a printed reason) when mounting is not allowed here and this is not CI.
        static func mount(at directory: URL, test: String) throws -> SmallDisk? {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let disk = SmallDisk(directory)
            let result = try runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", directory.path])
            if result.status != 0 {
                let reason = "cannot mount a tmpfs (\(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))); run the tests as root"
                if ProcessInfo.processInfo.environment["CI"] == "true" {
                    Issue.record("FullDiskTests.\(test) must run on CI: \(reason)")
                } else {
                    print("FullDiskTests.\(test): skipped: \(reason)")
                }
                return nil
            }
            disk.mounted = true
            return disk
        }

        private init(_ directory: URL) { self.directory = directory }

        /// Frees space by making the disk larger (contents kept).
        func grow() throws {
            let result = try runProcess("/bin/mount", ["-o", "remount,size=64m", directory.path])
            #expect(result.status == 0, "\(result.stderr)")
        }

        func unmount() {
            guard mounted else { return }
            _ = try? runProcess("/bin/umount", [directory.path])
            mounted = false
        }

        deinit { unmount() }
    }

    /// Random bytes (they do not compress): a document larger than the disk's free space.
    static func randomData(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    private func expectNoSpaceLine(_ result: ProcessResult, remote: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        let prefix = "docver: error: " + (remote.map { "remote '\($0)': " } ?? "") + "no space left on device (while writing /"
        #expect(result.stderrLines.first?.hasPrefix(prefix) == true, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderrLines.count <= 2, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(
            !result.stderr.contains("remote's address") && !result.stderr.contains("check where it points"),
            "\(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test func aSaveOnAFullDiskSaysSoAndChangesNothing() throws {
        let scratch = try Scratch()
        guard let disk = try SmallDisk.mount(at: scratch.path("disk"), test: #function) else { return }
        defer { disk.unmount() }
        let root = disk.directory.appendingPathComponent("alice")
        #expect(try docver("init", root.path, "--device", "alice", in: scratch.url).status == 0)
        try Data("small\n".utf8).write(to: root.appendingPathComponent("small.txt"))
        #expect(try docver("save", in: root).status == 0)
        let before = try refSnapshot(root)
        // Fits in the working tree, but its object does not fit beside it.
        try Self.randomData(1_400_000).write(to: root.appendingPathComponent("big.txt"))

        expectNoSpaceLine(try docver("save", in: root))
        #expect(try refSnapshot(root) == before, "nothing was saved")

        try disk.grow()
        try expectFsckClean(root)
        let saved = try docver("save", in: root)
        #expect(saved.status == 0, "\(saved.stderr)")
        try expectFsckClean(root)
    }

    @Test func aSyncFetchingIntoAFullDiskSaysSoAndChangesNothing() throws {
        let scratch = try Scratch()
        guard let disk = try SmallDisk.mount(at: scratch.path("disk"), test: #function) else { return }
        defer { disk.unmount() }
        let remote = try scratch.bareRemote()
        let bob = try scratch.device("bob", remote: remote)
        try bob.write("", to: "big.bin")
        try Self.randomData(2_500_000).write(to: bob.root.appendingPathComponent("big.bin"))
        _ = try bob.saveAll()
        try bob.sync()
        let root = disk.directory.appendingPathComponent("alice")
        #expect(try docver("init", root.path, "--device", "alice", in: scratch.url).status == 0)
        try Data("mine\n".utf8).write(to: root.appendingPathComponent("mine.txt"))
        #expect(try docver("save", in: root).status == 0)
        #expect(try docver("remote", "add", "origin", remote.path, in: root).status == 0)
        let before = try refSnapshot(root)

        expectNoSpaceLine(try docver("sync", in: root))
        #expect(try refSnapshot(root) == before, "nothing was fetched or integrated")

        try disk.grow()
        try expectFsckClean(root)
        let synced = try docver("sync", in: root)
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(try Data(contentsOf: root.appendingPathComponent("big.bin")).count == 2_500_000)
        try expectFsckClean(root)
    }

    @Test func aPushToARemoteOnAFullDiskSaysSo() throws {
        let scratch = try Scratch()
        guard let disk = try SmallDisk.mount(at: scratch.path("disk"), test: #function) else { return }
        defer { disk.unmount() }
        let remote = disk.directory.appendingPathComponent("remote.git")
        try runGit(["init", "-q", "--bare", remote.path], in: scratch.url)
        let alice = try scratch.device("alice", remote: remote)
        try alice.write("", to: "big.bin")
        try Self.randomData(2_500_000).write(to: alice.root.appendingPathComponent("big.bin"))
        _ = try alice.saveAll()
        let remoteBefore = try refSnapshot(remote)

        let result = try docver("sync", in: alice.root)
        expectNoSpaceLine(result, remote: "origin")
        #expect(try refSnapshot(remote) == remoteBefore, "the remote's branches did not move")

        try disk.grow()
        try expectFsckClean(remote)
        let synced = try docver("sync", in: alice.root)
        #expect(synced.status == 0, "\(synced.stderr)")
        try expectFsckClean(remote)
    }

    @Test func aCloneOntoAFullDiskSaysSoAndLeavesNothing() throws {
        let scratch = try Scratch()
        guard let disk = try SmallDisk.mount(at: scratch.path("disk"), test: #function) else { return }
        defer { disk.unmount() }
        let remote = try scratch.bareRemote()
        let bob = try scratch.device("bob", remote: remote)
        try bob.write("", to: "big.bin")
        try Self.randomData(2_500_000).write(to: bob.root.appendingPathComponent("big.bin"))
        _ = try bob.saveAll()
        try bob.sync()
        let destination = disk.directory.appendingPathComponent("alice")

        expectNoSpaceLine(try docver("clone", remote.path, destination.path, "--device", "alice", in: scratch.url))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: destination.path))?.isEmpty ?? true)

        try disk.grow()
        let cloned = try docver("clone", remote.path, destination.path, "--device", "alice", in: scratch.url)
        #expect(cloned.status == 0, "\(cloned.stderr)")
        try expectFsckClean(destination)
        try expectFsckClean(remote)
    }
}
