import DocverKit
import Foundation
import Testing

/// libgit2 failures reach the user as the right `DocverError`, or as a `GitError` carrying
/// libgit2's own message.
@Suite struct CoreErrorMappingTests {
    // MARK: Opening

    @Test func openingAPlainDirectoryIsNotAContainer() throws {
        let scratch = try Scratch()
        let plain = scratch.path("plain")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        #expect(throws: DocverError.notAContainer(path: plain.path)) { try Container(at: plain) }
    }

    @Test func openingAMissingDirectoryIsNotAContainer() throws {
        let scratch = try Scratch()
        let missing = scratch.path("does/not/exist")
        #expect(throws: DocverError.notAContainer(path: missing.path)) { try Container(at: missing) }
    }

    @Test func aGitRepositoryWithoutDeviceIsNotAContainer() throws {
        let scratch = try Scratch()
        let repo = scratch.path("repo")
        try runGit(["init", "-q", repo.path], in: scratch.url)
        #expect(throws: DocverError.notAContainer(path: repo.path)) { try Container(at: repo) }
    }

    @Test func aBareRepositoryIsRejected() throws {
        let scratch = try Scratch()
        let bare = try scratch.bareRemote()
        do {
            _ = try Container(at: bare)
            Issue.record("opening a bare repository succeeded")
        } catch let error as DocverError {
            guard case .bareRepository = error else { Issue.record("unexpected error \(error)"); return }
        }
        #expect(throws: DocverError.self) { try Container.create(at: bare, device: Device(id: "alice")) }
    }

