import DocverKit
import Foundation
import Testing

/// Names that must never be accepted, whatever the entry point.
enum HostileName {
    /// Rejected by their spelling alone.
    static let lexical: [String] = [
        "",  // empty
        "/etc/passwd",  // absolute
        "/",  // absolute, the root
        "..",  // parent
        "../outside.txt",  // leaves the container
        "folder/../../outside.txt",
        ".git",  // git's own area
        ".git/config",
        ".GIT/config",  // case-insensitive filesystems
        "folder/.git/config",  // a nested repository's area
        ".docver/state",  // reserved
        ".docver",
        ".",  // the container itself
        "./",
        "a\nb.txt",  // control characters
        "tab\there.txt",
        "esc\u{1B}[31m.txt",
        "del\u{7F}.txt",
        "nul\u{01}.txt",
    ]

    /// Names that are well-formed but leave the container (or enter .git) through a symbolic
    /// link set up by ``makeLinks(in:outside:)``.
    static let throughLinks: [String] = [
        "out/secret.txt",  // a folder link to a directory outside
        "out",  // the link itself points outside
        "passwd",  // a file link to a file outside
        "gitdir/config",  // a link into .git
        "gitdir",
        "dangling/x.txt",  // a link that cannot be resolved, used as a folder
        "trip.pkg",  // a package with a link inside that leads out
    ]

    static func makeLinks(in container: Container, outside: URL) throws {
        let fm = FileManager.default
        try fm.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data("secret\n".utf8).write(to: outside.appendingPathComponent("secret.txt"))
        let root = container.root.path
        try fm.createSymbolicLink(atPath: root + "/out", withDestinationPath: outside.path)
        try fm.createSymbolicLink(atPath: root + "/passwd", withDestinationPath: outside.appendingPathComponent("secret.txt").path)
        try fm.createSymbolicLink(atPath: root + "/gitdir", withDestinationPath: ".git")
        try fm.createSymbolicLink(atPath: root + "/dangling", withDestinationPath: "/nonexistent-docver-dir/sub")
        try fm.createDirectory(atPath: root + "/trip.pkg", withIntermediateDirectories: true)
        try Data("text".utf8).write(to: URL(fileURLWithPath: root + "/trip.pkg/text.txt"))
        try fm.createSymbolicLink(atPath: root + "/trip.pkg/leak", withDestinationPath: "../../")
    }
}

/// A description of the repository state that a rejected operation must not change.
func unchangedState(_ container: Container) throws -> String {
    try refSnapshot(container.root) + "HEAD " + runGit(["symbolic-ref", "HEAD"], in: container.root)
}

