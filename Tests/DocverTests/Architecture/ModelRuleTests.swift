import Foundation
import Testing

/// Each numbered rule of docs/MODEL.md can be found from both ends: every declaration its
/// *Where today* names and every test its *Pinned by* names exists, and names the rule in its
/// doc comment (Tools/rules.py).
@Suite struct ModelRuleTests {
    private func check(root: URL) throws -> ProcessResult {
        try checkWithTool("rules.py", root: root, rootVariable: "DOCVER_RULES_ROOT")
    }

    @Test func everyRuleIsNamedWhereItLivesAndWhereItIsPinned() throws {
        let result = try check(root: repositoryRoot)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// The check can fail: in a copy where the winner rule's place lost its number, and where
    /// a rule names a test that does not exist, both are found.
    @Test func aRuleThatLostItsPlaceOrItsTestIsFound() throws {
        let scratch = try Scratch()
        let copy = scratch.path("copy")
        try copyOfRepository(["Sources/DocverKit", "Tests", "Tools", "docs"], at: copy)
        let merger = copy.appendingPathComponent("Sources/DocverKit/Sync/Integrator.swift")
        let text = try String(contentsOf: merger, encoding: .utf8)
        let untagged = text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !($0.contains("docs/MODEL.md: ") && $0.contains("R30")) }.joined(separator: "\n")
        #expect(untagged != text, "Integrator.swift names R30")
        try untagged.write(to: merger, atomically: true, encoding: .utf8)
        let model = copy.appendingPathComponent("docs/MODEL.md")
        let rules = try String(contentsOf: model, encoding: .utf8)
        try rules.replacingOccurrences(of: "*Pinned by:* `aModificationBeatsALaterDeletion`", with: "*Pinned by:* `aTestNobodyWrote`")
            .write(to: model, atomically: true, encoding: .utf8)
        let result = try check(root: copy)
        #expect(result.status == 1)
        #expect(result.stderr.contains("R30: the doc comment of Integrator.integrate"), "\(result.stderr)")
        #expect(result.stderr.contains("R1: test aTestNobodyWrote (docs/MODEL.md, *Pinned by*) does not exist"), "\(result.stderr)")
    }
}
