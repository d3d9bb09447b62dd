import DocverKit
import Foundation
import Testing

/// Under `--json`, a failure is also a JSON object on stdout (docs/CLI.md, "Errors under
/// --json"), valid against docs/schemas/error.schema.json, with the same exit code and the
/// same stderr line as without it.
@Suite struct JSONErrorCLITests {
    private func jsonError(
        _ arguments: [String], in directory: URL, status: Int32,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (code: String, hint: JSONValue, result: ProcessResult) {
        let result = try docver(arguments, in: directory)
        #expect(result.status == status, "\(arguments): \(result.stdout) \(result.stderr)", sourceLocation: sourceLocation)
        let value = try JSONValue.parse(result.stdoutData)
        let problems = try JSONSchemaCLITests.validator("error").problems(in: value)
        #expect(problems.isEmpty, "\(arguments): \(problems)\n\(result.stdout)", sourceLocation: sourceLocation)
        #expect(value["error"]?["exitCode"] == .integer(Int64(status)), sourceLocation: sourceLocation)
        guard case let .string(code)? = value["error"]?["code"] else {
            Issue.record("no code in \(result.stdout)", sourceLocation: sourceLocation)
            return ("", .null, result)
        }
        return (code, value["error"]?["hint"] ?? .null, result)
    }

    @Test func aLibraryErrorIsAJSONObjectOnStdoutWithItsCodeAndHint() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("x\n", to: "a.txt")
        let plain = try docver("versions", "nosuch.txt", in: alice.root)
        #expect(plain.status == 1 && plain.stdout.isEmpty)

        let failure = try jsonError(["versions", "nosuch.txt", "--json"], in: alice.root, status: 1)
        #expect(failure.code == "noSuchDocument")
        // The same words as the stderr lines, which stay.
        #expect(failure.result.stderr == plain.stderr)
        #expect(plain.stderr.contains("docver: error: no such document: nosuch.txt"))
        if case .string = failure.hint {} else if plain.stderr.contains("hint:") { Issue.record("hint missing: \(failure.result.stdout)") }

        // Outside a container, through the shortcut's forms and the normal path alike.
        let outside = scratch.path("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        for arguments in [["status", "--json"], ["conflicts", "--json"], ["ls", "--json"], ["log", "--json"], ["save", "--json"]] {
            #expect(try jsonError(arguments, in: outside, status: 1).code == "notAContainer")
        }
        // A failure of a command that writes changes nothing.
        let before = try refSnapshot(alice.root)
        #expect(try jsonError(["restore", "a.txt", "deadbeef", "--json"], in: alice.root, status: 1).code == "noSuchVersion")
        #expect(try refSnapshot(alice.root) == before)
    }

    @Test func aUsageErrorIsAJSONObjectWithExitCode64() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        for arguments in [
            ["save", "--no-such-option", "--json"], ["--json", "resolve", "a.txt", "--strategy", "nonsense"],
            ["log", "-n", "many", "--json"],
        ] {
            #expect(try jsonError(arguments, in: alice.root, status: 64).code == "usage")
        }
        // Without --json, a usage error prints nothing on stdout.
        let plain = try docver("save", "--no-such-option", in: alice.root)
        #expect(plain.status == 64 && plain.stdout.isEmpty)
        // --json after `--` is a name, not the option.
        #expect(try docver("save", "--no-such-option", "--", "--json", in: alice.root).stdout.isEmpty)
    }

    @Test func successAndHelpPrintNoErrorObject() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.write("x\n", to: "a.txt")
        let saved = try docver("save", "--json", in: alice.root)
        #expect(saved.status == 0)
        #expect(try JSONValue.parse(saved.stdoutData)["error"] == nil)
        let help = try docver("save", "--help", "--json", in: alice.root)
        #expect(help.status == 0 && !help.stdout.contains("\"error\""))
    }
}
