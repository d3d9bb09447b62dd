import DocverKit
import Foundation
import Testing

/// docver's local files in `.git/docver` are opened without following symbolic links: a link
/// planted in place of one of them never gets its target written, truncated or created, and a
/// `.git/docver` that is itself a link is refused in one line.
@Suite struct MetadataLinkCLITests {
    /// Every file docver keeps in `.git/docver` (docs/FORMAT.md, "Local files").
    static let names = [
        "lock", "agent.pid", "agent.log", "agent.sock", "intent", "checkout-pending", "conflicts.json",
        "conflict-listing", "conflict-listing.json", "document-listing", "versions.json", "version-index",
    ]

    /// A container with a remote, a conflict and some history, so that every cache is used.
    private func container(_ scratch: Scratch) throws -> URL {
        try twoDevicesInConflict(scratch).alice.root
    }

    /// The commands that read or write the local files: saves, syncs, listings, the agent.
    private func exercise(_ root: URL) async throws -> [ProcessResult] {
        var results: [ProcessResult] = []
        try Data("changed \(UUID())\n".utf8).write(to: root.appendingPathComponent("other.txt"))
        for arguments in [
            ["save"], ["status"], ["ls"], ["conflicts"], ["versions", "notes.txt"], ["log", "notes.txt"],
            ["sync"], ["integrate"], ["agent", "start"], ["agent", "status"], ["agent", "stop"],
        ] {
            results.append(try docver(arguments, in: root))
        }
        return results
    }

    @Test(arguments: names)
    func aLinkInPlaceOfALocalFileIsNeverFollowed(_ name: String) async throws {
        let scratch = try Scratch()
        let root = try container(scratch)
        let outside = scratch.path("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let precious = outside.appendingPathComponent("precious")
        try Data("precious\n".utf8).write(to: precious)
        let local = root.appendingPathComponent(".git/docver/\(name)")
        try? FileManager.default.removeItem(at: local)

        // A link to a file that exists: its contents stay.
        try FileManager.default.createSymbolicLink(atPath: local.path, withDestinationPath: precious.path)
        _ = try await exercise(root)
        #expect(try Data(contentsOf: precious) == Data("precious\n".utf8), "\(name): the target was written")
        try? FileManager.default.removeItem(at: local)

        // A link to nothing: nothing is created there.
        let missing = outside.appendingPathComponent("missing")
        try FileManager.default.createSymbolicLink(atPath: local.path, withDestinationPath: missing.path)
        _ = try await exercise(root)
        #expect(!FileManager.default.fileExists(atPath: missing.path), "\(name): the target was created")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["precious"])
        _ = try docver("agent", "stop", in: root)
    }

    @Test func aLinkedLocalFolderIsRefusedInOneLine() async throws {
        let scratch = try Scratch()
        let root = try container(scratch)
        let metadata = root.appendingPathComponent(".git/docver")
        let elsewhere = scratch.path("elsewhere")
        try FileManager.default.moveItem(at: metadata, to: elsewhere)
        let before = try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).sorted()
        let stamps = try before.map {
            try FileManager.default.attributesOfItem(atPath: elsewhere.appendingPathComponent($0).path)[.modificationDate] as? Date
        }
        try FileManager.default.createSymbolicLink(atPath: metadata.path, withDestinationPath: elsewhere.path)
        let refs = try refSnapshot(root)

        for result in try await exercise(root) {
            #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
            #expect(
                result.stderrLines == [
                    "docver: error: \(metadata.path) is a symbolic link, not a folder: docver keeps its local files there and follows no link to them"
                ],
                "\(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).sorted() == before)
        #expect(
            try before.map { try FileManager.default.attributesOfItem(atPath: elsewhere.appendingPathComponent($0).path)[.modificationDate] as? Date }
                == stamps)
        #expect(try refSnapshot(root) == refs)
    }
}
