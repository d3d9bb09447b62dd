import DocverKit
import Foundation
import Testing

/// Hostile document names given on the command line: one error line, exit 1, nothing changed.
@Suite struct CLIDocumentNameTests {
    private func expectRejected(
        _ result: ProcessResult, _ name: String, command: String, json: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == 1, "\(command) \(name.debugDescription) exited \(result.status)", sourceLocation: sourceLocation)
        if json {
            // Under --json the failure is also a JSON object on stdout (docs/CLI.md), which
            // carries the name only as JSON escapes it.
            #expect(
                (try? JSONValue.parse(result.stdoutData))?["error"]?["code"] == .string("invalidDocumentName"),
                "\(command): \(result.stdout)", sourceLocation: sourceLocation)
            #expect(
                !result.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F },
                "control characters reach the terminal: \(result.stdout.debugDescription)", sourceLocation: sourceLocation)
        } else {
            #expect(result.stdout.isEmpty, "\(command): \(result.stdout)", sourceLocation: sourceLocation)
        }
        #expect(
            result.stderrLines.count == 1, "\(command) \(name.debugDescription): \(result.stderr.debugDescription)",
            sourceLocation: sourceLocation)
        #expect(
            result.stderr.hasPrefix("docver: error: invalid document name '"), "\(command): \(result.stderr)",
            sourceLocation: sourceLocation)
        #expect(result.stderr.hasSuffix("\n"), sourceLocation: sourceLocation)
        #expect(
            !result.stderr.dropLast().unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
            "control characters reach the terminal: \(result.stderr.debugDescription)", sourceLocation: sourceLocation)
    }

    @Test(arguments: HostileName.lexical)
    func lexicallyHostileNames(_ name: String) throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let saved = try alice.saveText("keep", to: "keep.txt")
        let before = try unchangedState(alice)
        let short = String(saved.prefix(8))
        for arguments in [
            ["save", name], ["versions", name], ["versions", "--json", name], ["log", name],
            ["restore", name, short], ["show", short, name], ["save", "keep.txt", name],
        ] {
            expectRejected(try docver(arguments, in: alice.root), name, command: arguments[0], json: arguments.contains("--json"))
        }
        #expect(try unchangedState(alice) == before)
    }

    @Test(arguments: HostileName.throughLinks)
    func namesLeavingThroughSymbolicLinks(_ name: String) throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("keep", to: "keep.txt")
        try HostileName.makeLinks(in: alice, outside: scratch.path("outside"))
        try alice.write("changed", to: "keep.txt")
        let before = try unchangedState(alice)
        expectRejected(try docver(["save", name], in: alice.root), name, command: "save")
        // Named together with a good document: still all or nothing.
        expectRejected(try docver(["save", "keep.txt", name], in: alice.root), name, command: "save")
        expectRejected(try docver(["-C", alice.root.path, "save", name], in: scratch.url), name, command: "save -C")
        #expect(try unchangedState(alice) == before)
        #expect(try alice.read("keep.txt") == "changed")
    }
}
