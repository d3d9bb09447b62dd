import DocverKit
import DocverTestSupport
import Foundation
import Testing

/// Documents on demand (issue 32, docs/ARCHITECTURE.md "Documents on demand"): a device that
/// joins with `clone --on-demand` receives every version's commit and folders but only the
/// contents of each device's newest saves, and fetches an older version's contents when a
/// command reads them. A full device is the oracle: every version it has, the device on
/// demand reads back byte for byte.
@Suite struct OnDemandTests {
    /// The objects a repository names but does not have (git's own count).
    static func missingObjects(_ container: Container) throws -> Set<String> {
        let listing = try runGit(["rev-list", "--objects", "--all", "--missing=print"], in: container.root)
        return Set(listing.split(separator: "\n").filter { $0.hasPrefix("?") }.map { String($0.dropFirst()) })
    }

    /// Every version `device` lists of `document`, by id.
    static func allVersions(of document: String, on device: Container) throws -> [String: DocumentVersion] {
        let versions = try device.versions(of: DocumentPath(document), includingResolved: true)
        let all = [versions.current] + versions.unresolvedConflicts + versions.resolvedConflicts + versions.history + versions.merged
        return Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func aDeviceOnDemandHoldsTheNewestContentsAndFetchesAnOlderVersionWhenItIsRead() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        var texts: [String] = []
        for round in 0..<6 {
            let text = "round \(round): " + String(repeating: "\(round)", count: 4000) + "\n"
            texts.append(text)
            try alice.saveText(text, to: "report.txt")
            if round % 2 == 0 { try alice.saveText("note \(round)\n", to: "notes/todo.txt") }
        }
        try alice.sync()

        let (bob, report) = try Container.clone(from: remote.path, to: scratch.path("bob"), device: Device(id: "bob"), onDemand: true)
        #expect(report.receivedDocuments == 2)
        #expect(report.warnings.isEmpty, "\(report.warnings)")
        #expect(try bob.read("report.txt") == texts.last)
        #expect(try bob.read("notes/todo.txt") == "note 4\n")
        // The five older texts and the two older notes are left out: nothing else.
        let missing = try Self.missingObjects(bob)
        #expect(missing.count == 7, "\(missing)")
        try expectFsckClean(bob.root)

        // Listing versions reads no contents: the older ones have no size here.
        let versions = try bob.versions(of: DocumentPath("report.txt"))
        #expect(versions.history.count == 5)
        #expect(versions.current.size == Int64(texts.last!.utf8.count))
        #expect(versions.history.allSatisfy { $0.size == nil })
        #expect(try Self.missingObjects(bob) == missing)

        // Reading one older version fetches that one's contents, and only those.
        let oldest = try #require(versions.history.last)
        #expect(try bob.contents(of: oldest) == .flat(Data(texts[0].utf8)))
        #expect(try Self.missingObjects(bob).count == 6)
        #expect(try bob.versions(of: DocumentPath("report.txt")).history.last?.size == Int64(texts[0].utf8.count))
        try expectFsckClean(bob.root)

        // Offline, a version whose contents are not here is refused in one line; nothing changes.
        try FileManager.default.moveItem(at: remote, to: scratch.path("moved.git"))
        let before = try refSnapshot(bob.root)
        #expect {
            _ = try bob.contents(of: versions.history[0])
        } throws: { error in
            let message = "\(error)"
            return message.contains("not on this device") && message.contains("'origin'") && !message.contains("\n")
        }
        let cli = try docver("show", "report.txt", "@-1", in: bob.root)
        #expect(cli.status == 1)
        #expect(cli.stderr.hasPrefix("docver: error: the contents ") && cli.stderr.contains("not on this device"), "\(cli.stderr)")
        #expect(try refSnapshot(bob.root) == before)
        #expect(try bob.read("report.txt") == texts.last)
        try FileManager.default.moveItem(at: scratch.path("moved.git"), to: remote)
        #expect(try bob.contents(of: versions.history[0]) == .flat(Data(texts[4].utf8)))
    }

    /// Randomized sessions of a full device and two devices on demand saving, syncing and
    /// resolving: they converge, the remote and every device pass `git fsck --strict`, and
    /// every version the full device has is read back byte for byte on each device on demand.
    @Test(arguments: [3201, 3202, 3203])
    func randomSessionsOnDemandLoseNothing(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try alice.saveText("base\nline two\nline three\n", to: "a.txt")
        try alice.sync()
        let bob = try Container.clone(from: remote.path, to: scratch.path("bob"), device: Device(id: "bob"), onDemand: true).container
        let carol = try Container.clone(from: remote.path, to: scratch.path("carol"), device: Device(id: "carol"), onDemand: true).container
        let devices = [alice, bob, carol]
        let documents = ["a.txt", "b.txt", "folder/c.txt"]
        for step in 0..<30 {
            let device = devices[Int.random(in: 0..<devices.count, using: &random)]
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let document = documents[Int.random(in: 0..<documents.count, using: &random)]
                let line = "\(device.device.id) step \(step)"
                let text = Bool.random(using: &random) ? "base\n\(line)\nline three\n" : "\(line)\n" + String(repeating: "x", count: step * 100)
                try device.saveText(text, to: document)
            case 5..<9:
                try device.sync()
            default:
                for document in documents where try !device.unresolvedConflictVersions(of: DocumentPath(document)).isEmpty {
                    if Bool.random(using: &random) {
                        _ = try? await device.resolve(DocumentPath(document), using: MergeStrategy())
                    } else {
                        _ = try await device.resolve(DocumentPath(document), using: LatestDateStrategy())
                    }
                }
            }
        }
        for _ in 0..<2 { for device in devices { try device.sync() } }
        try expectConverged(devices, context: "seed \(seed)")
        #expect(try !Self.missingObjects(bob).isEmpty, "seed \(seed): nothing was left out, so nothing was tested")
        for document in documents {
            guard let oracle = try? Self.allVersions(of: document, on: alice) else { continue }
            for device in [bob, carol] {
                let versions = try Self.allVersions(of: document, on: device)
                #expect(Set(versions.keys) == Set(oracle.keys), "seed \(seed): \(document) on \(device.device.id)")
                for (id, version) in oracle {
                    guard let mine = versions[id] else { continue }
                    #expect(
                        try device.contents(of: mine) == alice.contents(of: version),
                        "seed \(seed): \(document) version \(id.prefix(12)) on \(device.device.id)")
                }
            }
        }
        for device in devices { try expectFsckClean(device.root) }
        try expectFsckClean(remote)
    }

    /// Two devices delete the container's last documents at once: the integration's result is
    /// the empty tree, which is stored like any tree (git counts it missing otherwise, and a
    /// device on demand never receives it).
    /// (docs/MODEL.md: R31.)
    @Test func anIntegrationThatEmptiesTheContainerStoresTheEmptyTree() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try alice.saveText("a\n", to: "a.txt")
        try alice.saveText("b\n", to: "b.txt")
        try alice.sync()
        let bob = try Container.clone(from: remote.path, to: scratch.path("bob"), device: Device(id: "bob"), onDemand: true).container
        try alice.remove("a.txt")
        _ = try alice.save([DocumentPath("a.txt")])
        try alice.sync()
        try bob.remove("b.txt")
        _ = try bob.save([DocumentPath("b.txt")])
        try bob.sync()
        try alice.sync()
        #expect(try bob.documents().isEmpty && alice.documents().isEmpty)
        try expectFsckClean(bob.root)
        try expectFsckClean(alice.root)
        try expectFsckClean(remote)
    }

    /// Through `git daemon`: a server that filters gives a device on demand; one that does not
    /// (`uploadpack.allowFilter` off) sends everything, and the clone says so.
    @Test func aDeviceJoinsOnDemandThroughGitDaemon() throws {
        let scratch = try Scratch()
        let daemon = try GitDaemon.servingEmptyRemote(in: scratch)
        defer { daemon.stop() }
        let served = scratch.path("served/remote.git")
        let alice = try scratch.device("alice")
        try alice.addRemote("origin", url: daemon.url("remote.git"))
        for round in 0..<3 { try alice.saveText("version \(round)\n", to: "doc.txt") }
        try alice.sync()

        _ = try runGit(["config", "uploadpack.allowFilter", "true"], in: served)
        let (bob, report) = try Container.clone(
            from: daemon.url("remote.git"), to: scratch.path("bob"), device: Device(id: "bob"),
            onDemand: true)
        #expect(report.warnings.isEmpty, "\(report.warnings)")
        #expect(try Self.missingObjects(bob).count == 2)
        let history = try bob.versions(of: DocumentPath("doc.txt")).history
        #expect(try history.map { try bob.contents(of: $0) } == [.flat(Data("version 1\n".utf8)), .flat(Data("version 0\n".utf8))])
        #expect(try Self.missingObjects(bob).isEmpty)
        // A save on demand travels back as any other.
        try bob.saveText("bob's version\n", to: "doc.txt")
        try bob.sync()
        try alice.sync()
        #expect(try alice.read("doc.txt") == "bob's version\n")
        try expectFsckClean(bob.root)
        // Evicted and brought back through the daemon.
        _ = try bob.evict([DocumentPath("doc.txt")])
        #expect(try Self.missingObjects(bob).count == 4)
        #expect(try bob.download([DocumentPath("doc.txt")]).broughtBack == [DocumentPath("doc.txt")])
        #expect(try bob.read("doc.txt") == "bob's version\n")
        #expect(try Self.missingObjects(bob).isEmpty)
        try expectFsckClean(bob.root)

        _ = try runGit(["config", "uploadpack.allowFilter", "false"], in: served)
        let (carol, unfiltered) = try Container.clone(
            from: daemon.url("remote.git"), to: scratch.path("carol"),
            device: Device(id: "carol"), onDemand: true)
        #expect(unfiltered.warnings.contains { $0.contains("uploadpack.allowFilter") && $0.contains("every version") }, "\(unfiltered.warnings)")
        #expect(try Self.missingObjects(carol).isEmpty)
        try expectFsckClean(carol.root)
    }

    /// A server that sends folders without contents but refuses a request for one file's id
    /// (protocol version 0 without `uploadpack.allowAnySHA1InWant`): the sync fails in one
    /// line and the fetched heads go back to where they were, so no head stays without its
    /// contents; once the server allows it, the next sync brings heads and contents.
    @Test func aHeadWhoseContentsCannotBeFetchedIsNotKept() throws {
        let scratch = try Scratch()
        let daemon = try GitDaemon.servingEmptyRemote(in: scratch)
        defer { daemon.stop() }
        let served = scratch.path("served/remote.git")
        _ = try runGit(["config", "uploadpack.allowFilter", "true"], in: served)
        let alice = try scratch.device("alice")
        try alice.addRemote("origin", url: daemon.url("remote.git"))
        try alice.saveText("first\n", to: "doc.txt")
        try alice.sync()
        let bob = try Container.clone(
            from: daemon.url("remote.git"), to: scratch.path("bob"), device: Device(id: "bob"),
            onDemand: true
        ).container
        _ = try runGit(["config", "protocol.version", "0"], in: bob.root)
        _ = try runGit(["config", "uploadpack.allowAnySHA1InWant", "false"], in: served)
        try alice.saveText("second\n", to: "doc.txt")
        try alice.sync()
        let before = try refSnapshot(bob.root)
        #expect {
            try bob.sync()
        } throws: { error in
            "\(error)".contains("origin") && !"\(error)".contains("\n")
        }
        #expect(try refSnapshot(bob.root) == before)
        #expect(try bob.read("doc.txt") == "first\n")
        try expectFsckClean(bob.root)

        _ = try runGit(["config", "uploadpack.allowAnySHA1InWant", "true"], in: served)
        try bob.sync()
        #expect(try bob.read("doc.txt") == "second\n")
        try expectFsckClean(bob.root)
    }

    /// `download` brings every version's contents of the documents named, or of all, in one
    /// fetch, so they can be read offline; unreachable, it fails in one line and keeps nothing.
    @Test func downloadBringsEveryVersionForUseOffline() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        for round in 0..<4 {
            try alice.saveText("report \(round)\n", to: "report.txt")
            try alice.write("a \(round)\n", to: "trip.imagenotes/a.txt")
            try alice.write("b \(round % 2)\n", to: "trip.imagenotes/b.txt")
            _ = try alice.save([DocumentPath("trip.imagenotes")], message: nil)
            try alice.saveText("other \(round)\n", to: "other.txt")
        }
        try alice.sync()
        let bob = try Container.clone(from: remote.path, to: scratch.path("bob"), device: Device(id: "bob"), onDemand: true).container
        let missing = try Self.missingObjects(bob)
        // 3 older reports, 3 older others, and the package's 3 older a.txt and 1 older b.txt.
        #expect(missing.count == 10, "\(missing)")

        // Unreachable: one line, nothing kept.
        try FileManager.default.moveItem(at: remote, to: scratch.path("moved.git"))
        #expect {
            _ = try bob.download([DocumentPath("report.txt")])
        } throws: { error in
            guard case let .remote(name, message)? = error as? DocverError else { return false }
            return name == "origin" && !message.contains("\n")
        }
        #expect(try Self.missingObjects(bob) == missing)
        try FileManager.default.moveItem(at: scratch.path("moved.git"), to: remote)

        let some = try bob.download([DocumentPath("report.txt"), DocumentPath("trip.imagenotes")])
        #expect(some.fetchedFiles == 7 && some.onDemand)
        #expect(try Self.missingObjects(bob).count == 3)
        #expect(try bob.versions(of: DocumentPath("trip.imagenotes")).history.allSatisfy { $0.size != nil })
        // Offline, every version of those two reads; of the other, only the newest.
        try FileManager.default.moveItem(at: remote, to: scratch.path("moved.git"))
        for document in ["report.txt", "trip.imagenotes"] {
            let versions = try bob.versions(of: DocumentPath(document))
            for version in [versions.current] + versions.history {
                #expect(try bob.contents(of: version) == alice.contents(of: version), "\(document) \(version.shortID)")
            }
        }
        #expect(throws: (any Error).self) { _ = try bob.contents(of: try bob.versions(of: DocumentPath("other.txt")).history[0]) }
        try FileManager.default.moveItem(at: scratch.path("moved.git"), to: remote)

        let rest = try docver("download", "--all", "--json", in: bob.root)
        #expect(rest.status == 0, "\(rest.stderr)")
        #expect(try JSONSchemaCLITests.validator("download").problems(in: JSONValue.parse(rest.stdoutData)) == [])
        #expect(rest.stdout.contains("\"fetchedFiles\" : 3") && rest.stdout.contains("\"documents\" : null"), "\(rest.stdout)")
        #expect(try Self.missingObjects(bob).isEmpty)
        let again = try docver("download", "report.txt", in: bob.root)
        #expect(again.stdout == "every version of report.txt is here already\n", "\(again.stdout)")
        try expectFsckClean(bob.root)
    }

    /// An existing device keeps documents on demand from a remote added with
    /// `remote add --on-demand`; a rename of that remote keeps it so.
    @Test func aRemoteAddedOnDemandLeavesOutOlderContents() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        for round in 0..<3 { try alice.saveText("version \(round)\n", to: "doc.txt") }
        try alice.sync()
        let carol = try scratch.device("carol")
        let added = try docver("remote", "add", "origin", remote.path, "--on-demand", in: carol.root)
        #expect(added.status == 0, "\(added.stderr)")
        try carol.sync()
        #expect(try carol.read("doc.txt") == "version 2\n")
        #expect(try Self.missingObjects(carol).count == 2)
        let renamed = try docver("remote", "rename", "origin", "home", in: carol.root)
        #expect(renamed.status == 0, "\(renamed.stderr)")
        let oldest = try #require(try carol.versions(of: DocumentPath("doc.txt")).history.last)
        #expect(try carol.contents(of: oldest) == .flat(Data("version 0\n".utf8)))
        try alice.saveText("version 3\n", to: "doc.txt")
        try alice.sync()
        try carol.sync()
        #expect(try carol.read("doc.txt") == "version 3\n")
        // Version 0 was read, version 2 was the newest: only version 1 is not here.
        #expect(try Self.missingObjects(carol).count == 1)
        try expectFsckClean(carol.root)
    }

    /// Restoring or choosing a version whose contents are not here brings them first; offline,
    /// it fails in one line that says why, and nothing changes.
    @Test func restoringAVersionNotHereFetchesItOrFailsInOneLine() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        for round in 0..<3 { try alice.saveText("version \(round)\n", to: "doc.txt") }
        try alice.write("a 0\n", to: "trip.imagenotes/a.txt")
        _ = try alice.save([DocumentPath("trip.imagenotes")], message: nil)
        try alice.write("a 1\n", to: "trip.imagenotes/a.txt")
        _ = try alice.save([DocumentPath("trip.imagenotes")], message: nil)
        try alice.sync()
        let bob = try Container.clone(from: remote.path, to: scratch.path("bob"), device: Device(id: "bob"), onDemand: true).container
        let oldest = try #require(try bob.versions(of: DocumentPath("doc.txt")).history.last)
        let package = try #require(try bob.versions(of: DocumentPath("trip.imagenotes")).history.first)

        try FileManager.default.moveItem(at: remote, to: scratch.path("moved.git"))
        let before = try refSnapshot(bob.root)
        let cli = try docver("restore", "doc.txt", oldest.id, in: bob.root)
        #expect(cli.status == 1)
        #expect(
            cli.stderr.hasPrefix("docver: error: the contents ") && cli.stderr.contains("not on this device")
                && cli.stderr.split(separator: "\n").count == 1, "\(cli.stderr)")
        #expect(throws: (any Error).self) { _ = try bob.restore(DocumentPath("trip.imagenotes"), to: package.id) }
        #expect(try refSnapshot(bob.root) == before)
        #expect(try bob.read("doc.txt") == "version 2\n")
        #expect(try bob.status().changed.isEmpty)
        try FileManager.default.moveItem(at: scratch.path("moved.git"), to: remote)

        _ = try bob.restore(DocumentPath("doc.txt"), to: oldest.id)
        #expect(try bob.read("doc.txt") == "version 0\n")
        _ = try bob.restore(DocumentPath("trip.imagenotes"), to: package.id)
        #expect(try bob.read("trip.imagenotes/a.txt") == "a 0\n")
        try expectFsckClean(bob.root)
        try bob.sync()
        try alice.sync()
        #expect(try alice.read("doc.txt") == "version 0\n")
    }

    /// `du` and `gc` size what is here: they fetch nothing, and gc keeps the device a
    /// partial clone that `git fsck --strict` accepts.
    @Test func duAndGcFetchNothing() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        for round in 0..<4 { try alice.saveText("version \(round) " + String(repeating: "x", count: 5000) + "\n", to: "doc.txt") }
        try alice.sync()
        let bob = try Container.clone(from: remote.path, to: scratch.path("bob"), device: Device(id: "bob"), onDemand: true).container
        let missing = try Self.missingObjects(bob)
        #expect(missing.count == 3)
        let report = try bob.storageReport()
        #expect(try Self.missingObjects(bob) == missing)
        let document = try #require(report.documents.first { $0.name == "doc.txt" })
        #expect(document.bytes < 4 * 5000, "only the newest contents are here: \(document)")
        _ = try bob.collectGarbage(dryRun: true)
        _ = try bob.collectGarbage()
        #expect(try Self.missingObjects(bob) == missing)
        try expectFsckClean(bob.root)
        let oldest = try #require(try bob.versions(of: DocumentPath("doc.txt")).history.last)
        #expect(try bob.contents(of: oldest) == alice.contents(of: oldest))
    }

    /// The CLI: `clone --on-demand`, and `versions` telling which contents are not here
    /// (`not here`; `null` sizes in `--json`).
    @Test func theCommandLineShowsWhatIsNotHere() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try alice.saveText("first\n", to: "doc.txt")
        try alice.saveText("second\n", to: "doc.txt")
        try alice.sync()
        let clone = try docver("clone", "--on-demand", remote.path, scratch.path("bob").path, "--device", "bob", in: scratch.url)
        #expect(clone.status == 0, "\(clone.stderr)")
        #expect(clone.stdout.contains("1 document"), "\(clone.stdout)")
        let text = try docver("versions", "doc.txt", in: scratch.path("bob"))
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasSuffix("7 bytes") && lines[1].hasSuffix("not here"), "\(text.stdout)")
        let listing = try docver("versions", "doc.txt", "--json", in: scratch.path("bob"))
        #expect(try JSONSchemaCLITests.validator("versions").problems(in: JSONValue.parse(listing.stdoutData)) == [])
        let json = try #require(try parseCLIJSON(listing) as? [String: Any])
        let history = try #require(json["history"] as? [[String: Any]])
        #expect(history.count == 1 && history[0]["size"] is NSNull, "\(json)")
        let show = try docver("show", "doc.txt", "@-1", in: scratch.path("bob"))
        #expect(show.status == 0 && show.stdout == "first\n", "\(show.stderr)")
        let after = try docver("versions", "doc.txt", in: scratch.path("bob"))
        #expect(after.stdout.split(separator: "\n").last?.hasSuffix("6 bytes") == true, "\(after.stdout)")
    }
}
