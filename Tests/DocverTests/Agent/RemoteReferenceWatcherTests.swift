import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// The agent's watch of remotes on this machine: another device's push is news, this
/// device's own is not, and folders created after the watch started are watched too.
@Suite struct RemoteReferenceWatcherTests {
    /// Waits (briefly) for inotify to deliver, then returns what moved.
    func moved(_ watcher: RemoteReferenceWatcher) async throws -> Set<String> {
        var result: Set<String> = []
        for _ in 0..<20 {
            result.formUnion(try watcher.movedRemotes())
            try await Task.sleep(for: .milliseconds(10))
        }
        return result
    }

    @Test func anotherDevicesPushIsNewsAndThisDevicesOwnIsNot() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()  // empty: no refs/heads/docver yet
        let bob = try scratch.device("bob", remote: remote)
        try bob.saveText("one\n", to: "a.txt")
        let commit = try #require(try bob.headID())
        _ = try bob.git(["push", remote.path, "\(commit):refs/heads/seed"])  // the objects, no device branch
        let directory = try #require(RemoteReferenceWatcher.gitDirectory(at: remote.path))
        #expect(directory == remote.path)
        #expect(RemoteReferenceWatcher.gitDirectory(at: scratch.path("nowhere").path) == nil)

        let watcher = try RemoteReferenceWatcher(ownBranch: "refs/heads/docver/alice")
        try watcher.watch(["origin": directory, "same": directory])
        #expect(watcher.watchedRemotes == ["origin", "same"])
        #expect(try await moved(watcher).isEmpty)

        // The first push creates refs/heads/docver: the new folder is news, and watched from then on.
        _ = try runGit(["update-ref", "refs/heads/docver/bob", commit], in: remote)
        #expect(try await moved(watcher) == ["origin", "same"])
        _ = try runGit(["update-ref", "refs/heads/docver/carol", commit], in: remote)
        #expect(try await moved(watcher) == ["origin", "same"])
        // This device's own branch moving there is its own push.
        _ = try runGit(["update-ref", "refs/heads/docver/alice", commit], in: remote)
        #expect(try await moved(watcher).isEmpty)
        // Other branches are no device's.
        _ = try runGit(["update-ref", "refs/heads/main", commit], in: remote)
        #expect(try await moved(watcher).isEmpty)
        // packed-refs rewritten (gc): anything may have moved.
        _ = try runGit(["pack-refs", "--all"], in: remote)
        #expect(try await moved(watcher) == ["origin", "same"])

        // A remote no longer configured is no longer watched.
        try watcher.watch([:])
        _ = try runGit(["update-ref", "refs/heads/docver/dave", commit], in: remote)
        #expect(try await moved(watcher).isEmpty)
        #expect(watcher.watchedRemotes.isEmpty)
    }
}
