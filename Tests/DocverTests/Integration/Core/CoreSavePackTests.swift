import DocverKit
import DocverTestSupport
import Foundation
import Testing

/// Issue 28: a save of many documents writes their new small files into one pack
/// (`docver.saveUnpackLimit`, docs/FORMAT.md "Objects") instead of a loose file each. Every
/// file is stored as git would hash it, nothing another save stored is written again, the
/// repository stays one git reads, and a device cloning it gets every byte.
@Suite struct CoreSavePackTests {
    /// The `.pack` files of a container, by name.
    private func packs(_ container: Container) throws -> Set<String> {
        Set(
            try FileManager.default.contentsOfDirectory(atPath: container.root.appendingPathComponent(".git/objects/pack").path)
                .filter { $0.hasSuffix(".pack") })
    }

    /// The objects a pack holds, by type (`git verify-pack -v`).
    private func objects(in pack: String, of container: Container) throws -> [String: Int] {
        let listing = try container.git(["verify-pack", "-v", ".git/objects/pack/" + pack])
        var counts: [String: Int] = [:]
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 3, fields[0].count == 40, ["blob", "tree", "commit"].contains(fields[1]) {
                counts[String(fields[1]), default: 0] += 1
            }
        }
        return counts
    }

    /// Random contents: empty, short text, binary, a few repeated across files, sizes around
    /// the limit of what goes into the pack.
    private func randomContents(_ random: inout some RandomNumberGenerator, shared: [Data]) -> Data {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return Data()
        case 1, 2: return shared.randomElement(using: &random)!
        case 3: return Data((0..<Int.random(in: 1...5000, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 4:
            // Either side of 1 MiB (the largest file the pack takes).
            let size = (1 << 20) + Int.random(in: -1...1, using: &random)
            return Data(repeating: UInt8.random(in: 0...255, using: &random), count: size)
        default: return Data("line \(UInt64.random(in: 0...UInt64.max, using: &random))\n".utf8)
        }
    }

    /// Writes `files` into the container's working tree.
    private func write(_ files: [String: Data], executable: Set<String> = [], in container: Container) throws {
        for (path, data) in files {
            let url = container.root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
            if executable.contains(path) {
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
            }
        }
    }

    /// Every file named (regular files: `hash-object` follows links) is at its path in HEAD's tree with the id git gives its
    /// bytes, and git finds the repository whole.
    private func expectStoredAsGitHashesThem(_ paths: [String], in container: Container) throws {
        let hashed = try container.git(["hash-object", "--no-filters", "--"] + paths).split(separator: "\n").map(String.init)
        let stored = try container.git(["rev-parse"] + paths.map { "HEAD:" + $0 }).split(separator: "\n").map(String.init)
        #expect(hashed.count == paths.count && stored.count == paths.count)
        let wrong = paths.indices.filter { hashed[$0] != stored[$0] }.map { paths[$0] }
        #expect(wrong.isEmpty, "stored with other ids than git's: \(wrong)")
        try expectFsckClean(container.root)
        #expect(try container.git(["status", "--porcelain"]).isEmpty)
    }

    @Test(arguments: [1, 2, 3])
    func aSaveOfManyDocumentsWritesItsFilesIntoOnePack(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        _ = try alice.git(["config", "gc.auto", "0"])
        let shared = (0..<5).map { Data("shared \($0)\n".utf8) }
        var files: [String: Data] = [:]
        for index in 0..<Int.random(in: 150...300, using: &random) {
            files["folder\(index % 7)/doc\(index).txt"] = randomContents(&random, shared: shared)
        }
        // A package (its files are written loose: its tree is written as they are hashed), an
        // executable, and a link.
        files["album.pages/index.xml"] = Data("<album/>\n".utf8)
        files["album.pages/data/photo.bin"] = Data((0..<3000).map { UInt8($0 % 251) })
        files["run.sh"] = Data("#!/bin/sh\necho hi\n".utf8)
        try write(files, executable: ["run.sh"], in: alice)
        try FileManager.default.createSymbolicLink(atPath: alice.root.appendingPathComponent("link").path, withDestinationPath: "run.sh")

        let before = try packs(alice)
        let save = try #require(try alice.save())
        // (The package's two files are one document; the link is one more.)
        #expect(save.changes.count == files.count)
        let added = try packs(alice).subtracting(before)
        #expect(added.count == 1)
        // The pack holds each distinct small file once; the files over 1 MiB, the package's
        // files, the link, the trees and the commit are loose.
        let small = Set(
            files.filter { !$0.key.hasPrefix("album.pages/") && $0.value.count <= 1 << 20 }.values.map(Array.init))
        #expect(try objects(in: try #require(added.first), of: alice) == ["blob": small.count])
        try expectStoredAsGitHashesThem(files.keys.sorted(), in: alice)
        #expect(try alice.git(["cat-file", "-p", "HEAD:link"]) == "run.sh")
        #expect(try alice.git(["ls-tree", "HEAD", "run.sh"]).hasPrefix("100755 blob"))

        // Half the files change and a hundred more arrive: the new pack holds only the new
        // contents (what the first pack holds is not written again).
        var changed: [String: Data] = [:]
        for (path, _) in files.sorted(by: { $0.key < $1.key }) where !path.hasPrefix("album.pages/") && Bool.random(using: &random) {
            changed[path] = randomContents(&random, shared: shared)
        }
        for index in 0..<100 { changed["more/doc\(index).txt"] = randomContents(&random, shared: shared) }
        try write(changed, in: alice)
        let known = try Set(alice.git(["rev-list", "--objects", "--all"]).split(separator: "\n").map { String($0.prefix(40)) })
        let beforeSecond = try packs(alice)
        _ = try #require(try alice.save())
        let second = try packs(alice).subtracting(beforeSecond)
        let newSmall = try Set(
            changed.filter { $0.value.count <= 1 << 20 }.keys.map {
                try alice.git(["hash-object", "--no-filters", $0]).trimmingCharacters(in: .newlines)
            }
        ).subtracting(known)
        if newSmall.isEmpty {
            #expect(second.isEmpty)
        } else {
            #expect(second.count == 1)
            #expect(try objects(in: try #require(second.first), of: alice) == ["blob": newSmall.count])
        }
        files.merge(changed) { $1 }
        try expectStoredAsGitHashesThem(files.keys.sorted(), in: alice)

        // Another device gets every byte.
        #expect(try alice.sync().pushed == ["origin"])
        try expectFsckClean(remote)
        let (bob, _) = try Container.clone(from: remote.path, to: scratch.path("bob"), device: Device(id: "bob"))
        for (path, data) in files {
            #expect(try Data(contentsOf: bob.root.appendingPathComponent(path)) == data, "\(path)")
        }
    }

    @Test func aSaveBelowTheLimitWritesLooseObjects() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        _ = try alice.git(["config", "gc.auto", "0"])
        try write(Dictionary(uniqueKeysWithValues: (0..<99).map { ("doc\($0).txt", Data("text \($0)\n".utf8)) }), in: alice)
        _ = try #require(try alice.save())
        #expect(try packs(alice).isEmpty)
        // The limit is the device's setting: 1 packs any save.
        _ = try alice.git(["config", "docver.saveUnpackLimit", "1"])
        try alice.write("one more\n", to: "doc0.txt")
        _ = try #require(try alice.save())
        let added = try packs(alice)
        #expect(added.count == 1)
        #expect(try objects(in: try #require(added.first), of: alice) == ["blob": 1])
        try expectStoredAsGitHashesThem((0..<99).map { "doc\($0).txt" }, in: alice)
    }

    @Test func aSaveThatFailsInstallsNoPack() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        _ = try alice.git(["config", "docver.saveUnpackLimit", "1"])
        try write(Dictionary(uniqueKeysWithValues: (0..<50).map { ("doc\($0).txt", Data("text \($0)\n".utf8)) }), in: alice)
        // A link leading out of the container, met after the others were hashed into the
        // pack: the save refuses it.
        try FileManager.default.createSymbolicLink(atPath: alice.root.appendingPathComponent("zz-link").path, withDestinationPath: "/etc/hostname")
        #expect(throws: (any Error).self) { try alice.save() }
        #expect(try packs(alice).isEmpty)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: alice.root.appendingPathComponent(".git/objects/pack").path)
        #expect(leftovers.isEmpty, "\(leftovers)")
        #expect(try alice.headID() == nil)
    }
}
