import DocverKit
import Foundation
import Testing

/// What arrives from a remote that another device with push access filled (docs/SECURITY.md):
/// a folder entry that is no folder, a refused branch's objects, a document above the size
/// ceiling, a very wide folder. Built with plain git as ``HostileRemoteTests`` builds its trees.
@Suite struct HostileArrivalTests {
    typealias Mallory = HostileRemoteTests.Mallory
    typealias RawEntry = HostileRemoteTests.RawEntry

    struct Arrival {
        var sync: ProcessResult
        var alice: Container
        var commit: String
        /// Kept so the scratch folder lives as long as the result.
        var scratch: Scratch
    }

    /// Alice and Bob (both set up with `configure`) sync through a bare remote; Mallory writes `hostile` into the remote as
    /// `docver/mallory` (its objects copied in and the branch set with `git update-ref`: git's
    /// own push refuses to send some of these trees), Bob saves b.txt; then Alice syncs.
    private func arrive(
        configure: (Container) throws -> Void = { _ in },
        hostile: (Mallory) throws -> String
    ) throws -> Arrival {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try configure(alice)
        try configure(bob)
        try alice.saveText("alice\n", to: "a.txt")
        try alice.sync()
        let mallory = try Mallory(scratch: scratch, remote: remote)
        let commit = try hostile(mallory)
        let copy = try runProcess("/bin/cp", ["-r", mallory.directory.path + "/.git/objects/.", remote.path + "/objects/"])
        try #require(copy.status == 0, "\(copy.stderr)")
        _ = try runGit(["update-ref", "refs/heads/docver/mallory", commit], in: remote)
        try bob.sync()
        try bob.saveText("bob\n", to: "b.txt")
        try bob.sync()
        return Arrival(sync: try docver("sync", in: alice.root), alice: alice, commit: commit, scratch: scratch)
    }

    private func expectRefusedWithOthersSynced(
        _ result: Arrival, _ expected: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(result.sync.status == 0, "sync failed: \(result.sync.stderr)", sourceLocation: sourceLocation)
        let warnings = result.sync.stderrLines.filter { $0.contains("refused the saves of 'origin/docver/mallory'") }
        #expect(warnings.count == 1 && warnings[0].contains(expected), "\(result.sync.stderr)", sourceLocation: sourceLocation)
        #expect(try result.alice.read("b.txt") == "bob\n", sourceLocation: sourceLocation)
        #expect(try !result.alice.isReachable(result.commit), sourceLocation: sourceLocation)
    }

    /// A tree entry with a folder's mode whose object is a blob: git fsck reports it, libgit2
    /// fails reading it ("requested type does not match the type in the ODB").
    @Test func aFolderEntryPointingAtABlobIsRefusedAndTheOthersSync() throws {
        let result = try arrive { mallory in
            let blob = try mallory.blob("not a folder\n")
            return try mallory.commit(tree: mallory.tree([RawEntry(mode: "40000", name: Array("dir".utf8), id: blob)]))
        }
        try expectRefusedWithOthersSynced(result, "'dir' is not a folder object")
        // The next sync goes as well.
        try result.alice.saveText("again\n", to: "a.txt")
        let again = try docver("sync", in: result.alice.root)
        #expect(again.status == 0, "\(again.stderr)")
    }

    /// A folder entry whose object never arrived, deeper down than the first folder: the
    /// checks read each folder's object as a tree, and a read that fails is told apart from
    /// a damaged repository by asking the object's kind.
    @Test func aFolderWhoseObjectDidNotArriveIsRefused() throws {
        let result = try arrive { mallory in
            let missing = String(repeating: "6b", count: 20)
            let inner = try mallory.tree([RawEntry(mode: "40000", name: Array("gone".utf8), id: missing)])
            return try mallory.commit(tree: mallory.tree([RawEntry(mode: "40000", name: Array("dir".utf8), id: inner)]))
        }
        try expectRefusedWithOthersSynced(result, "'dir/gone' is not a folder object")
    }

    /// A file entry whose object never arrived (missing on the remote, or damaged there) is
    /// refused, and the warning says so rather than calling it another kind of object.
    @Test func aFileWhoseContentsDidNotArriveIsRefused() throws {
        let result = try arrive { mallory in
            let missing = String(repeating: "5a", count: 20)
            return try mallory.commit(tree: mallory.tree([RawEntry(mode: "100644", name: Array("f.txt".utf8), id: missing)]))
        }
        try expectRefusedWithOthersSynced(result, "the contents of 'f.txt' did not arrive (missing or damaged on the remote)")
    }

    /// A file entry whose object is a tree is refused the same way.
    @Test func aFileEntryPointingAtAFolderIsRefused() throws {
        let result = try arrive { mallory in
            let inner = try mallory.tree([RawEntry(mode: "100644", name: Array("x".utf8), id: mallory.blob("x\n"))])
            return try mallory.commit(tree: mallory.tree([RawEntry(mode: "100644", name: Array("f.txt".utf8), id: inner)]))
        }
        try expectRefusedWithOthersSynced(result, "'f.txt' is not a file object")
    }

    /// The objects of a refused branch do not stay in the device's object database: received
    /// into a quarantine, only what an accepted branch needs is moved in, so `git fsck
    /// --strict` of the whole device stays clean.
    @Test func aRefusedBranchLeavesNoObjectsBehind() throws {
        let result = try arrive { mallory in
            let inner = try mallory.tree([RawEntry(mode: "100644", name: Array("x".utf8), id: mallory.blob("hostile\n"))])
            return try mallory.commit(tree: mallory.tree([RawEntry(mode: "40000", name: Array(".git".utf8), id: inner)]))
        }
        try expectRefusedWithOthersSynced(result, "inside .git")
        try expectFsckClean(result.alice.root)
        let present = try runProcess("/usr/bin/git", ["cat-file", "-e", result.commit], in: result.alice.root)
        #expect(present.status != 0, "the refused commit is still in the object database")
    }