@Suite struct CoreDocumentNameTests {
    @Test(arguments: HostileName.lexical)
    func lexicallyHostileNamesAreRejected(_ name: String) throws {
        do {
            _ = try DocumentPath(name)
            Issue.record("accepted \(name.debugDescription)")
        } catch let error as DocverError {
            guard case let .invalidDocumentName(reported, reason) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(reported == name)
            #expect(!reason.isEmpty)
            #expect(!error.description.contains("\n"), "not one line: \(error.description.debugDescription)")
            #expect(
                !error.description.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
                "control characters reach the terminal: \(error.description.debugDescription)")
        }
    }

    @Test(arguments: HostileName.throughLinks)
    func namesLeavingThroughSymbolicLinksAreRejected(_ name: String) throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("keep", to: "keep.txt")
        try HostileName.makeLinks(in: alice, outside: scratch.path("outside"))
        let before = try unchangedState(alice)
        let document = try DocumentPath(name)
        do {
            _ = try alice.save([document])
            Issue.record("saved \(name)")
        } catch let error as DocverError {
            guard case .invalidDocumentName = error else { Issue.record("unexpected error \(error)"); return }
            #expect(!error.description.contains("\n"))
        }
        // Saving every changed document meets the same links and must refuse as well.
        #expect(throws: DocverError.self) { try alice.save(nil) }
        #expect(try unchangedState(alice) == before)
        // Nothing outside the container was read into the object database.
        let secret = try runGit(["hash-object", scratch.path("outside/secret.txt").path], in: alice.root)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let probe = try runProcess("/usr/bin/git", ["cat-file", "-e", secret], in: alice.root)
        #expect(probe.status != 0, "a file outside the container was stored")
        try expectFsckClean(alice.root)
    }

    @Test func aWorkingTreeFileWithAControlCharacterInItsNameIsNotSaved() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("keep", to: "keep.txt")
        let evil = "evil\n\nDocver-Device: mallory"
        try Data("x".utf8).write(to: alice.root.appendingPathComponent(evil))
        try alice.write("y", to: "folder/ok.txt")
        try Data("z".utf8).write(to: alice.root.appendingPathComponent("folder/tab\there.txt"))
        let before = try unchangedState(alice)
        do {
            _ = try alice.save()
            Issue.record("saved a file named \(evil.debugDescription)")
        } catch let error as DocverError {
            guard case .invalidDocumentName = error else { Issue.record("unexpected error \(error)"); return }
            #expect(!error.description.contains("\n"))
        }
        #expect(throws: DocverError.self) { try alice.save([DocumentPath("folder")]) }
        let cli = try docver("save", in: alice.root)
        #expect(cli.status == 1)
        #expect(cli.stdout.isEmpty)
        #expect(cli.stderrLines.count == 1)
        #expect(cli.stderr.hasPrefix("docver: error: invalid document name "))
        #expect(try unchangedState(alice) == before)
        // Well-named documents can still be saved by name.
        #expect(try alice.save([DocumentPath("folder/ok.txt")]) != nil)
    }

    @Test func normalisedNamesAreAccepted() throws {
        #expect(try DocumentPath("./a.txt").path == "a.txt")
        #expect(try DocumentPath("folder//b.txt/").path == "folder/b.txt")
        #expect(try DocumentPath("folder/./c.txt").path == "folder/c.txt")
        #expect(try DocumentPath("..hidden").path == "..hidden")
        #expect(try DocumentPath(".gitignore").path == ".gitignore")
        #expect(try DocumentPath("notes/.docver").path == "notes/.docver")
        #expect(try DocumentPath("Ünïcødé ✓.txt").path == "Ünïcødé ✓.txt")
    }

    @Test func aLinkInsideTheContainerIsStoredAsALink() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.write("target", to: "target.txt")
        try FileManager.default.createSymbolicLink(atPath: alice.root.path + "/alias.txt", withDestinationPath: "target.txt")
        let result = try #require(try alice.save(nil))
        #expect(Set(result.changes.map(\.document.path)) == ["alias.txt", "target.txt"])
        let mode = try runGit(["ls-tree", "HEAD", "alias.txt"], in: alice.root)
        #expect(mode.hasPrefix("120000 "))
        try expectFsckClean(alice.root)
    }

    /// A document whose name starts like docver's temporary files (`.docver-tmp-…`) is a
    /// document like any other: a sync that writes into its folder sweeps what killed writes
    /// left there, and must not take it for one of them. Before the sweep matched the whole
    /// temporary name, it deleted the file, and the next save recorded a deletion nobody made.
    @Test func aDocumentNamedLikeATemporaryFileSurvivesASyncIntoItsFolder() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("mine\n", to: "notes/.docver-tmp-notes.txt")
        try alice.saveText("one\n", to: "notes/other.txt")
        try alice.sync(); try bob.sync()
        try bob.saveText("two\n", to: "notes/other.txt")
        try bob.sync()
        try alice.sync()
        #expect(try alice.read("notes/other.txt") == "two\n", "the sync wrote into the folder")
        #expect(try alice.read("notes/.docver-tmp-notes.txt") == "mine\n")
        #expect(try alice.status().changed.isEmpty)
    }
}
