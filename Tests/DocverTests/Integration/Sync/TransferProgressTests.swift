import DocverKit
import Foundation
import Synchronization
import Testing

/// The progress `sync` and `clone` report: real transfers through a bare repository on disk
/// and through `git daemon`, checked against what the remote holds.
@Suite struct TransferProgressTests {
    /// Collects reports from the transferring thread.
    final class Recorder: Sendable {
        let reports = Mutex<[TransferProgress]>([])
        var handler: TransferProgressHandler { { [self] progress in reports.withLock { $0.append(progress) } } }
        var all: [TransferProgress] { reports.withLock { $0 } }
    }

    /// Reports of one direction and remote must only grow, and end complete.
    func expectMonotoneAndComplete(
        _ reports: [TransferProgress], remote: String, direction: TransferProgress.Direction,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let mine = reports.filter { $0.remote == remote && $0.direction == direction }
        let last = try #require(mine.last, "no \(direction) progress from \(remote)", sourceLocation: sourceLocation)
        for (earlier, later) in zip(mine, mine.dropFirst()) {
            #expect(
                later.objects >= earlier.objects && later.indexedObjects >= earlier.indexedObjects && later.bytes >= earlier.bytes,
                "progress went back: \(earlier) then \(later)", sourceLocation: sourceLocation)
            #expect(earlier.totalObjects == 0 || later.totalObjects == earlier.totalObjects, sourceLocation: sourceLocation)
        }
        for report in mine {
            #expect(
                report.objects <= report.totalObjects && report.indexedObjects <= report.totalObjects,
                "\(report)", sourceLocation: sourceLocation)
        }
        #expect(last.isComplete, "the last report is not complete: \(last)", sourceLocation: sourceLocation)
        #expect(last.bytes > 0, sourceLocation: sourceLocation)
    }

    /// A device with `count` random documents synced to `remote`.
    func populate(_ scratch: Scratch, remote: String, seed: UInt64, count: Int) throws -> Container {
        let alice = try scratch.device("alice")
        try alice.addRemote("origin", url: remote)
        var random = SplitMix64(seed: seed)
        for index in 0..<count {
            let size = 1_000 + Int(random.next() % 30_000)
            try Data((0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) })
                .write(to: alice.root.appendingPathComponent("doc\(index).bin"))
        }
        _ = try alice.save(nil)
        try alice.sync()
        return alice
    }

    /// The number of objects a full clone of `remote` receives, by the git CLI.
    func objectCount(in remote: URL) throws -> Int {
        let text = try runGit(["rev-list", "--objects", "--all"], in: remote)
        return text.split(separator: "\n").count
    }

    @Test func cloneFromABareRepositoryReportsMonotoneProgressEndingAtTheTotal() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        _ = try populate(scratch, remote: remote.path, seed: 7, count: 25)
        let recorder = Recorder()
        let (bob, _) = try Container.clone(
            from: remote.path, to: scratch.path("bob"), device: Device(id: "bob"),
            progress: recorder.handler)
        try expectMonotoneAndComplete(recorder.all, remote: "origin", direction: .fetch)
        let fetched = try #require(recorder.all.last { $0.direction == .fetch })
        #expect(fetched.totalObjects == (try objectCount(in: remote)))
        #expect(try bob.documents().count == 25)
    }

    @Test func syncThroughGitDaemonReportsFetchAndPushProgress() throws {
        let scratch = try Scratch()
        let daemon = try GitDaemon.servingEmptyRemote(in: scratch)
        defer { daemon.stop() }
        let url = daemon.url("remote.git")

        // alice pushes over the network: push progress, complete.
        let alice = try scratch.device("alice")
        try alice.addRemote("origin", url: url)
        var random = SplitMix64(seed: 21)
        for index in 0..<15 {
            try Data((0..<20_000).map { _ in UInt8(truncatingIfNeeded: random.next()) })
                .write(to: alice.root.appendingPathComponent("doc\(index).bin"))
        }
        let pushed = Recorder()
        let report = try alice.sync(progress: pushed.handler)
        #expect(report.pushed == ["origin"])
        try expectMonotoneAndComplete(pushed.all, remote: "origin", direction: .push)

        // bob clones over the network: fetch progress up to every object the remote holds.
        let fetched = Recorder()
        _ = try Container.clone(from: url, to: scratch.path("bob"), device: Device(id: "bob"), progress: fetched.handler)
        try expectMonotoneAndComplete(fetched.all, remote: "origin", direction: .fetch)
        let total = try objectCount(in: scratch.path("served/remote.git"))
        #expect(fetched.all.last { $0.direction == .fetch }?.totalObjects == total)

        // Nothing new: a sync may report nothing, but never a transfer that did not happen.
        let idle = Recorder()
        try alice.sync(progress: idle.handler)
        #expect(idle.all.allSatisfy { $0.totalObjects == 0 || $0.direction == .push || $0.isComplete })
    }
}
