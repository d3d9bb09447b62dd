import DocverKit
import Foundation
import Testing

/// A remote that is a bare repository on this machine is fetched by indexing its packs as
/// they are (as `git clone --local` copies them), not through libgit2's local transport,
/// which built a new pack of every wanted object (delta search and compression again). The
/// indexer still checks every object, so a damaged pack is never trusted.
@Suite struct LocalFetchTests {
    private func packs(in repository: URL, bare: Bool) -> Set<String> {
        let folder = repository.appendingPathComponent(bare ? "objects/pack" : ".git/objects/pack")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return Set(names.filter { $0.hasSuffix(".pack") })
    }

    @Test func aLocalRemotesPacksArriveAsTheyAreAndOnlyOnce() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try alice.saveText("one\n", to: "a.txt")
        try alice.saveText("two\n", to: "b/c.txt")
        try alice.sync()
        _ = try runGit(["repack", "-a", "-d", "-q"], in: remote)
        let remotePacks = packs(in: remote, bare: true)
        #expect(remotePacks.count == 1)

        let bob = try scratch.device("bob", remote: remote)
        try bob.sync()
        #expect(try bob.read("a.txt") == "one\n")
        #expect(try bob.read("b/c.txt") == "two\n")
        // The remote's pack, indexed here under the same name: not a pack rebuilt for the fetch.
        let bobPacks = packs(in: bob.root, bare: false)
        #expect(remotePacks.isSubset(of: bobPacks), "\(bobPacks) lacks \(remotePacks)")
        // Nothing new: no pack is indexed again.
        try bob.sync()
        #expect(packs(in: bob.root, bare: false) == bobPacks)
        // A new save arrives in a new pack of its own; only that one is indexed.
        try alice.saveText("three\n", to: "a.txt")
        try alice.sync()
        try bob.sync()
        #expect(try bob.read("a.txt") == "three\n")
        #expect(packs(in: bob.root, bare: false).count == bobPacks.count + 1)
        try expectFsckClean(bob.root)
    }

    @Test func aDamagedPackIsNotTrusted() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try alice.saveText(String(repeating: "a line of text\n", count: 40), to: "a.txt")
        try alice.sync()
        _ = try runGit(["repack", "-a", "-d", "-q"], in: remote)
        let pack = try #require(packs(in: remote, bare: true).first)
        let file = remote.appendingPathComponent("objects/pack/" + pack)
        _ = try runProcess("/bin/chmod", ["u+w", file.path])
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: file)

        let bob = try scratch.device("bob", remote: remote)
        #expect(throws: (any Error).self) { try bob.sync() }
        #expect(try bob.git(["for-each-ref", "refs/remotes"]).isEmpty)
        try expectFsckClean(bob.root)
    }

    /// A file under the remote's `refs/heads/docver/` whose name git refuses (`bad..name`,
    /// a space) is ignored by the fetch, as git ignores it: the other devices' branches still
    /// arrive. It used to fail the whole clone or sync ("the given reference name … is not
    /// valid") before anything arrived. The push still goes through libgit2's local transport,
    /// which refuses the remote's list of references: the sync ends in that one line, after
    /// integrating.
    @Test func aReferenceWithANameGitRefusesIsIgnored() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try alice.saveText("one\n", to: "a.txt")
        try alice.sync()
        let commit = try runGit(["rev-parse", "refs/heads/docver/alice"], in: remote)
        for name in ["bad..name", "sp ace", "end.lock"] {
            try Data(commit.utf8).write(to: remote.appendingPathComponent("refs/heads/docver/" + name))
        }
        let bob = try scratch.device("bob", remote: remote)
        do {
            try bob.sync()
        } catch {
            #expect("\(error)".contains("refs/heads/docver/"), "\(error)")
        }
        #expect(try bob.read("a.txt") == "one\n")
        try expectFsckClean(bob.root)
    }
}
