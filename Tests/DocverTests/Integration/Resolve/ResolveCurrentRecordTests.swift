import DocverKit
import Foundation
import Testing

/// A conflict record may name the version that is current (it lost in one integration and
/// won a later one). It is not listed as another version; a resolution that makes another
/// state current must decide about it too, or the user resolves and still has a conflict.
@Suite struct ResolveCurrentRecordTests {
    @Test(arguments: ["choose", "mark-resolved"])
    func aResolutionAlsoDecidesARecordNamingTheCurrentVersion(how: String) async throws {
        let scratch = try Scratch()
        let (alice, _, notes) = try twoDevicesInConflict(scratch)
        let conflict = try #require(try alice.conflicts(notes).first)
        let current = conflict.current.id, other = try #require(conflict.conflicts.first?.id)
        // An integration that recorded the current version as lost (as a crossed integration can).
        let head = try alice.git(["rev-parse", "HEAD"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let tree = try alice.git(["rev-parse", "HEAD^{tree}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let message = "Integrate saves from 1 heads\n\nDocver-Integration: 1\nDocver-Conflict: \(current) - notes.txt\n"
        let commit = try runProcess("/usr/bin/git", ["commit-tree", tree, "-p", head, "-m", message], in: alice.root)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try alice.git(["update-ref", "refs/heads/docver/alice", commit, head])
        #expect(try alice.unresolvedConflictVersions(of: notes).map(\.id) == [other], "the current version is not listed")

        if how == "choose" {
            _ = try await alice.resolve(notes, using: UserChoiceStrategy.version(other))
            #expect(try alice.read("notes.txt") == "alice\n")
        } else {
            try alice.markResolved(notes)
        }
        #expect(try alice.conflicts(notes).isEmpty, "the former current version came back as a conflict version")
        try expectFsckClean(alice.root)
    }
}