    @Test func openingFindsTheContainerAboveASubdirectory() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.write("x", to: "folder/deep/a.txt")
        let opened = try Container(at: alice.root.appendingPathComponent("folder/deep"))
        #expect(opened.device.id == "alice")
        #expect(opened.root.standardizedFileURL.path == alice.root.standardizedFileURL.path)
    }

    // MARK: GitError carries libgit2's message

    @Test func aCorruptConfigIsAGitErrorWithLibgit2sMessage() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try Data("[core\nbroken".utf8).write(to: alice.root.appendingPathComponent(".git/config"))
        do {
            _ = try Container(at: alice.root)
            Issue.record("opening a container with a corrupt config succeeded")
        } catch let DocverError.git(error) {
            #expect(!error.message.isEmpty)
            #expect(!error.message.hasPrefix("libgit2 call failed"), "a generic message: \(error.message)")
            #expect(error.message.contains("config"), "not libgit2's message: \(error.message)")
            #expect(error.code != .notFound)
            #expect(!error.function.isEmpty)
            #expect(DocverError.git(error).description == error.message)
            #expect(!error.message.contains("\n"))
        }
        // The CLI prints the same message as one error line.
        let result = try docver("status", in: alice.root)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.hasPrefix("docver: error: "))
        #expect(result.stderr.contains("config"))
    }

    @Test func aCorruptObjectSurfacesLibgit2sMessage() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let id = try alice.saveText("hello\n", to: "a.txt")
        // Replace the commit's loose object with garbage: reading it must fail with libgit2's text.
        let object = alice.root.appendingPathComponent(".git/objects/\(id.prefix(2))/\(id.dropFirst(2))")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: object.path)
        try Data("not zlib at all".utf8).write(to: object)
        do {
            _ = try alice.log()
            Issue.record("reading a corrupt commit succeeded")
        } catch let DocverError.git(error) {
            #expect(!error.message.isEmpty)
            #expect(!error.message.hasPrefix("libgit2 call failed"), "a generic message: \(error.message)")
        }
    }

    // MARK: Version ids

    /// Builds `count` commits on a side branch with fixed dates (deterministic ids) in one
    /// git fast-import run, and returns their ids.
    private func bulkCommits(_ count: Int, in directory: URL) throws -> [String] {
        var stream = ""
        for index in 0..<count {
            let message = "bulk \(index)\n"
            stream += "commit refs/heads/bulk\ncommitter Bulk <bulk@example.com> \(1_700_000_000 + index) +0000\n"
            stream += "data \(message.utf8.count)\n\(message)\n"
        }
        let result = try runProcess("/usr/bin/git", ["fast-import", "--quiet"], in: directory, input: Data(stream.utf8))
        #expect(result.status == 0, "fast-import failed: \(result.stderr)")
        return try runGit(["rev-list", "refs/heads/bulk"], in: directory).split(separator: "\n").map(String.init)
    }

    @Test func aPrefixSharedByTwoCommitsIsAmbiguous() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("a", to: "a.txt")
        let ids = try bulkCommits(1500, in: alice.root)
        #expect(ids.count == 1500)
        var seen: [Substring: String] = [:]
        var shared: Substring?
        for id in ids {
            let prefix = id.prefix(4)
            if seen[prefix] != nil { shared = prefix; break }
            seen[prefix] = id
        }
        let prefix = String(try #require(shared, "1500 commits without a shared 4-digit prefix"))
        #expect(throws: DocverError.ambiguousVersion(prefix)) { try alice.version(prefix) }
        #expect(throws: DocverError.ambiguousVersion(prefix.uppercased())) { try alice.version(prefix.uppercased()) }
        #expect(throws: DocverError.ambiguousVersion(prefix)) {
            try alice.restore(DocumentPath("a.txt"), to: prefix)
        }
        // The hint is the CLI's advice now (Sources/docver/Advice.swift): checked on stderr below.

        let result = try docver("show", prefix, in: alice.root)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderrLines == [
                "docver: error: version id '\(prefix)' is ambiguous",
                "hint: give more digits of the version id",
            ])
    }

    @Test func unknownAndMalformedVersionIdsAreNoSuchVersion() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let saved = try alice.saveText("a", to: "a.txt")
        try alice.saveText("b", to: "b.txt")
        // A 4-digit prefix that no object at all starts with.
        let objects = Set(
            try runGit(["cat-file", "--batch-all-objects", "--batch-check=%(objectname)"], in: alice.root)
                .split(separator: "\n").map { String($0.prefix(4)) })
        let unused = try #require((0..<0x10000).lazy.map { String(format: "%04x", $0) }.first { !objects.contains($0) })
        #expect(throws: DocverError.noSuchVersion(unused)) { try alice.version(unused) }
        #expect(throws: DocverError.noSuchVersion(unused)) { try alice.restore(DocumentPath("a.txt"), to: unused) }
        // Too short, too long, not hexadecimal.
        for bad in ["abc", "", "zzzz", "12 4", String(repeating: "a", count: 41), "-abc"] {
            #expect(throws: DocverError.noSuchVersion(bad)) { try alice.version(bad) }
        }
        // The id of a blob is not a version.
        let blob = try runGit(["rev-parse", "HEAD:a.txt"], in: alice.root).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(throws: DocverError.noSuchVersion(blob)) { try alice.version(blob) }
        #expect(throws: DocverError.noSuchVersion(String(blob.prefix(12)))) { try alice.version(String(blob.prefix(12))) }
        // A known save, by a unique prefix, upper or lower case.
        #expect(try alice.version(String(saved.prefix(12))).id == saved)
        #expect(try alice.version(saved.uppercased()).id == saved)

        let result = try docver("show", unused, in: alice.root)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.first == "docver: error: no such version: \(unused)")
        #expect(result.stderrLines.count == 2)
        #expect(result.stderrLines.last?.hasPrefix("hint: ") == true)
    }

    @Test func aVersionOfAnotherDocumentIsRejected() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let a = try alice.saveText("a", to: "a.txt")
        let b = try alice.saveText("b", to: "b.txt")
        // A document that was never saved is no document: the error says so, whatever the version.
        #expect(throws: DocverError.noSuchDocument("never.txt")) {
            try alice.version(a, of: DocumentPath("never.txt"))
        }
        #expect(throws: DocverError.versionOfAnotherDocument(version: b, document: "a.txt")) {
            try alice.version(b, of: DocumentPath("a.txt"))
        }
        #expect(throws: DocverError.versionOfAnotherDocument(version: b, document: "a.txt")) {
            try alice.restore(DocumentPath("a.txt"), to: b)
        }
        try alice.write("1", to: "x.txt")
        try alice.write("2", to: "y.txt")
        let both = try #require(try alice.save()).id
        #expect(throws: DocverError.versionNeedsDocument(version: both)) { try alice.version(both) }
        #expect(try alice.version(both, of: DocumentPath("y.txt")).document == DocumentPath("y.txt"))
    }

    @Test func unknownDocumentsAreNoSuchDocument() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("a", to: "a.txt")
        #expect(throws: DocverError.noSuchDocument("missing.txt")) { try alice.save([DocumentPath("missing.txt")]) }
        #expect(throws: DocverError.noSuchDocument("missing.txt")) { try alice.history(of: DocumentPath("missing.txt")) }
        #expect(try alice.currentVersion(of: DocumentPath("missing.txt")) == nil)
    }
}
