import DocverKit
import DocverTestSupport
import Foundation
import Testing

/// Two devices, each with a running agent (the real binary), syncing with no command at all.
@Suite struct AgentSyncTests {
    /// True when `file` in `container`'s working tree holds `text`.
    func holds(_ container: Container, _ file: String, _ text: String) -> Bool {
        (try? container.read(file)) == text
    }

    /// Seconds from the last write of `file` in `source` to its writing into `destination`'s
    /// working tree, from the two files' modification times (one clock, nanoseconds): the
    /// test's own polling, which a busy suite can delay, is not counted.
    func arrival(of file: String, from source: Container, to destination: Container) throws -> Double {
        func modified(_ container: Container) throws -> Date {
            try #require(try FileManager.default.attributesOfItem(atPath: container.root.path + "/" + file)[.modificationDate] as? Date)
        }
        return try modified(destination).timeIntervalSince(modified(source))
    }

    /// The tree of this device's branch tip, as `git ls-tree -r` lists it.
    func savedPaths(_ container: Container) throws -> [String] {
        guard try container.headID() != nil else { return [] }
        return try container.git(["ls-tree", "-r", "--name-only", "refs/heads/docver/\(container.device.id)"])
            .split(separator: "\n").map(String.init)
    }

    @Test func aDocumentWrittenOnOneDeviceAppearsOnTheOtherThroughABareRemote() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        let agents = [try await AgentProcess.start(alice), try await AgentProcess.start(bob)]

        try alice.write("hello from alice\n", to: "notes/hello.txt")
        try await waitFor("the note on bob") { holds(bob, "notes/hello.txt", "hello from alice\n") }
        let latency = try arrival(of: "notes/hello.txt", from: alice, to: bob)
        #expect(latency < 5, "the note took \(latency) s to reach bob")

        // Both ways, a file package whole, and an editor's swap file never.
        try bob.write("<book/>", to: "book.pages/index.xml")
        try bob.write("image", to: "book.pages/images/cover.png")
        try bob.write("swap", to: "notes/.hello.txt.swp")
        try await waitFor("the package on alice") {
            holds(alice, "book.pages/index.xml", "<book/>") && holds(alice, "book.pages/images/cover.png", "image")
        }
        #expect(try !savedPaths(bob).contains { $0.hasSuffix(".swp") })
        #expect(!FileManager.default.fileExists(atPath: alice.root.path + "/notes/.hello.txt.swp"))

        // A deletion travels too.
        try alice.remove("notes/hello.txt")
        try await waitFor("the deletion on bob") { !FileManager.default.fileExists(atPath: bob.root.path + "/notes/hello.txt") }

        for agent in agents { #expect(agent.terminate() == 0) }
        #expect(agents[0].events("saved").count >= 2)
        #expect(agents[1].events("synced").count >= 1)
        // Bob had no saves when the note arrived: it was received, counted, not listed.
        #expect(agents[1].events("synced").contains { ($0["received"] as? Int ?? 0) >= 1 }, "\(agents[1].events("synced"))")
        try await waitFor("both devices to agree") { try alice.headID() == bob.headID() }
        try bob.remove("notes/.hello.txt.swp")  // the editor closes; the swap file was never a document
        try expectConverged([alice, bob])
    }

    /// A remote on this machine is watched: the other device syncs as soon as the push lands,
    /// not at its next poll. The poll here never comes (a day), so an arrival at all is the
    /// proof; how soon it comes is a figure, not a bound (bench_agent.py measures it).
    @Test func aDocumentArrivesThroughAWatchedLocalRemoteWithoutWaitingForThePoll() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        let agents = [
            try await AgentProcess.start(alice, quietDelay: 0.05, pollInterval: 86_400, maxBackoff: 300),
            try await AgentProcess.start(bob, quietDelay: 0.05, pollInterval: 86_400, maxBackoff: 300),
        ]
        defer { agents.forEach { _ = $0.terminate() } }

        try alice.write("written on alice\n", to: "first.txt")
        try await waitFor("the note on bob", timeout: 120) { holds(bob, "first.txt", "written on alice\n") }
        let there = try arrival(of: "first.txt", from: alice, to: bob)
        print("[figure] a note reached bob through a watched local remote in \(String(format: "%.2f", there)) s")

