import DocverKit
import DocverTestSupport
import Foundation
import Testing

/// `docver du` against an oracle computed with the git CLI, and `docver gc`, which prunes
/// only what nothing references: every version listed before stays readable, `git fsck
/// --strict` stays clean, and the unreferenced objects are gone.
@Suite struct StorageCLITests {
    static let steps = ProcessInfo.processInfo.environment["DOCVER_STORAGE_STEPS"].flatMap(Int.init) ?? 30
    static let seeds: [UInt64] =
        ProcessInfo.processInfo.environment["DOCVER_STORAGE_SEEDS"]
        .map { $0.split(separator: ",").compactMap { UInt64($0) } } ?? [0xD0_15, 0x6C_11]

    /// Three devices save, delete, sync and resolve at random (some conflicts stay open, some
    /// are resolved with their versions removed, some with them kept).
    private func randomHistory(_ scratch: Scratch, seed: UInt64) async throws -> [Container] {
        var random = SeededRandom(seed: seed)
        let remote = try scratch.bareRemote()
        let devices = try ["alice", "bob", "carol"].map { try scratch.device($0, name: $0.capitalized + "'s Laptop", remote: remote) }
        let names = ["a.txt", "b.txt", "notes/c.md", "trip.pkg/text.txt", "trip.pkg/img.bin"]
        for step in 0..<Self.steps {
            let device = devices.randomElement(using: &random)!
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let name = names.randomElement(using: &random)!
                let text = "\(device.device.id) step \(step) " + String(repeating: "x", count: Int.random(in: 0..<300, using: &random)) + "\n"
                try device.write(text, to: name)
                _ = try device.save(nil, message: "step \(step)")
            case 5:
                let name = names.randomElement(using: &random)!
                if FileManager.default.fileExists(atPath: device.root.appendingPathComponent(name).path) {
                    try device.remove(name)
                    _ = try device.save(nil, message: "remove at step \(step)")
                }
            case 6:
                try device.sync()
            case 7, 8:
                // A key-value store write: its files count as one entry in du.
                let result = try docver(["kv", "set", "key\(Int.random(in: 0..<3, using: &random))", "\(step)", "--type", "int"], in: device.root)
                #expect(result.status == 0, "\(result.stderr)")
            default:
                if let conflict = try device.conflicts().first {
                    _ = try await device.resolve(
                        conflict.document, using: LatestDateStrategy(),
                        keepVersions: Bool.random(using: &random))
                }
            }
        }
        for device in devices { try device.sync() }
        // At least one resolution that removed conflict versions (still in history, listed by no command).
        if let conflict = try devices[1].conflicts().first {
            _ = try await devices[1].resolve(conflict.document, using: LatestDateStrategy())
            for device in devices + devices { try device.sync() }
        }
        return devices
    }

    /// Every version `versions --all --json` lists for every document, by id and document.
    private func listedVersions(_ container: Container) throws -> Set<[String]> {
        var result = Set<[String]>()
        var documents = Set(try container.documents().map(\.path.path))
        documents.formUnion(try container.conflicts().map(\.document.path))
        for document in documents {
            let listing = try #require(try parseCLIJSON(docver("versions", document, "--all", "--json", in: container.root)) as? [String: Any])
            let versions = [listing["current"] as Any] + (listing["conflicts"] as? [Any] ?? []) + (listing["history"] as? [Any] ?? [])
            for case let version as [String: Any] in versions {
                result.insert([try #require(version["id"] as? String), document])
            }
        }
        return result
    }

    /// The oracle: per document, the distinct blobs of every reachable commit's tree under it;
    /// per device, the distinct blobs its commits changed against their first parent.
    private func oracle(_ root: URL) throws -> (documents: [String: Int64], devices: [String: Int64], objects: Int, unreachable: Int) {
        let commits = try runGit(["rev-list", "--all", "--reflog"], in: root).split(separator: "\n").map(String.init)
        var sizes: [String: Int64] = [:]
        func size(_ blob: String) throws -> Int64 {
            if let known = sizes[blob] { return known }
            let value = Int64(try runGit(["cat-file", "-s", blob], in: root).trimmingCharacters(in: .whitespacesAndNewlines))!
            sizes[blob] = value
            return value
        }
        func document(of path: Substring) -> String {
            if path.hasPrefix(".docver/") { return ".docver" }
            let parts = path.split(separator: "/")
            if let index = parts.dropLast().firstIndex(where: { $0.contains(".") }) { return parts[...index].joined(separator: "/") }
            return String(path)
        }
        var documents: [String: Set<String>] = [:]
        var devices: [String: Set<String>] = [:]
        for commit in commits {
            for line in try runGit(["ls-tree", "-r", commit], in: root).split(separator: "\n") {
                let fields = line.split(separator: "\t", maxSplits: 1)
                let meta = fields[0].split(separator: " ")
                guard meta[1] == "blob" else { continue }
                documents[document(of: fields[1]), default: []].insert(String(meta[2]))
            }
            let message = try runGit(["show", "-s", "--format=%B", commit], in: root)
            guard !message.contains("\nDocver-Integration:"),
                let deviceLine = message.split(separator: "\n").first(where: { $0.hasPrefix("Docver-Device: ") })
            else { continue }
            let device = String(deviceLine.dropFirst("Docver-Device: ".count))
            let parents = try runGit(["rev-list", "--parents", "-n", "1", commit], in: root).split(separator: " ").dropFirst()
            let diff =
                parents.isEmpty
                ? try runGit(["diff-tree", "-r", "--root", "--no-renames", commit], in: root)
                : try runGit(["diff-tree", "-r", "--no-renames", String(parents.first!).trimmingCharacters(in: .newlines), commit], in: root)
            for line in diff.split(separator: "\n") where line.hasPrefix(":") {
                let meta = line.split(separator: "\t")[0].split(separator: " ")
                // :oldmode newmode oldid newid status; a deletion has a zero new id.
                if meta[1] != "000000", meta[1] != "160000" { devices[device, default: []].insert(String(meta[3])) }
            }
        }
        let objects = try runGit(["rev-list", "--all", "--reflog", "--objects"], in: root).split(separator: "\n").count
        let unreachable = try runGit(["fsck", "--unreachable", "--no-progress"], in: root).split(separator: "\n")
            .filter { $0.hasPrefix("unreachable ") }.count
        return (
            try documents.mapValues { try $0.reduce(0) { try $0 + size($1) } },
            try devices.mapValues { try $0.reduce(0) { try $0 + size($1) } }, objects, unreachable
        )
    }

    @Test func duMatchesTheGitOracleAndGcPrunesOnlyWhatNothingReferences() async throws {
        for seed in Self.seeds {
            let scratch = try Scratch()
            let devices = try await randomHistory(scratch, seed: seed)
            let alice = devices[0]

            // Unreferenced objects: a content, a commit and a tree nobody points at.
            let blob = try runProcess(
                "/usr/bin/git", ["hash-object", "-w", "--stdin"], in: alice.root,
                input: Data("dangling content \(seed)\n".utf8)
            ).stdout.trimmingCharacters(in: .newlines)
            let tree = try runProcess(
                "/usr/bin/git", ["mktree"], in: alice.root,
                input: Data("100644 blob \(blob)\tdangling.txt\n".utf8)
            ).stdout.trimmingCharacters(in: .newlines)
            let commit = try alice.git(["commit-tree", "-m", "dangling", tree]).trimmingCharacters(in: .newlines)

            // The history holds what gc must never prune: conflict versions, removed ones among them.
            let messages = try alice.git(["log", "--all", "--format=%B"])
            #expect(messages.contains("Docver-Conflict: ") && messages.contains("Docver-Removed: "), "seed \(seed) made no removed conflict version")

            let expected = try oracle(alice.root)
            let du = try #require(try parseCLIJSON(docver("du", "--json", in: alice.root)) as? [String: Any], "seed \(seed)")
            let documents = Dictionary(
                uniqueKeysWithValues: (du["documents"] as? [[String: Any]] ?? []).map {
                    ($0["document"] as! String, ($0["bytes"] as! NSNumber).int64Value)
                })
            let deviceBytes = Dictionary(
                uniqueKeysWithValues: (du["devices"] as? [[String: Any]] ?? []).map {
                    ($0["device"] as! String, ($0["bytes"] as! NSNumber).int64Value)
                })
            #expect(documents == expected.documents, "seed \(seed)")
            #expect(deviceBytes == expected.devices, "seed \(seed)")
            #expect(du["reachableObjects"] as? Int == expected.objects, "seed \(seed)")
            #expect(du["unreachableObjects"] as? Int == expected.unreachable, "seed \(seed)")
            #expect(expected.unreachable >= 3)
            let text = try docver("du", in: alice.root)
            #expect(text.status == 0)
            #expect(text.stdout.contains("gc would prune \(expected.unreachable) unreferenced objects"), "\(text.stdout)")

            // The versions listed before, and every commit a reference or reflog reaches.
            let versions = try listedVersions(alice)
            let reachableCommits = try runGit(["rev-list", "--all", "--reflog"], in: alice.root)
            let refs = try refSnapshot(alice.root)

            // --dry-run changes nothing.
            let stored = try runGit(["count-objects", "-v"], in: alice.root)
            let dryRun = try docver("gc", "--dry-run", in: alice.root)
            #expect(dryRun.status == 0, "\(dryRun.stderr)")
            #expect(dryRun.stdout.hasPrefix("would prune \(expected.unreachable) unreferenced objects"), "\(dryRun.stdout)")
            #expect(try runGit(["count-objects", "-v"], in: alice.root) == stored)
            #expect(try runProcess("/usr/bin/git", ["cat-file", "-e", blob], in: alice.root).status == 0)

            let gc = try docver("gc", in: alice.root)
            #expect(gc.status == 0, "\(gc.stderr)")
            #expect(gc.stdout.hasPrefix("pruned \(expected.unreachable) unreferenced objects"), "\(gc.stdout)")
            for object in [blob, tree, commit] {
                #expect(try runProcess("/usr/bin/git", ["cat-file", "-e", object], in: alice.root).status != 0, "\(object) survived gc")
            }
            #expect(try refSnapshot(alice.root) == refs)
            #expect(try runGit(["rev-list", "--all", "--reflog"], in: alice.root) == reachableCommits)
            try expectFsckClean(alice.root)
            #expect(try listedVersions(alice) == versions, "seed \(seed)")
            for version in versions {
                let show = try docver(["show", version[0], version[1]], in: alice.root)
                #expect(show.status == 0, "seed \(seed): show \(version): \(show.stderr)")
            }
            let after = try #require(try parseCLIJSON(docver("du", "--json", in: alice.root)) as? [String: Any])
            #expect(after["unreachableObjects"] as? Int == 0)
            #expect(after["reachableObjects"] as? Int == expected.objects)
            // The history still syncs.
            #expect(try docver("sync", in: alice.root).status == 0)
        }
    }

    /// A version a record names but no reference reaches (written with plain git here) would
    /// be pruned by git gc: docver gc refuses and prunes nothing.
    @Test func gcRefusesWhenARecordedVersionIsUnreachable() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("hello\n", to: "note.txt")
        let head = try alice.git(["rev-parse", "HEAD"]).trimmingCharacters(in: .newlines)
        let tree = try alice.git(["rev-parse", "HEAD^{tree}"]).trimmingCharacters(in: .newlines)
        let orphan = try alice.git(["commit-tree", "-m", "a version only a record names", tree]).trimmingCharacters(in: .newlines)
        let message = "Remove other versions of note.txt\n\nDocver-Device: alice\nDocver-Device-Name: alice\nDocver-Removed: \(orphan) note.txt\n"
        let recording = try alice.git(["commit-tree", "-p", head, "-m", message, tree]).trimmingCharacters(in: .newlines)
        try alice.git(["update-ref", "refs/heads/docver/alice", recording, head])
        let stored = try runGit(["count-objects", "-v"], in: alice.root)

        for arguments in [["gc"], ["gc", "--dry-run"]] {
            let result = try docver(arguments, in: alice.root)
            #expect(result.status == 1)
            #expect(
                result.stderrLines == [
                    "docver: error: gc failed: version \(orphan.prefix(12)) named by commit \(recording.prefix(12)) is reachable from no reference; nothing was pruned"
                ],
                "\(result.stderr)")
        }
        #expect(try runGit(["count-objects", "-v"], in: alice.root) == stored)
        #expect(try runProcess("/usr/bin/git", ["cat-file", "-e", orphan], in: alice.root).status == 0)
    }

    /// What only an old reflog entry reaches is kept: gc expires no reflog entry (git's own gc
    /// would drop unreachable entries older than 30 days and prune what they held).
    @Test func gcKeepsWhatOldReflogEntriesReach() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("hello\n", to: "note.txt")
        let head = try alice.git(["rev-parse", "HEAD"]).trimmingCharacters(in: .newlines)
        let tree = try alice.git(["rev-parse", "HEAD^{tree}"]).trimmingCharacters(in: .newlines)
        let old = try alice.git(["commit-tree", "-m", "only a reflog reaches this", tree]).trimmingCharacters(in: .newlines)
        let past = ["GIT_COMMITTER_DATE": "2001-01-01T00:00:00Z", "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com"]
        #expect(
            try runProcess("/usr/bin/git", ["update-ref", "-m", "old", "refs/heads/scratch", old], in: alice.root, environment: past).status == 0)
        #expect(
            try runProcess("/usr/bin/git", ["update-ref", "-m", "old", "refs/heads/scratch", head], in: alice.root, environment: past).status == 0)

        let du = try #require(try parseCLIJSON(docver("du", "--json", in: alice.root)) as? [String: Any])
        #expect(du["unreachableObjects"] as? Int == 0, "the reflog entry keeps it")
        let gc = try docver("gc", in: alice.root)
        #expect(gc.status == 0, "\(gc.stderr)")
        #expect(try runProcess("/usr/bin/git", ["cat-file", "-e", old], in: alice.root).status == 0)
        try expectFsckClean(alice.root)
    }

    @Test func gcWithoutGitIsAClearErrorAndChangesNothing() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("hello\n", to: "note.txt")
        _ = try runProcess("/usr/bin/git", ["hash-object", "-w", "--stdin"], in: alice.root, input: Data("dangling\n".utf8))
        let stored = try runGit(["count-objects", "-v"], in: alice.root)
        // A PATH without git (env itself is called by its absolute path).
        let result = try runProcess(docverExecutable, ["gc"], in: alice.root, environment: ["PATH": scratch.url.path])
        #expect(result.status == 1)
        #expect(result.stderrLines == ["docver: error: gc failed: git is not installed (docver gc runs 'git gc')"], "\(result.stderr)")
        #expect(try runGit(["count-objects", "-v"], in: alice.root) == stored)
    }
}
