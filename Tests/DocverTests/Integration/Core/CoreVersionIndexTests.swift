import DocverKit
import DocverTestSupport
import Foundation
import Testing

/// The version index (`.git/docver/version-index`) is derived data: on real containers that
/// saved, deleted and synced at random, every history answer is the same with the index,
/// after deleting it, and after damaging it; history rewritten by plain git is answered
/// correctly, never from the index's memory of the old commits.
@Suite struct CoreVersionIndexTests {
    static let documents = ["a.txt", "b.txt", "notes/c.txt", "notes/d.txt", "e.txt"]

    /// Everything docver answers from history, as plain values.
    struct Answers: Equatable {
        var current: [String: String] = [:]
        var history: [String: [String]] = [:]
        var logs: [String: [String]] = [:]
        var log: [String] = []
        var items: [String] = []
        var conflicts: [String] = []

        init(_ container: Container) throws {
            for name in CoreVersionIndexTests.documents {
                let document = try DocumentPath(name)
                guard let version = try container.currentVersion(of: document) else { continue }
                current[name] = "\(version.id) \(version.isDeletion) \(String(describing: version.size)) \(version.device.id)"
                history[name] = try container.history(of: document).map { "\($0.id) \($0.isDeletion)" }
                logs[name] = try container.log(of: document).map { entry in
                    "\(entry.id) \(entry.kind) \(entry.changes.map { "\($0.document.path):\($0.change)" })"
                }
            }
            log = try container.log().map { entry in
                "\(entry.id) \(entry.kind) \(entry.changes.map { "\($0.document.path):\($0.change)" }) \(entry.conflicts)"
            }
            items = try container.documents().map { item in
                "\(item.document.path) \(item.created.timeIntervalSince1970) \(item.current.id) "
                    + "\(item.current.modified.timeIntervalSince1970) \(item.current.device) \(String(describing: item.size)) \(item.kind) "
                    + "\(item.hasUnresolvedConflicts) \(item.syncStatus.isUploaded) \(item.syncStatus.hasRemoteChanges)"
            }
            conflicts = try container.conflicts().map { conflict in
                "\(conflict.document.path) \(conflict.current.id) \(conflict.conflicts.map(\.id))"
            }
        }
    }

    /// Removes every cache in `.git/docver`, so the next answers are derived from history alone.
    static func dropCaches(of container: Container) throws {
        let folder = container.root.appendingPathComponent(".git/docver")
        for name in [
            "version-index", "versions.json", "conflicts.json", "conflict-listing", "conflict-listing.json",
            "document-listing",
        ] {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    static func indexFile(of container: Container) -> URL {
        container.root.appendingPathComponent(".git/docver/version-index")
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func deletingOrDamagingTheIndexGivesTheSameAnswers(seed: UInt64) throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let devices = try ["alice", "bob", "carol"].map { try scratch.device($0, remote: remote) }
        var random = SeededRandom(seed: seed)
        for step in 0..<24 {
            let device = devices.randomElement(using: &random)!
            let document = Self.documents.randomElement(using: &random)!
            switch Int.random(in: 0..<6, using: &random) {
            case 0, 1:
                try device.sync()
            case 2 where FileManager.default.fileExists(atPath: device.root.appendingPathComponent(document).path):
                try device.remove(document)
                _ = try device.save([DocumentPath(document)])
            default:
                try device.saveText("\(document) at step \(step) on \(device.device.id)\n", to: document)
            }
        }
        for device in devices {
            let withIndex = try Answers(device)
            #expect(FileManager.default.fileExists(atPath: Self.indexFile(of: device).path), "the commands built the index")
            try Self.dropCaches(of: device)
            #expect(try Answers(device) == withIndex, "seed \(seed): \(device.device.id) after deleting the index")
            try Data("DVIX garbage".utf8).write(to: Self.indexFile(of: device))
            #expect(try Answers(device) == withIndex, "seed \(seed): \(device.device.id) after damaging the index")
        }
    }

    /// History rewritten by plain git: `git reset --hard`, new saves, a forced push. The
    /// device that rewrote and the device that fetches the rewrite both answer from the new
    /// history, as they would without an index.
    @Test func aRewrittenBranchIsAnsweredFromTheNewHistory() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        for text in ["one", "two", "three"] { try alice.saveText("\(text)\n", to: "a.txt") }
        let dropped = try alice.saveText("dropped\n", to: "b.txt")
        try alice.sync()
        try bob.sync()
        _ = try Answers(alice); _ = try Answers(bob)  // both indexes now know the commits about to be dropped

        _ = try alice.git(["reset", "-q", "--hard", "HEAD~2"])
        try alice.saveText("rewritten\n", to: "a.txt")
        try alice.saveText("new\n", to: "e.txt")
        _ = try alice.git(["push", "-q", "--force", "origin", "docver/alice"])
        try bob.sync()

        for device in [alice, bob] {
            let answers = try Answers(device)
            try Self.dropCaches(of: device)
            #expect(try Answers(device) == answers, "\(device.device.id)")
        }
        // Alice's own history no longer holds the dropped saves.
        let aliceAnswers = try Answers(alice)
        #expect(aliceAnswers.current["b.txt"] == nil)
        #expect(!aliceAnswers.log.contains { $0.hasPrefix(dropped) })
        #expect(try alice.read("a.txt") == "rewritten\n")
        #expect(
            try alice.currentVersion(of: DocumentPath("a.txt"))?.id
                == alice.git(["log", "-1", "--format=%H", "--", "a.txt"])
                .trimmingCharacters(in: .whitespacesAndNewlines))
        try expectFsckClean(alice.root)
        try expectFsckClean(bob.root)
    }
}
