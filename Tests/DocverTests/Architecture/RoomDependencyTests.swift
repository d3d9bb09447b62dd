import Foundation
import Testing

/// The rooms of DocverKit hold: no room uses one listed after it in docs/ARCHITECTURE.md,
/// except the uses Tools/rooms-exceptions.txt lists, and the graph in ARCHITECTURE.md is the
/// one the code draws (Tools/rooms.py).
@Suite struct RoomDependencyTests {
    private func check(root: URL) throws -> ProcessResult {
        try checkWithTool("rooms.py", root: root, rootVariable: "DOCVER_ROOMS_ROOT")
    }

    @Test func theRoomsFollowTheArchitecture() throws {
        let result = try check(root: repositoryRoot)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// The check can fail: a copy of the sources where System/ names the agent, and where an
    /// exception the code no longer has is still listed, is refused for both.
    @Test func aUseAgainstTheOrderIsFound() throws {
        let scratch = try Scratch()
        let copy = scratch.path("copy")
        try copyOfRepository(["Sources/DocverKit", "Tools", "docs"], at: copy)
        try Data("func peek() { _ = Agent.self }\n".utf8)
            .write(to: copy.appendingPathComponent("Sources/DocverKit/System/Peek.swift"))
        let exceptions = copy.appendingPathComponent("Tools/rooms-exceptions.txt")
        try (String(contentsOf: exceptions, encoding: .utf8) + "Model -> Editor  # no such use\n").write(
            to: exceptions, atomically: true, encoding: .utf8)
        let result = try check(root: copy)
        #expect(result.status == 1)
        #expect(result.stderr.contains("rooms: System uses Agent, which comes after it"), "\(result.stderr)")
        #expect(
            result.stderr.contains("rooms: Model -> Editor is listed in Tools/rooms-exceptions.txt but the code no longer has it"), "\(result.stderr)"
        )
        #expect(result.stderr.contains("docs/ARCHITECTURE.md's graph is not the code's"), "\(result.stderr)")
    }
}
