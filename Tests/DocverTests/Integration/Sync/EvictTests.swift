import DocverTestSupport
import Foundation
import Synchronization
import Testing

@testable import DocverKit

/// Evicting documents from a device on demand (issue 32, docs/ARCHITECTURE.md "Evicting a
/// document"): the file becomes a placeholder, the contents leave the device and stay
/// promised by the remote, the document keeps syncing, and `download` brings it back. A full
/// device is the oracle: every version it has, the evicting device reads back byte for byte.
@Suite struct EvictTests {
    /// Everything a refused eviction must leave as it was: references, the working tree's
    /// files and their bytes, which objects are missing, docver's eviction list.
    static func snapshot(_ device: Container) throws -> String {
        var files: [String] = []
        let root = device.root.path
        let walker = FileManager.default.enumerator(atPath: root)
        while let name = walker?.nextObject() as? String {
            if name == ".git" { walker?.skipDescendants(); continue }
            let data = FileManager.default.contents(atPath: root + "/" + name) ?? Data()
            files.append("\(name) \(data.count) \(data.hashValue)")
        }
        let evicted = FileManager.default.contents(atPath: root + "/.git/docver/evicted").map { String(decoding: $0, as: UTF8.self) } ?? "-"
        return try refSnapshot(device.root) + "\n" + files.sorted().joined(separator: "\n") + "\n"
            + OnDemandTests.missingObjects(device).sorted().joined(separator: ",") + "\n" + evicted
    }

    /// Random contents (they do not compress or delta), `size` bytes.
    static func noise(_ size: Int, _ random: inout SeededRandom) -> Data {
        Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    /// Alice, a full device, saves what `setUp` writes and syncs; bob joins on demand.
    static func aliceAndBobOnDemand(
        _ scratch: Scratch,
        setUp: (Container) throws -> Void
    ) throws -> (remote: URL, alice: Container, bob: Container) {
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try setUp(alice)
        try alice.sync()
        let bob = try Container.clone(from: remote.path, to: scratch.path("bob"), device: Device(id: "bob"), onDemand: true).container
        return (remote, alice, bob)
    }

    /// A document evicted is a placeholder and no change; download brings every version back.
    /// (docs/MODEL.md: R32.)
    @Test func evictFreesTheContentsAndDownloadBringsThemBack() throws {
        var random = SeededRandom(seed: 3301)
        let scratch = try Scratch()
        var films: [Data] = []
        let (remote, alice, bob) = try Self.aliceAndBobOnDemand(scratch) { alice in
            for _ in 0..<5 {
                films.append(Self.noise(200_000, &random))
                try films.last!.write(to: alice.root.appendingPathComponent("film.bin"))
                _ = try alice.save([DocumentPath("film.bin")])
            }
            try alice.saveText("keep me\n", to: "notes.txt")
        }
        _ = try bob.download([DocumentPath("film.bin")])
        #expect(try OnDemandTests.missingObjects(bob).isEmpty)
        let before = try bob.storageReport()

        let report = try bob.evict([DocumentPath("film.bin")])
        #expect(try report.documents == [DocumentPath("film.bin")] && report.discardedEdits.isEmpty && report.keptUnsyncedVersions == 0)
        #expect(report.freedBytes >= 5 * 200_000, "freed \(report.freedBytes)")
        // The file is a placeholder that says how to bring it back; nothing else changed.
        let root = bob.root
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("film.bin").path))
        let placeholder = try String(contentsOf: root.appendingPathComponent("film.bin.evicted.txt"), encoding: .utf8)
        #expect(placeholder.contains("docver download 'film.bin'"), "\(placeholder)")
        #expect(try bob.read("notes.txt") == "keep me\n")
        #expect(try bob.status().changed.isEmpty)
        #expect(try bob.save() == nil)
        #expect(try bob.save([DocumentPath("film.bin")]) == nil)
        #expect(try bob.save([DocumentPath("film.bin.evicted.txt")]) == nil)
        #expect(try bob.isEvicted(DocumentPath("film.bin")))
        // Every version's contents left, and git counts them as promised.
        #expect(try OnDemandTests.missingObjects(bob).count == 5)
        #expect(try bob.storageReport().diskBytes < before.diskBytes - 900_000)
        try expectFsckClean(bob.root)
        _ = try bob.collectGarbage()
        try expectFsckClean(bob.root)
        #expect(try OnDemandTests.missingObjects(bob).count == 5)