    /// `docver.maxDocumentSize`: a document above it is refused with a warning naming the
    /// document and the device; the others' saves arrive.
    @Test func aDocumentAboveTheSizeLimitIsRefused() throws {
        let result = try arrive(configure: { alice in _ = try alice.git(["config", "docver.maxDocumentSize", "1000"]) }) { mallory in
            let small = try mallory.blob("small\n"), big = try mallory.blob(String(repeating: "x", count: 2000))
            return try mallory.commit(
                tree: mallory.tree([
                    RawEntry(mode: "100644", name: Array("big.txt".utf8), id: big),
                    RawEntry(mode: "100644", name: Array("small.txt".utf8), id: small),
                ]))
        }
        try expectRefusedWithOthersSynced(result, "'big.txt' of device 'mallory' is 2000 bytes")
        #expect(result.sync.stderr.contains("docver.maxDocumentSize"), "\(result.sync.stderr)")
    }

    /// A head that passed the arrival checks is recorded in `.git/docver/checked-heads` and
    /// not read again (an `integrate` after a sync would otherwise check every device's line
    /// again). A refused head is never recorded; a record made under other settings, or
    /// against a head of this device that is not in its history, is not trusted, and the
    /// head is checked again. Each time the refused branch is brought back by plain git.
    @Test func aHeadIsCheckedAgainUnlessItPassedUnderTheSameSettingsAndHistory() throws {
        let result = try arrive(configure: { alice in _ = try alice.git(["config", "docver.maxDocumentSize", "1000"]) }) { mallory in
            let big = try mallory.blob(String(repeating: "x", count: 2000))
            return try mallory.commit(tree: mallory.tree([RawEntry(mode: "100644", name: Array("big.txt".utf8), id: big)]))
        }
        try expectRefusedWithOthersSynced(result, "'big.txt' of device 'mallory' is 2000 bytes")
        let file = result.alice.root.path + "/.git/docver/checked-heads"
        #expect(try !String(contentsOfFile: file, encoding: .utf8).contains(result.commit))
        let head = try result.alice.git(["rev-parse", "HEAD"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = "docver-checked-heads\t1\t1000\t0"
        func integrate(recording text: String) throws -> ProcessResult {
            _ = try result.alice.git(["fetch", "-q", "origin"])
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            return try docver("integrate", in: result.alice.root)
        }
        for record in ["docver-checked-heads\t1\t5000\t0\n\(result.commit) \(head)\n", "\(settings)\n\(result.commit) \(result.commit)\n"] {
            let again = try integrate(recording: record)
            #expect(again.status == 0 && again.stderr.contains("refused the saves of 'origin/docver/mallory'"), "\(record): \(again.stderr)")
            #expect(try !result.alice.isReachable(result.commit))
            // (A record under other settings may stay: it is never read under these.)
            let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
            #expect(lines.first.map(String.init) != settings || !lines.contains { $0.hasPrefix(result.commit) })
        }
        // The same settings, checked against this device's head: taken as checked. (Written
        // here by hand, as a check would have written it; the file is trusted as the refs
        // beside it are.)
        let trusted = try integrate(recording: "\(settings)\n\(result.commit) \(head)\n")
        #expect(trusted.status == 0 && !trusted.stderr.contains("refused"), "\(trusted.stderr)")
        #expect(try result.alice.isReachable(result.commit))
    }

    /// A document at the limit is accepted.
    @Test func aDocumentAtTheSizeLimitIsAccepted() throws {
        let result = try arrive(configure: { alice in _ = try alice.git(["config", "docver.maxDocumentSize", "1000"]) }) { mallory in
            let blob = try mallory.blob(String(repeating: "x", count: 1000))
            return try mallory.commit(
                tree: mallory.tree([RawEntry(mode: "100644", name: Array("edge.txt".utf8), id: blob)]),
                date: String(Int(Date().timeIntervalSince1970)))
        }
        #expect(result.sync.status == 0 && !result.sync.stderr.contains("refused"), "\(result.sync.stderr)")
        #expect(try result.alice.read("edge.txt").utf8.count == 1000)
    }

    /// A folder of many entries arrives whole and is indexed: every document has its one
    /// version. (How fast: docs/PERFORMANCE.md; no timing is asserted here.)
    @Test func aWideFolderArrivesAndIsIndexed() throws {
        let count = 5000
        let result = try arrive { mallory in
            var stream = "commit refs/heads/wide\ncommitter M <m@example.com> \(Int(Date().timeIntervalSince1970)) +0000\ndata 10\nwide save\n"
            for index in 0..<count {
                let text = "\(index)\n"
                stream += "M 100644 inline wide/f\(index).txt\ndata \(text.utf8.count)\n\(text)\n"
            }
            _ = try mallory.git(["fast-import", "--quiet"], input: Data(stream.utf8))
            return try mallory.git(["rev-parse", "refs/heads/wide"])
        }
        #expect(result.sync.status == 0 && !result.sync.stderr.contains("refused"), "\(result.sync.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: result.alice.root.path + "/wide")
        #expect(files.count == count)
        for index in [0, 1234, count - 1] {
            let path = try DocumentPath("wide/f\(index).txt")
            #expect(try result.alice.read(path.path) == "\(index)\n")
            let log = try result.alice.log(of: path)
            #expect(log.count == 1, "wide/f\(index).txt: \(log.count) saves in its log")
        }
        try expectFsckClean(result.alice.root)
    }
}
