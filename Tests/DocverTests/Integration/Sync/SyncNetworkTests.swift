import DocverKit
import Foundation
import Testing

/// Sync over a real network (git daemon), concurrent pushes, and the ways a remote can fail.
@Suite struct SyncNetworkTests {
    // MARK: 10. Real network

    @Test func threeDevicesSyncThroughGitDaemon() throws {
        let scratch = try Scratch()
        let daemon = try GitDaemon.servingEmptyRemote(in: scratch)
        defer { daemon.stop() }
        let url = daemon.url("remote.git")

        let alice = try scratch.device("alice")
        try alice.addRemote("origin", url: url)
        let first = try alice.saveText("hello over the network\n", to: "note.txt")
        let report = try alice.sync()
        #expect(report.pushed == ["origin"])

        let (bob, joined) = try Container.clone(from: url, to: scratch.path("bob"), device: Device(id: "bob"))
        #expect(joined.integrated)
        #expect(try bob.read("note.txt") == "hello over the network\n")
        let carol = try scratch.device("carol")
        try carol.addRemote("origin", url: url)
        try carol.sync()

        // Everyone edits the shared note and a document of their own.
        var saves = [first]
        for device in [alice, bob, carol] {
            saves.append(try device.saveText("\(device.device.id)'s version\n", to: "note.txt"))
            saves.append(try device.saveText("by \(device.device.id)\n", to: "\(device.device.id).txt"))
        }
        try alice.sync()
        // carol syncs with the CLI, over the same git:// URL.
        let cli = try docver("sync", in: carol.root)
        #expect(cli.status == 0, "docver sync failed: \(cli.stderr)")
        #expect(cli.stdout.contains("note.txt: ") && cli.stdout.contains("see 'docver conflicts'"), "\(cli.stdout)")
        try bob.sync()
        try alice.sync()
        try carol.sync()
        let devices = [alice, bob, carol]
        try expectConverged(devices)

        let doc = try DocumentPath("note.txt")
        for device in devices {
            #expect(try device.unresolvedConflictVersions(of: doc).count == 2)
            for id in ["alice", "bob", "carol"] { #expect(try device.read("\(id).txt") == "by \(id)\n") }
            for save in saves { #expect(try device.isReachable(save), "save \(save) lost on \(device.device.id)") }
        }
        // The served repository holds every device's branch at the converged head.
        let head = try #require(try alice.headID())
        let remoteRefs = try runGit(
            ["for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/"],
            in: scratch.path("served/remote.git"))
        #expect(remoteRefs.split(separator: "\n").sorted() == ["alice", "bob", "carol"].map { "refs/heads/docver/\($0) \(head)" })
        try expectFsckClean(scratch.path("served/remote.git"))

        daemon.stop()
        // With the daemon gone the remote is unreachable: a clear error, nothing changed.
        let before = try refSnapshot(alice.root)
        #expect {
            try alice.sync()
        } throws: { error in
            guard case let .remote(name, message)? = error as? DocverError else { return false }
            return name == "origin" && !message.isEmpty
        }
        #expect(try refSnapshot(alice.root) == before)
    }

    // MARK: 11. Concurrent pushes

    @Test func devicesSyncingAtTheSameTimeLoseNothing() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let devices = try ["alice", "bob", "carol"].map { try scratch.device($0, remote: remote) }
        try devices[0].saveText("start\n", to: "note.txt")
        for device in devices { try device.sync() }

        let lock = NSLock()
        nonisolated(unsafe) var saves: [String] = []
        nonisolated(unsafe) var failures: [String] = []
        for round in 0..<6 {
            // Every device saves, then all sync at the same moment on their own threads.
            for device in devices {
                saves.append(try device.saveText("\(device.device.id) round \(round)\n", to: "\(device.device.id).txt"))
                saves.append(try device.saveText("\(device.device.id) round \(round)\n", to: "shared.txt"))
            }
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for device in devices {
                group.enter()
                Thread.detachNewThread {
                    start.wait()
                    do {
                        let report = try device.sync()
                        if report.pushed != ["origin"] {
                            lock.withLock { failures.append("\(device.device.id) round \(round) did not push: \(report)") }
                        }
                    } catch {
                        lock.withLock { failures.append("\(device.device.id) round \(round): \(error)") }
                    }
                    group.leave()
                }
            }
            for _ in devices { start.signal() }
            group.wait()
        }
        #expect(failures.isEmpty, "\(failures)")
        for device in devices + devices { try device.sync() }
        try expectConverged(devices)
        for device in devices {
            for save in saves { #expect(try device.isReachable(save), "save \(save) lost on \(device.device.id)") }
            #expect(try device.read("\(device.device.id).txt") == "\(device.device.id) round 5\n")
        }
    }

    @Test func concurrentCLISyncsFromSeveralProcessesConverge() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let devices = try ["alice", "bob"].map { try scratch.device($0, remote: remote) }
        try devices[0].saveText("start\n", to: "note.txt")
        for device in devices { try device.sync() }
        for device in devices { try device.saveText("by \(device.device.id)\n", to: "note.txt") }

        // Two processes per device: the container lock serialises each device's own syncs,
        // and the devices push their own branches at the same time.
        let jobs = devices + devices
        nonisolated(unsafe) var results = [ProcessResult?](repeating: nil, count: jobs.count)
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
            let result = try? docver("sync", in: jobs[index].root)
            lock.withLock { results[index] = result }
        }
        for (index, result) in results.enumerated() {
            #expect(result?.status == 0, "sync \(index) failed: \(result?.stderr ?? "did not run")")
        }
        for device in devices { try device.sync() }
        try expectConverged(devices)
        #expect(try devices[0].unresolvedConflictVersions(of: DocumentPath("note.txt")).count == 1)
    }

    // MARK: 12. Errors

    @Test func unreachableRemotesFailClearlyAndChangeNothing() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("keep me\n", to: "note.txt")
        let notARepository = scratch.path("plain-folder")
        let closedPort = try freeLocalPort()
        let cases = [
            ("missing", scratch.path("does-not-exist.git").path),
            ("plain", notARepository.path),
            ("closed", "git://127.0.0.1:\(closedPort)/remote.git"),
        ]
        // A local path must hold a repository when the remote is added: these become
        // unusable afterwards (a share unmounted, a repository replaced by a plain folder).
        for (name, url) in cases {
            if url.hasPrefix("/") {
                try runGit(["init", "-q", "--bare", url], in: scratch.url)
                try alice.addRemote(name, url: url)
                try FileManager.default.removeItem(atPath: url)
            } else {
                try alice.addRemote(name, url: url)
            }
        }
        try FileManager.default.createDirectory(at: notARepository, withIntermediateDirectories: true)
        try Data("not git\n".utf8).write(to: notARepository.appendingPathComponent("README"))
        for (name, url) in cases {
            let before = try refSnapshot(alice.root)
            var caught: DocverError?
            do { try alice.sync([name]) } catch let error as DocverError { caught = error }
            // A network remote that does not answer, or a local path that is no repository
            // (checked before libgit2 is asked, which would say "unsupported URL protocol").
            switch caught {
            case let .remote(remoteName, message)?:
                #expect(remoteName == name && !message.isEmpty && url.hasPrefix("git://"))
            case let .remoteUnusable(remoteName, problem)?:
                #expect(remoteName == name && problem == .noRepositoryAt(url))
            default:
                Issue.record("sync with \(url) did not fail with DocverError.remote: \(String(describing: caught))")
                continue
            }
            #expect(caught?.description.hasPrefix("remote '\(name)': ") == true)
            #expect(try refSnapshot(alice.root) == before, "sync with \(url) changed refs")
            #expect(try alice.status().changed.isEmpty)
            #expect(try alice.read("note.txt") == "keep me\n")

            // The CLI: exit code 1 and one clear line on stderr.
            let cli = try docver("sync", name, in: alice.root)
            #expect(cli.status == 1)
            #expect(cli.stderr.hasPrefix("docver: error: remote '\(name)': "), "\(cli.stderr)")
            #expect(try refSnapshot(alice.root) == before)
        }
    }

    /// A second remote that cannot be reached does not keep the first from syncing: its saves
    /// are integrated and this device's pushed there, then the sync throws, saying which
    /// remote it missed and which it synced.
    @Test func failingSecondRemoteDoesNotKeepTheFirstFromSyncing() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("a\n", to: "a.txt")
        try alice.sync()
        try bob.sync()
        let bobSave = try bob.saveText("b\n", to: "b.txt")
        try bob.sync()

        // Added while it was there, gone since (a share unmounted).
        let nowhere = try scratch.bareRemote("nowhere.git")
        try alice.addRemote("unreachable", url: nowhere.path)
        try FileManager.default.removeItem(at: nowhere)
        let aliceSave = try alice.saveText("a2\n", to: "a.txt")
        var caught: DocverError?
        do { try alice.sync(["origin", "unreachable"]) } catch let error as DocverError { caught = error }
        guard case let .syncIncomplete(report)? = caught else {
            Issue.record("expected syncIncomplete, got \(String(describing: caught))")
            return
        }
        #expect(report.integrated)
        #expect(report.synced == ["origin"] && report.pushed == ["origin"])
        #expect(report.unreachable.map(\.remote) == ["unreachable"])
        #expect(report.unreachable.first?.error == .remoteUnusable(name: "unreachable", problem: .noRepositoryAt(scratch.path("nowhere.git").path)))
        #expect(
            caught?.description
                == "could not sync with remote 'unreachable' (no git repository at \(scratch.path("nowhere.git").path)); synced with 'origin'")
        #expect(try alice.isReachable(bobSave))
        #expect(try alice.read("b.txt") == "b\n")
        let remoteAlice = try runGit(["rev-parse", "refs/heads/docver/alice"], in: remote).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try alice.isReachable(aliceSave, from: remoteAlice), "alice's save reached the remote that answered")
    }

    @Test(arguments: [false, true])
    func deviceBranchRewrittenOnTheRemoteLosesNothing(integratedBeforeRewrite: Bool) throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        var saves = [try alice.saveText("base\n", to: "note.txt")]
        try alice.sync()
        try bob.sync()
        saves.append(try bob.saveText("bob 1\n", to: "bob.txt"))
        try bob.sync()
        saves.append(try bob.saveText("bob 2\n", to: "bob.txt"))
        try bob.sync()
        if integratedBeforeRewrite {
            try alice.sync()
        } else {
            // alice fetches bob's latest save without integrating it (a plain git fetch with
            // docver's refspec), so the save is only in her remote-tracking ref.
            try runGit(["fetch", "-q", "origin"], in: alice.root)
            #expect(try !alice.isReachable(saves[2]))
        }
        saves.append(try alice.saveText("alice 1\n", to: "alice.txt"))

        // Someone force-pushes an unrelated commit into bob's branch with plain git.
        let rogue = scratch.path("rogue")
        try runGit(["init", "-q", rogue.path], in: scratch.url)
        try Data("rewritten\n".utf8).write(to: rogue.appendingPathComponent("note.txt"))
        try Data("rogue\n".utf8).write(to: rogue.appendingPathComponent("rogue.txt"))
        try runGit(["add", "."], in: rogue)
        try runGit(["commit", "-q", "-m", "unrelated history"], in: rogue)
        try runGit(["push", "-q", "--force", remote.path, "HEAD:refs/heads/docver/bob"], in: rogue)
        let rogueCommit = try runGit(["rev-parse", "HEAD"], in: rogue).trimmingCharacters(in: .whitespacesAndNewlines)

        let report = try alice.sync(["origin"])
        #expect(report.warnings.contains { $0.contains("'bob'") && $0.contains("rewritten") }, "\(report.warnings)")
        for save in saves { #expect(try alice.isReachable(save), "save \(save) lost after the rewrite") }
        #expect(try alice.isReachable(rogueCommit))
        #expect(try alice.read("bob.txt") == "bob 2\n")
        #expect(try alice.read("rogue.txt") == "rogue\n")
        try expectFsckClean(alice.root)

        // bob's own branch was rewritten: his push is refused, he integrates and retries.
        saves.append(try bob.saveText("bob 3\n", to: "bob.txt"))
        let bobReport = try bob.sync()
        #expect(bobReport.pushed == ["origin"])
        for device in [alice, bob] { try device.sync(["origin"]) }
        try expectConverged([alice, bob])
        for device in [alice, bob] {
            for save in saves { #expect(try device.isReachable(save), "save \(save) lost on \(device.device.id)") }
            #expect(try device.isReachable(rogueCommit))
        }
        let remoteBob = try runGit(["rev-parse", "refs/heads/docver/bob"], in: remote).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try bob.isReachable(rogueCommit, from: remoteBob), "bob's branch on the remote now builds on the rewrite")
        #expect(try bob.isReachable(saves[2], from: remoteBob))
        try expectFsckClean(remote)
    }
}