        // The metadata says so; a query can ask for it.
        let items = try bob.documents()
        let filmPath = try DocumentPath("film.bin")
        let film = try #require(items.first { $0.document == filmPath })
        #expect(film.downloadStatus == .notDownloaded && film.percentDownloaded == 0 && !film.isDownloading)
        let notesPath = try DocumentPath("notes.txt")
        #expect(items.first { $0.document == notesPath }?.downloadStatus == .current)
        #expect(try bob.query(DocumentQuery(downloadStatus: .notDownloaded)).map(\.document) == [DocumentPath("film.bin")])
        let listed = try docver("ls", "--json", "--download-status", "notDownloaded", in: bob.root)
        #expect(try JSONSchemaCLITests.validator("ls").problems(in: JSONValue.parse(listed.stdoutData)) == [], "\(listed.stdout)")
        #expect(listed.stdout.contains("\"downloadStatus\" : \"notDownloaded\"") && !listed.stdout.contains("notes.txt"), "\(listed.stdout)")

        // Syncing evicts nothing more and deletes nothing anywhere.
        try bob.sync()
        try alice.sync()
        #expect(try alice.read("notes.txt") == "keep me\n")
        #expect(try Data(contentsOf: alice.root.appendingPathComponent("film.bin")) == films.last)

        // Offline, download fails in one line and the document stays evicted, unchanged.
        try FileManager.default.moveItem(at: remote, to: scratch.path("moved.git"))
        let offline = try Self.snapshot(bob)
        #expect {
            _ = try bob.download([DocumentPath("film.bin")])
        } throws: { error in
            "\(error)".contains("origin") && !"\(error)".contains("\n")
        }
        #expect(try Self.snapshot(bob) == offline)
        #expect(try bob.isEvicted(DocumentPath("film.bin")))
        // (Offline, evicting needs no remote: it is local work.)
        try FileManager.default.moveItem(at: scratch.path("moved.git"), to: remote)

        // Download brings the file back, every version with it.
        let progress = Mutex<[Int]>([])
        let back = try bob.download([DocumentPath("film.bin")]) { report in
            progress.withLock { $0.append(report.objects) }
        }
        let percents = progress.withLock { $0 }
        #expect(try back.broughtBack == [DocumentPath("film.bin")] && back.fetchedFiles == 5)
        #expect(percents.last == 5, "\(percents)")
        #expect(try Data(contentsOf: root.appendingPathComponent("film.bin")) == films.last)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("film.bin.evicted.txt").path))
        #expect(try !bob.isEvicted(DocumentPath("film.bin")))
        #expect(try bob.status().changed.isEmpty)
        #expect(try OnDemandTests.missingObjects(bob).isEmpty)
        let versions = try OnDemandTests.allVersions(of: "film.bin", on: bob)
        for (id, version) in try OnDemandTests.allVersions(of: "film.bin", on: alice) {
            let mine = try #require(versions[id])
            #expect(try bob.contents(of: mine) == alice.contents(of: version))
        }
        try expectFsckClean(bob.root)
    }

    /// (docs/MODEL.md: R34.)
    @Test func evictRefusesWhatItWouldLoseAndChangesNothing() async throws {
        let scratch = try Scratch()
        // (A name of 250 bytes leaves no room for the placeholder's suffix within 255.)
        let long = String(repeating: "l", count: 246) + ".txt"
        let (_, alice, bob) = try Self.aliceAndBobOnDemand(scratch) { alice in
            for name in ["edited.txt", "unsynced.txt", "contested.txt", "taken.txt", "forced.txt", long] {
                try alice.saveText("\(name) from alice\n", to: name)
            }
            try FileManager.default.createSymbolicLink(atPath: alice.root.appendingPathComponent("link").path, withDestinationPath: "taken.txt")
            _ = try alice.save([DocumentPath("link")])
        }

        // A full device cannot evict.
        let full = try Self.snapshot(alice)
        #expect { _ = try alice.evict([DocumentPath("edited.txt")]) } throws: { "\($0)".contains("keeps every version's contents") }
        #expect(try Self.snapshot(alice) == full)

        try alice.saveText("alice's rival\n", to: "contested.txt")
        try alice.sync()
        // (bob's contested version: saved and synced, so the conflict is bob's to see.)
        try bob.saveText("bob's rival\n", to: "contested.txt")
        try bob.sync()
        try bob.write("bob's unsaved edit\n", to: "edited.txt")
        try bob.write("a file where the placeholder goes\n", to: "taken.txt.evicted.txt")
        try bob.saveText("bob's save, not synced\n", to: "unsynced.txt")
        #expect(try !bob.unresolvedConflictVersions(of: DocumentPath("contested.txt")).isEmpty)
        let before = try Self.snapshot(bob)
        let refusals: [(String, String)] = [
            ("edited.txt", "unsaved changes"), ("unsynced.txt", "not on 'origin' yet"), ("contested.txt", "unresolved conflict"),
            ("taken.txt", "is taken"), ("link", "symbolic link"), (long, "too long"),
        ]
        for (document, reason) in refusals {
            #expect(throws: DocverError.self) { _ = try bob.evict([DocumentPath(document)]) }
            do {
                _ = try bob.evict([DocumentPath("forced.txt"), DocumentPath(document)])
                Issue.record("\(document) was evicted")
            } catch {
                #expect("\(error)".contains(reason) && "\(error)".contains("nothing was changed") && !"\(error)".contains("\n"), "\(error)")
            }
            #expect(try Self.snapshot(bob) == before, "evicting \(document) changed something")
        }
        let cli = try docver("evict", "edited.txt", in: bob.root)
        #expect(cli.status == 1 && cli.stderr.hasPrefix("docver: error: cannot evict edited.txt: it has unsaved changes"), "\(cli.stderr)")
        #expect(try docver("evict", "nosuch.txt", in: bob.root).status == 1)
        #expect(try Self.snapshot(bob) == before)

        // --force evicts a document in conflict, and one with unsaved changes, saying so.
        let forced = try bob.evict([DocumentPath("edited.txt"), DocumentPath("contested.txt")], force: true)
        #expect(try forced.discardedEdits == [DocumentPath("edited.txt")])
        #expect(try bob.isEvicted(DocumentPath("edited.txt")) && bob.isEvicted(DocumentPath("contested.txt")))
        #expect(try bob.status().changed.map(\.document.path) == ["taken.txt.evicted.txt"])
        // The conflict is still there, and resolving it brings the document back.
        #expect(try bob.unresolvedConflictVersions(of: DocumentPath("contested.txt")).count == 1)
        _ = try await bob.resolve(DocumentPath("contested.txt"), using: LatestDateStrategy())
        #expect(try !bob.isEvicted(DocumentPath("contested.txt")))
        #expect(try bob.status().changed.map(\.document.path) == ["taken.txt.evicted.txt"])
        try bob.sync()
        try alice.sync()
        // The discarded edit was never a version: alice keeps hers.
        #expect(try alice.read("edited.txt") == "edited.txt from alice\n")
        try expectFsckClean(bob.root)
    }

    /// The placeholder is the user's handle, as an `.icloud` file is: an evicted document keeps
    /// its newer versions without being downloaded, leaves with its deletion elsewhere, is
    /// deleted by deleting its placeholder, and comes back when a file is written in its place
    /// or a version restored.
    /// (docs/MODEL.md: R33.)
    @Test func anEvictedDocumentKeepsSyncingAndItsPlaceholderIsTheUsersHandle() throws {
        let scratch = try Scratch()
        let (_, alice, bob) = try Self.aliceAndBobOnDemand(scratch) { alice in
            for name in ["a.txt", "b.txt", "c.txt", "folder/d.txt", "e.txt"] { try alice.saveText("\(name) 1\n", to: name) }
        }
        _ = try bob.evict(["a.txt", "b.txt", "c.txt", "folder/d.txt", "e.txt"].map { try DocumentPath($0) })
        #expect(try bob.status().changed.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: bob.root.appendingPathComponent("folder").path) == ["d.txt.evicted.txt"])

        // A newer version arrives: the document stays evicted, its current version is the new one.
        try alice.saveText("a.txt 2\n", to: "a.txt")
        try alice.remove("b.txt")
        _ = try alice.save([DocumentPath("b.txt")])
        try alice.sync()
        try bob.sync()
        #expect(try bob.isEvicted(DocumentPath("a.txt")))
        #expect(try bob.currentVersion(of: DocumentPath("a.txt")).map { try bob.contents(of: $0) } == .flat(Data("a.txt 2\n".utf8)))
        // The deletion made elsewhere takes the placeholder with it.
        #expect(!FileManager.default.fileExists(atPath: bob.root.appendingPathComponent("b.txt.evicted.txt").path))
        #expect(try bob.status().changed.isEmpty)

        // Deleting the placeholder deletes the document; writing a file in its place is an edit.
        try bob.remove("c.txt.evicted.txt")
        #expect(try bob.status().changed.map(\.document.path) == ["c.txt"])
        try bob.write("bob wrote a new d\n", to: "folder/d.txt")
        #expect(try bob.status().changed.map(\.document.path) == ["c.txt", "folder/d.txt"])
        _ = try bob.save()
        #expect(!FileManager.default.fileExists(atPath: bob.root.appendingPathComponent("folder/d.txt.evicted.txt").path))
        // A restore brings the document back with the version restored.
        let first = try bob.versions(of: DocumentPath("e.txt")).current
        try bob.saveText("e.txt 2\n", to: "e.txt")
        try bob.sync()
        _ = try bob.evict([DocumentPath("e.txt")])
        _ = try bob.restore(DocumentPath("e.txt"), to: first.id)
        #expect(try bob.read("e.txt") == "e.txt 1\n")
        #expect(!FileManager.default.fileExists(atPath: bob.root.appendingPathComponent("e.txt.evicted.txt").path))
        #expect(try bob.status().changed.isEmpty)

        try bob.sync()
        try alice.sync()
        #expect(!FileManager.default.fileExists(atPath: alice.root.appendingPathComponent("c.txt").path))
        #expect(try alice.read("folder/d.txt") == "bob wrote a new d\n")
        #expect(try alice.read("a.txt") == "a.txt 2\n")
        #expect(try alice.read("e.txt") == "e.txt 1\n")
        _ = try bob.download(nil)
        try expectConverged([alice, bob])
    }

    /// Randomized sessions: a full device and a device on demand that evicts, downloads,
    /// edits, deletes placeholders and syncs at random. Evictions are refused exactly when the
    /// rules say; after everyone syncs and the device on demand downloads everything, both
    /// converge, every version the full device has reads back byte for byte on the other, and
    /// `git fsck --strict` is clean throughout.
    /// (3326: an integration that emptied the container named the empty tree without storing
    /// it, which a device on demand never received: `git fsck` found it missing. 3319: a
    /// refused eviction after bob wrote over a placeholder. `DOCVER_FUZZ_LONG=1` runs 60 seeds.)
    /// (docs/MODEL.md: R32.)
    @Test(arguments: ProcessInfo.processInfo.environment["DOCVER_FUZZ_LONG"] == nil ? [3311, 3312, 3313, 3319, 3326] : Array(3311...3370))
    func randomSessionsWithEvictionsLoseNothing(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let scratch = try Scratch()
        let documents = ["a.txt", "b.bin", "folder/c.txt", "d.txt"]
        let (remote, alice, bob) = try Self.aliceAndBobOnDemand(scratch) { alice in
            for document in documents { try alice.saveText("\(document) base\n", to: document) }
        }
        var evictions = 0, refusals = 0
        var bobDeleted = Set<String>()
        for step in 0..<40 {
            let document = documents[Int.random(in: 0..<documents.count, using: &random)]
            let path = try DocumentPath(document)
            switch Int.random(in: 0..<12, using: &random) {
            case 0..<2:
                let text = "alice step \(step)\n" + String(repeating: "a", count: Int.random(in: 0..<3000, using: &random))
                try alice.saveText(text, to: document)
            case 2:
                try alice.sync()
            case 3..<5:
                let text = "bob step \(step)\n" + String(repeating: "b", count: Int.random(in: 0..<3000, using: &random))
                try bob.write(text, to: document)
                if Bool.random(using: &random) { _ = try bob.save() }
            case 5..<7:
                try bob.sync()
            case 7..<10:
                // The oracle of refusal: unsaved changes, open conflicts, or a current version
                // not on the remote refuse; anything else evicts.
                let edited = try bob.status().changed.contains { $0.document == path }
                let contested = try !bob.unresolvedConflictVersions(of: path).isEmpty
                let exists = try bob.currentVersion(of: path).map { !$0.isDeletion } ?? false
                // Any write first forgets what the working tree no longer shows (R33: a file
                // bob wrote over an evicted document's placeholder); a refusal changes nothing
                // beyond that.
                try bob.withWriteLock { _ in }
                let before = try Self.snapshot(bob)
                do {
                    _ = try bob.evict([path])
                    evictions += 1
                    #expect(exists && !edited && !contested, "seed \(seed) step \(step): \(document) evicted against the rules")
                    #expect(bob.isEvicted(path) || !exists)
                } catch {
                    refusals += 1
                    #expect(try Self.snapshot(bob) == before, "seed \(seed) step \(step): a refused evict changed something: \(error)")
                    #expect(!"\(error)".contains("\n"))
                }
            case 10:
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    _ = try bob.download(Bool.random(using: &random) ? nil : [path])
                    #expect(!bob.isEvicted(path))
                case 1 where bob.isEvicted(path):
                    // The user deletes the placeholder: a deletion, and the only kind bob makes.
                    try bob.remove(document + ".evicted.txt")
                    #expect(try bob.status().changed.contains { $0.document == path && $0.change == .deleted })
                    bobDeleted.insert(document)
                    _ = try bob.save()
                default:
                    if FileManager.default.fileExists(atPath: alice.root.appendingPathComponent(document).path) {
                        try alice.remove(document)
                        _ = try alice.save([path])
                    }
                }
            default:
                for document in documents where try !bob.unresolvedConflictVersions(of: DocumentPath(document)).isEmpty {
                    _ = try await bob.resolve(DocumentPath(document), using: LatestDateStrategy())
                }
            }
            #expect(try bob.status().changed.allSatisfy { !bob.isEvicted($0.document) }, "seed \(seed) step \(step)")
            if step % 10 == 9 { try expectFsckClean(bob.root) }
        }
        #expect(evictions > 0, "seed \(seed): nothing was evicted, so nothing was tested")
        _ = try bob.save()
        for _ in 0..<2 { for device in [bob, alice] { try device.sync() } }
        _ = try bob.download(nil)
        try expectConverged([alice, bob], context: "seed \(seed)")
        // No eviction ever reached another device as a deletion.
        for document in documents {
            guard let current = try alice.currentVersion(of: DocumentPath(document)), current.isDeletion, current.device.id == "bob" else { continue }
            #expect(bobDeleted.contains(document), "seed \(seed): bob deleted \(document), which only an eviction touched")
        }
        for document in documents {
            guard let oracle = try? OnDemandTests.allVersions(of: document, on: alice) else { continue }
            let versions = try OnDemandTests.allVersions(of: document, on: bob)
            #expect(Set(versions.keys) == Set(oracle.keys), "seed \(seed): \(document)")
            for (id, version) in oracle {
                guard let mine = versions[id] else { continue }
                #expect(try bob.contents(of: mine) == alice.contents(of: version), "seed \(seed): \(document) \(id.prefix(12))")
            }
        }
        try expectFsckClean(remote)
        _ = refusals
    }

    /// `evict` and `download` killed at random moments: the next command works, nothing is
    /// lost or shown as changed, `git fsck --strict` stays clean, and the document comes back
    /// byte for byte. (`DOCVER_CRASH_KILLS` sets the rounds, as for the crash harness.)
    /// (docs/MODEL.md: R34.)
    @Test func killedEvictionsAndDownloadsLoseNothing() throws {
        var random = SeededRandom(seed: CrashRecoveryTests.seed)
        let scratch = try Scratch()
        // A flat document, one in a folder, and a package of six components: a package is
        // written and removed file by file, so a kill can land between two of them.
        let documents = ["film.bin", "notes/clip.bin", "reel.pkgdoc"]
        let (_, alice, bob) = try Self.aliceAndBobOnDemand(scratch) { alice in
            for _ in 0..<3 {
                for document in documents {
                    let files = document.hasSuffix(".pkgdoc") ? (0..<6).map { "\(document)/part\($0).bin" } : [document]
                    for file in files {
                        let url = alice.root.appendingPathComponent(file)
                        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                        try Self.noise(200_000, &random).write(to: url)
                    }
                }
                _ = try alice.save()
            }
        }
        let commits = try runGit(["rev-list", "--all"], in: bob.root)

        var duration: [String: Double] = [:]
        var killed = 0
        let rounds = max(6, CrashRecoveryTests.kills)
        for round in 0..<rounds {
            // Each document in turn: evict, then download.
            let document = documents[(round / 2) % documents.count]
            let command = round % 2 == 0 ? "evict" : "download"
            // Every other pair of rounds is killed within a few milliseconds of the moment
            // the command starts to change the working tree: an eviction once the
            // placeholder appears (between the list and the dropped contents), a download
            // once the document's file or folder appears (while it is written).
            let placeholder = bob.root.path + "/" + document + ".evicted.txt"
            let target = command == "evict" ? placeholder : bob.root.path + "/" + document
            let targeted = (round / (2 * documents.count)) % 2 == 1 && !FileManager.default.fileExists(atPath: target)
            let delay =
                targeted
                ? Double.random(in: 0...0.005, using: &random)
                : Double.random(in: 0...(duration[command] ?? 0.2), using: &random)
            let (wasKilled, elapsed) = try CrashRecoveryTests.runAndKill(
                [command, document], in: bob.root, after: delay,
                startingWhenExists: targeted ? target : nil)
            if wasKilled { killed += 1 } else if !targeted { duration[command] = elapsed }
            let context =
                "round \(round): \(command) \(document) killed \(wasKilled ? "after \(delay) s" : "never")\(targeted ? " (targeted)" : "") (seed \(CrashRecoveryTests.seed))"
            let status = try docver("status", "--json", in: bob.root)
            #expect(status.status == 0 && !status.stdout.contains("\"kind\""), "\(context): \(status.stdout) \(status.stderr)")
            let changed = try bob.status().changed
            #expect(changed.isEmpty, "\(context): \(changed)")
            try expectFsckClean(bob.root)
            #expect(try runGit(["rev-list", "--all"], in: bob.root) == commits, "\(context)")
            // Whatever state it was left in, the document is either whole or a placeholder.
            if FileManager.default.fileExists(atPath: bob.root.appendingPathComponent(document).path) {
                #expect(try Self.files(of: document, in: bob) == Self.files(of: document, in: alice), "\(context): a torn document")
            } else {
                #expect(bob.isEvicted(try DocumentPath(document)), "\(context): neither document nor placeholder")
            }
        }
        _ = try bob.download(nil)
        for document in documents {
            #expect(try Self.files(of: document, in: bob) == Self.files(of: document, in: alice))
            #expect(!FileManager.default.fileExists(atPath: bob.root.appendingPathComponent(document + ".evicted.txt").path))
        }
        try bob.sync()
        try alice.sync()
        try expectConverged([alice, bob])
        #expect(killed >= rounds / 4, "only \(killed) of \(rounds) commands were still running when killed")
    }

    /// A document's files in a device's working tree, by path below it ("" for a flat one).
    static func files(of document: String, in device: Container) throws -> [String: Data] {
        let root = device.root.appendingPathComponent(document).path
        guard let walker = FileManager.default.enumerator(atPath: root) else {
            return ["": try Data(contentsOf: URL(fileURLWithPath: root))]
        }
        var result: [String: Data] = [:]
        while let name = walker.nextObject() as? String {
            if let data = FileManager.default.contents(atPath: root + "/" + name),
                (walker.fileAttributes?[.type] as? FileAttributeType) == .typeRegular
            {
                result[name] = data
            }
        }
        return result.isEmpty ? ["": try Data(contentsOf: URL(fileURLWithPath: root))] : result
    }

    /// A full device made to keep documents on demand from its existing remote
    /// (`docver remote on-demand origin`) can evict: what it had is promised from then on.
    /// (docs/MODEL.md: R34.)
    @Test func aFullDeviceTurnedOnDemandEvictsToo() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        for round in 0..<3 { try alice.saveText("film round \(round)\n" + String(repeating: "x", count: 50_000 + round), to: "film.txt") }
        try alice.sync()
        let refused = try docver("evict", "film.txt", in: alice.root)
        #expect(refused.status == 1 && refused.stderr.contains("keeps every version's contents"), "\(refused.stderr)")
        let turned = try docver("remote", "on-demand", "origin", in: alice.root)
        #expect(turned.status == 0 && turned.stdout.contains("now keeps documents on demand"), "\(turned.stdout) \(turned.stderr)")
        #expect(try docver("remote", "on-demand", "origin", in: alice.root).stdout.contains("already"))
        #expect(try docver("remote", "on-demand", "nosuch", in: alice.root).status == 1)
        let evicted = try alice.evict([DocumentPath("film.txt")])
        #expect(evicted.freedBytes > 0)
        #expect(try OnDemandTests.missingObjects(alice).count == 3)
        try expectFsckClean(alice.root)
        _ = try alice.collectGarbage()
        try expectFsckClean(alice.root)
        try alice.saveText("more\n", to: "other.txt")
        try alice.sync()
        _ = try alice.download(nil)
        #expect(try alice.read("film.txt").hasPrefix("film round 2"))
        #expect(try OnDemandTests.missingObjects(alice).isEmpty)
        try expectFsckClean(alice.root)
    }

    /// A file package is evicted whole: its folder becomes one placeholder, every component's
    /// contents leave, and download writes the folder back.
    @Test func aPackageIsEvictedWhole() throws {
        let scratch = try Scratch()
        let (_, _, bob) = try Self.aliceAndBobOnDemand(scratch) { alice in
            try alice.write("one\n", to: "trip.imagenotes/a.txt")
            try alice.write("two\n", to: "trip.imagenotes/photos/b.txt")
            _ = try alice.save()
            try alice.write("two, edited\n", to: "trip.imagenotes/photos/b.txt")
            _ = try alice.save()
        }
        #expect(throws: DocverError.self) { _ = try bob.evict([DocumentPath("trip.imagenotes/a.txt")]) }
        _ = try bob.evict([DocumentPath("trip.imagenotes")])
        #expect(!FileManager.default.fileExists(atPath: bob.root.appendingPathComponent("trip.imagenotes").path))
        #expect(try bob.status().changed.isEmpty)
        #expect(try OnDemandTests.missingObjects(bob).count == 3)
        try expectFsckClean(bob.root)
        let back = try bob.download([DocumentPath("trip.imagenotes")])
        #expect(try back.broughtBack == [DocumentPath("trip.imagenotes")])
        #expect(try bob.read("trip.imagenotes/photos/b.txt") == "two, edited\n" && bob.read("trip.imagenotes/a.txt") == "one\n")
        #expect(try bob.status().changed.isEmpty)
        try expectFsckClean(bob.root)
    }

    /// A kill inside `evict` leaves nothing in the working tree that is not the user's: every
    /// temporary file it makes (the placeholder's, a package's way out) is in
    /// `.git/docver/staging`, swept by the next write. A placeholder written beside itself left,
    /// when killed before its rename, a `.docver-tmp-…` file in the working tree that status
    /// listed as an added document and a save would have kept (found by
    /// `killedEvictionsAndDownloadsLoseNothing` on a busy machine). Watched with strace, since the
    /// window is microseconds wide.
    @Test func anEvictionMakesItsTemporaryFilesOutsideTheWorkingTree() throws {
        let scratch = try Scratch()
        let (_, _, bob) = try Self.aliceAndBobOnDemand(scratch) { alice in
            try alice.write("one\n", to: "film.bin")
            try alice.write("two\n", to: "reel.pkgdoc/a.txt")
            try alice.write("three\n", to: "reel.pkgdoc/b/c.txt")
            _ = try alice.save()
        }
        guard
            let (result, trace) = try StartupCLITests.traced(
                ["evict", "film.bin", "reel.pkgdoc"], in: bob.root,
                calls: "openat,rename,renameat,renameat2,linkat,mkdir,mkdirat",
                scratch: scratch)
        else { return }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: bob.root.appendingPathComponent("film.bin.evicted.txt").path))
        #expect(FileManager.default.fileExists(atPath: bob.root.appendingPathComponent("reel.pkgdoc.evicted.txt").path))
        let temporaries = trace.filter { $0.contains(AtomicFile.temporaryPrefix) }
        #expect(!temporaries.isEmpty, "the trace shows the temporary files")
        let root = bob.root.resolvingSymlinksInPath().path
        let stray = temporaries.filter { line in
            line.split(separator: "\"").enumerated().contains { index, part in
                index % 2 == 1 && part.contains(AtomicFile.temporaryPrefix) && !part.contains("/.git/")
                    && (part.hasPrefix(root) || part.hasPrefix(bob.root.path) || !part.hasPrefix("/"))
            }
        }
        #expect(stray.isEmpty, "temporary files in the working tree: \(stray)")
        #expect(try bob.status().changed.isEmpty)
    }

    /// The states a kill inside `evict` leaves, made by hand (the windows between its writes
    /// are microseconds): listed with its placeholder written but its file still there, the
    /// document is simply here, and the next save tidies the rest away; listed with its file
    /// gone but its contents still here, it is evicted, and evicting again frees them.
    /// (docs/MODEL.md: R33.)
    @Test func theStatesAKilledEvictionLeavesAreSafe() throws {
        let scratch = try Scratch()
        let (_, alice, bob) = try Self.aliceAndBobOnDemand(scratch) { alice in
            try alice.saveText("the text\n", to: "note.txt")
            try alice.saveText("other\n", to: "other.txt")
        }
        let list = bob.root.appendingPathComponent(".git/docver/evicted")

        try Data("note.txt\n".utf8).write(to: list)
        try bob.write("note.txt is not on this device\n", to: "note.txt.evicted.txt")
        #expect(try !bob.isEvicted(DocumentPath("note.txt")))
        #expect(try bob.status().changed.isEmpty)
        #expect(try bob.save() == nil)
        #expect(!FileManager.default.fileExists(atPath: list.path))
        #expect(!FileManager.default.fileExists(atPath: bob.root.appendingPathComponent("note.txt.evicted.txt").path))
        #expect(try bob.read("note.txt") == "the text\n")

        try Data("note.txt\n".utf8).write(to: list)
        try bob.write("note.txt is not on this device\n", to: "note.txt.evicted.txt")
        try bob.remove("note.txt")
        #expect(try bob.isEvicted(DocumentPath("note.txt")))
        #expect(try bob.status().changed.isEmpty)
        #expect(try OnDemandTests.missingObjects(bob).isEmpty)
        let again = try bob.evict([DocumentPath("note.txt")])
        #expect(again.freedBytes > 0)
        #expect(try OnDemandTests.missingObjects(bob).count == 1)
        try expectFsckClean(bob.root)
        try bob.sync()
        try alice.sync()
        #expect(try alice.read("note.txt") == "the text\n")
    }

    /// An editor opening an evicted document brings it back first, and says how far it got.
    @Test func anEditorOpeningAnEvictedDocumentDownloadsItFirst() async throws {
        let scratch = try Scratch()
        let (_, _, bob) = try Self.aliceAndBobOnDemand(scratch) { alice in
            try alice.saveText("the text\n", to: "note.txt")
        }
        _ = try bob.evict([DocumentPath("note.txt")])
        let document = ManagedDocument<TextModel>(container: bob, path: try DocumentPath("note.txt"))
        let events = await document.events()
        try await document.open()
        #expect(await document.model?.text == "the text\n")
        #expect(try !bob.isEvicted(DocumentPath("note.txt")))
        #expect(try bob.read("note.txt") == "the text\n")
        // Announced while open ran: all buffered by now.
        var seen: [DocumentEvent] = []
        var iterator = events.makeAsyncIterator()
        while let event = await iterator.next() {
            seen.append(event)
            if event == .downloading(percent: 100) || seen.count > 20 { break }
        }
        #expect(seen.first == .downloading(percent: 0) && seen.last == .downloading(percent: 100), "\(seen)")
        try await document.close()
    }
}