        // And back, once the first sync's own pushes have settled.
        try bob.write("written on bob\n", to: "second.txt")
        try await waitFor("the note on alice", timeout: 120) { holds(alice, "second.txt", "written on bob\n") }
        let back = try arrival(of: "second.txt", from: bob, to: alice)
        print("[figure] a note reached alice through a watched local remote in \(String(format: "%.2f", back)) s")
        try await waitFor("both devices to agree") { try alice.headID() == bob.headID() }
        for agent in agents { #expect(agent.terminate() == 0) }
        try expectConverged([alice, bob])
    }

    @Test func aDocumentTravelsThroughGitDaemon() async throws {
        let scratch = try Scratch()
        let daemon = try GitDaemon.servingEmptyRemote(in: scratch)
        defer { daemon.stop() }
        let alice = try scratch.device("alice")
        try alice.addRemote("origin", url: daemon.url("remote.git"))
        let bob = try scratch.device("bob")
        try bob.addRemote("origin", url: daemon.url("remote.git"))
        let agents = [try await AgentProcess.start(alice), try await AgentProcess.start(bob)]

        try alice.write("over git://\n", to: "net.txt")
        try await waitFor("the note on bob") { holds(bob, "net.txt", "over git://\n") }
        let latency = try arrival(of: "net.txt", from: alice, to: bob)
        #expect(latency < 5, "the note took \(latency) s to reach bob over git daemon")
        for agent in agents { agent.terminate() }
        try expectFsckClean(scratch.path("served/remote.git"))
    }

    /// The remote disappears (its path is moved away): both devices keep autosaving, report
    /// "offline", and once the remote is back they agree on the same current version and
    /// conflict versions, each reporting the conflict.
    @Test func editsWhileTheRemoteIsUnreachableConvergeWithConflictEventsOnBothSides() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("shared\n", to: "shared.txt")
        try alice.sync()
        try bob.sync()
        let agents = [try await AgentProcess.start(alice), try await AgentProcess.start(bob)]
        defer { agents.forEach { _ = $0.terminate() } }

        let away = scratch.path("remote-away.git")
        try FileManager.default.moveItem(at: remote, to: away)
        try await waitFor("both agents to go offline") { agents.allSatisfy { !$0.events("offline").isEmpty } }

        try alice.write("alice's edit\n", to: "shared.txt")
        try alice.write("alice only\n", to: "alice.txt")
        try bob.write("bob's edit\n", to: "shared.txt")
        try bob.write("bob only\n", to: "bob.txt")
        try await waitFor("both edits saved locally") {
            agents.allSatisfy { agent in
                agent.events("saved").contains { event in
                    ((event["changes"] as? [[String: Any]]) ?? []).contains { $0["document"] as? String == "shared.txt" }
                }
            }
        }
        let offline = try #require(agents[0].events("offline").first)
        #expect((offline["since"] as? String) != nil && (offline["retryIn"] as? Double).map { $0 > 0 } == true)
        // The reason names what is wrong, not libgit2's "unsupported URL protocol".
        let reason = offline["reason"] as? String ?? ""
        #expect(reason.contains("origin: the remote's path \(remote.path) does not exist"), "\(reason)")
        #expect(try Agent.status(of: alice)?.lastError == reason)

        try FileManager.default.moveItem(at: away, to: remote)
        try await waitFor("both agents to report the conflict") {
            agents.allSatisfy { agent in agent.events("conflict").contains { $0["document"] as? String == "shared.txt" } }
        }
        try await waitFor("both devices to agree") {
            try alice.headID() == bob.headID() && holds(alice, "bob.txt", "bob only\n") && holds(bob, "alice.txt", "alice only\n")
        }
        #expect(agents.allSatisfy { !$0.events("online").isEmpty })
        for agent in agents { #expect(agent.terminate() == 0) }
        try expectConverged([alice, bob])
        let conflicts = try alice.conflictSummary()
        #expect(conflicts["shared.txt"]?.count == 1)
        // Both edits are versions: one current, one conflict version.
        let conflict = try #require(try alice.conflicts().first { $0.document.path == "shared.txt" })
        let texts = Set(try ([conflict.current] + conflict.conflicts).map { try alice.contents(of: $0) })
        #expect(texts.contains(.flat(Data("alice's edit\n".utf8))) && texts.contains(.flat(Data("bob's edit\n".utf8))))
    }
}
