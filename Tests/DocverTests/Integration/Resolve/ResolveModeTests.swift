import DocverKit
import Foundation
import Testing

/// Issue 25, item 3: a merge keeps a file mode changed on one side, as git's merge does, and
/// refuses when the sides changed the mode differently, flat or inside a package.
@Suite struct ResolveModeTests {
    /// Alice makes the script executable, Bob edits its text: a conflict whose merge must keep both.
    /// `packaged`: the script is a component of a package.
    private func modeChangeAgainstEdit(_ scratch: Scratch, packaged: Bool) throws
        -> (alice: Container, bob: Container, document: DocumentPath, file: String)
    {
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", name: "Alice", remote: remote)
        let bob = try scratch.device("bob", name: "Bob", remote: remote)
        let document = packaged ? "tool.pkg" : "run.sh"
        let file = packaged ? "tool.pkg/run.sh" : "run.sh"
        try alice.write("#!/bin/sh\necho one\necho two\necho three\n", to: file)
        if packaged { try alice.write("about the tool\n", to: "tool.pkg/readme.txt") }
        try alice.saveAll()
        try alice.sync(); try bob.sync()

        #expect(chmod(alice.root.appendingPathComponent(file).path, 0o755) == 0)
        try #require(try alice.saveAll() != nil)
        try alice.sync()
        scratch.clock.tick()
        try bob.write("#!/bin/sh\necho one\necho two\necho three by bob\n", to: file)
        try bob.saveAll()
        try bob.sync(); try alice.sync()
        let path = try DocumentPath(document)
        try #require(try bob.conflicts(path).count == 1)
        return (alice, bob, path, file)
    }

    private func treeMode(_ container: Container, _ file: String) throws -> String {
        String(try container.git(["ls-tree", "refs/heads/docver/\(container.device.id)", "--", file]).prefix(6))
    }

    private func isExecutableOnDisk(_ container: Container, _ file: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: container.root.appendingPathComponent(file).path)
    }

    @Test(arguments: [false, true])
    func aMergeKeepsAModeChangedOnOneSide(packaged: Bool) async throws {
        let scratch = try Scratch()
        let (alice, bob, document, file) = try modeChangeAgainstEdit(scratch, packaged: packaged)
        let outcome = try await bob.resolve(document, using: MergeStrategy())
        guard case .merged = outcome.resolution else { Issue.record("not a clean merge: \(outcome.resolution)"); return }
        #expect(try bob.read(file) == "#!/bin/sh\necho one\necho two\necho three by bob\n")
        #expect(try treeMode(bob, file) == "100755")
        #expect(isExecutableOnDisk(bob, file))
        try bob.sync(); try alice.sync()
        #expect(try treeMode(alice, file) == "100755")
        #expect(isExecutableOnDisk(alice, file))
        #expect(try alice.conflicts().isEmpty)
        try expectConverged([alice, bob])
    }

    @Test(arguments: [false, true])
    func resolveMergeThroughTheCLIKeepsAModeChangedOnOneSide(packaged: Bool) throws {
        let scratch = try Scratch()
        let (_, bob, document, file) = try modeChangeAgainstEdit(scratch, packaged: packaged)
        let result = try docver(["resolve", document.path, "--strategy", "merge"], in: bob.root)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\(document.path): saved the merge of 2 versions as current"), "\(result.stdout)")
        #expect(try treeMode(bob, file) == "100755")
        #expect(isExecutableOnDisk(bob, file))
        #expect(try bob.status().changed.isEmpty)
        try expectFsckClean(bob.root)
    }

    /// Both devices create the same script, one executable and one not: the modes differ with
    /// nothing to decide between them, so the merge refuses, saying so, and changes nothing.
    @Test(arguments: [false, true])
    func aMergeRefusesModesChangedDifferentlyOnBothSides(packaged: Bool) async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", name: "Alice", remote: remote)
        let bob = try scratch.device("bob", name: "Bob", remote: remote)
        let documentName = packaged ? "tool.pkg" : "run.sh"
        let file = packaged ? "tool.pkg/run.sh" : "run.sh"
        try alice.saveText("base\n", to: "other.txt")
        try alice.sync(); try bob.sync()
        for (device, mode) in [(alice, mode_t(0o755)), (bob, mode_t(0o644))] {
            try device.write("#!/bin/sh\necho same\n", to: file)
            #expect(chmod(device.root.appendingPathComponent(file).path, mode) == 0)
            try device.saveAll()
        }
        try alice.sync(); try bob.sync(); try alice.sync()
        let document = try DocumentPath(documentName)
        try #require(try bob.conflicts(document).count == 1)
        let before = try refSnapshot(bob.root)

        await #expect(throws: DocverError.self) { _ = try await bob.resolve(document, using: MergeStrategy()) }
        let result = try docver(["resolve", documentName, "--strategy", "merge"], in: bob.root)
        #expect(result.status == 1)
        let expected =
            "docver: error: cannot merge \(packaged ? file : documentName): its file mode differs: "
            + "executable in one version, not in another; choose a version"
        #expect(result.stderrLines.first == expected, "\(result.stderr)")
        #expect(try refSnapshot(bob.root) == before)
        #expect(try bob.conflicts(document).count == 1)
    }
}
