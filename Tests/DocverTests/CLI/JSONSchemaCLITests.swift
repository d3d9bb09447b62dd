import DocverKit
import Foundation
import Testing

/// The --json contract, machine-checked: every command's JSON output, from a real container
/// with conflicts, validated against its schema in docs/schemas.
@Suite struct JSONSchemaCLITests {
    static let schemas = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/schemas")

    static func validator(_ name: String) throws -> JSONSchemaValidator {
        try JSONSchemaValidator(contentsOf: schemas.appendingPathComponent("\(name).schema.json"))
    }

    /// Runs `docver ARGS --json` in `directory`, requires exit 0 and output valid against
    /// `schema`; returns the parsed output.
    @discardableResult
    func validated(
        _ arguments: [String], in directory: URL, schema: String, used: inout Set<String>, status: Int32 = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> JSONValue {
        let result = try docver(arguments + ["--json"], in: directory)
        #expect(result.status == status, "docver \(arguments.joined(separator: " ")) --json: \(result.stderr)", sourceLocation: sourceLocation)
        let value = try JSONValue.parse(result.stdoutData)
        let problems = try Self.validator(schema).problems(in: value)
        #expect(
            problems.isEmpty, "docver \(arguments.joined(separator: " ")) --json against \(schema): \(problems)\n\(result.stdout)",
            sourceLocation: sourceLocation)
        used.insert(schema)
        return value
    }

    @Test func everyCommandsJSONMatchesItsSchema() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.make(
            scratch, base: ["note.txt": Data("one\ntwo\n".utf8)],
            edits: [["note.txt": Data("one\nalice\n".utf8)], ["note.txt": Data("one\nbob\n".utf8)]],
            staggered: false)
        let alice = fixture.devices[0]
        let here = alice.root
        var used: Set<String> = []
        let loser = try #require(fixture.conflict(on: alice).conflicts.first).id

        // A package and a binary document, so show's shapes are all filled.
        try alice.write("a\n", to: "trip.imagenotes/a.txt")
        try alice.write("b\n", to: "trip.imagenotes/b.txt")
        try Data([0, 255, 1]).write(to: here.appendingPathComponent("blob.bin"))
        let saved = try validated(["save", "-m", "package and blob"], in: here, schema: "save", used: &used)
        #expect(saved["save"] != .null)
        #expect(try validated(["save"], in: here, schema: "save", used: &used)["save"] == .null)
        guard case let .string(packageSave)? = saved["save"] else { Issue.record("no save id"); return }

        let status = try validated(["status"], in: here, schema: "status", used: &used)
        #expect(status["inConflict"] != .array([]))
        try validated(["ls"], in: here, schema: "ls", used: &used)
        let watched = try docver(["watch", "--updates", "0", "--json"], in: here)
        #expect(watched.status == 0, "\(watched.stderr)")
        let watchLine = try JSONValue.parse(Data(watched.stdout.split(separator: "\n")[0].utf8))
        #expect(try Self.validator("watch").problems(in: watchLine) == [])
        used.insert("watch")
        try validated(["log"], in: here, schema: "log", used: &used)
        let versions = try validated(["versions", "note.txt", "--all"], in: here, schema: "versions", used: &used)
        #expect(versions["conflicts"] != .array([]))
        let conflicts = try validated(["conflicts"], in: here, schema: "conflicts", used: &used)
        #expect(conflicts != .array([]))
        try validated(["show", "note.txt", loser], in: here, schema: "show", used: &used)
        try validated(["show", "trip.imagenotes", packageSave], in: here, schema: "show", used: &used)
        try validated(["show", "blob.bin", packageSave], in: here, schema: "show", used: &used)
        let diff = try validated(["diff", "note.txt", loser, "@"], in: here, schema: "diff", used: &used)
        #expect(diff != .array([]))
        try validated(["diff", "note.txt", loser, "--base"], in: here, schema: "diff", used: &used)
        try validated(["diff", "note.txt", loser], in: here, schema: "diff", used: &used)
        let resolved = try validated(["resolve", "--all", "--strategy", "latest-date", "--dry-run"], in: here, schema: "resolve", used: &used)
        #expect(resolved != .array([]))

        try validated(["remote", "list"], in: here, schema: "remote-list", used: &used)
        let spare = try scratch.bareRemote("spare.git")
        try validated(["remote", "add", "spare", spare.path], in: here, schema: "remote-add", used: &used)
        try validated(["remote", "set-url", "spare", scratch.path("created.git").path, "--create"], in: here, schema: "remote-add", used: &used)
        try validated(["remote", "rename", "spare", "extra"], in: here, schema: "remote-rename", used: &used)
        try validated(["remote", "remove", "extra"], in: here, schema: "remote-remove", used: &used)
        let usage = try validated(["du"], in: here, schema: "du", used: &used)
        #expect(usage["documents"] != .array([]))
        try validated(["gc", "--dry-run"], in: here, schema: "gc", used: &used)
        try validated(["sync", "origin"], in: here, schema: "sync", used: &used)
        try validated(["integrate"], in: here, schema: "sync", used: &used)
        let cloned = try validated(
            ["clone", fixture.remote.path, scratch.path("carol").path, "--device", "carol"],
            in: scratch.url, schema: "sync", used: &used)
        #expect(cloned["changes"] != .array([]), "a clone of a container in conflict reports the conflict")
        try validated(["init", scratch.path("dave").path, "--device", "dave"], in: scratch.url, schema: "init", used: &used)

        // The operations that each record a save, on the document in conflict.
        try validated(["restore", "note.txt", fixture.base], in: here, schema: "document-save", used: &used)
        try validated(["replace", "note.txt", loser], in: here, schema: "document-save", used: &used)
        try validated(["mark-resolved", "note.txt"], in: here, schema: "document-save", used: &used)
        try validated(["remove-other-versions", "note.txt"], in: here, schema: "document-save", used: &used)

        // The key-value store.
        try validated(["kv", "set", "bg", "65280", "--type", "int"], in: here, schema: "kv-set", used: &used)
        try validated(["kv", "set", "tags", #"["a", {"b": 1.5}]"#, "--type", "json"], in: here, schema: "kv-set", used: &used)
        try validated(["kv", "get", "tags"], in: here, schema: "kv-entry", used: &used)
        try validated(["kv", "ls"], in: here, schema: "kv-ls", used: &used)
        try validated(["kv", "rm", "bg"], in: here, schema: "kv-rm", used: &used)
        try validated(["kv", "history", "bg"], in: here, schema: "kv-history", used: &used)

        // The agent: status while none runs, start, status while it runs, stop; its log holds
        // the events it printed as JSON lines.
        try validated(["agent", "status"], in: here, schema: "agent-status", used: &used)
        try validated(["agent", "stop"], in: here, schema: "agent-control", used: &used)
        try validated(["agent", "start", "--poll-interval", "600"], in: here, schema: "agent-control", used: &used)
        try validated(["agent", "status"], in: here, schema: "agent-status", used: &used)
        try validated(["agent", "stop"], in: here, schema: "agent-control", used: &used)
        let log = try String(contentsOf: here.appendingPathComponent(".git/docver/agent.log"), encoding: .utf8)
        let events = log.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(events.count >= 2, "the agent logged: \(log)")
        for event in events {
            #expect(try Self.validator("agent-event").problems(in: JSONValue.parse(Data(event.utf8))) == [], "\(event)")
        }
        used.insert("agent-event")

        // kv watch on bob prints the key alice sets once bob syncs.
        let bob = fixture.devices[1].root
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: docverExecutable)
        watch.arguments = ["kv", "watch", "-v", "--json", "--interval", "0.05", "--changes", "1"]
        watch.currentDirectoryURL = bob
        let watchOutput = Pipe()
        watch.standardOutput = watchOutput
        let diagnostics = Pipe()
        watch.standardError = diagnostics
        try watch.run()
        defer { if watch.isRunning { watch.terminate() } }
        // The watcher says (with -v) when it has read the store; a change made after that is printed.
        try waitForLine(containing: "watching the store for changes", in: diagnostics)
        #expect(try docver(["kv", "set", "colour", "red"], in: here).status == 0)
        #expect(try docver(["sync"], in: here).status == 0)
        #expect(try docver(["sync"], in: bob).status == 0)
        let deadline = Date().addingTimeInterval(20)
        while watch.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let watchText = String(decoding: watchOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let kvLine = try #require(watchText.split(separator: "\n").first, "kv watch printed nothing")
        #expect(try Self.validator("kv-watch").problems(in: JSONValue.parse(Data(kvLine.utf8))) == [], "\(kvLine)")
        used.insert("kv-watch")

        // On a device with every version's contents, download fetches nothing (OnDemandTests
        // checks a device on demand against the schema too).
        let download = try validated(["download", "note.txt"], in: here, schema: "download", used: &used)
        #expect(download["onDemand"] == .bool(false) && download["fetchedFiles"] == .integer(0))

        // evict needs a device on demand: one joins from the same remote (EvictTests checks
        // its outcomes; here, its shape). The note is in conflict there too: --force.
        let remoteURL = try runGit(["config", "remote.origin.url"], in: here).trimmingCharacters(in: .whitespacesAndNewlines)
        let carol = try Container.clone(
            from: URL(fileURLWithPath: remoteURL, relativeTo: here).path, to: scratch.path("on-demand"),
            device: Device(id: "dana"), onDemand: true
        ).container
        let evicted = try validated(["evict", "--force", "note.txt"], in: carol.root, schema: "evict", used: &used)
        #expect(evicted["documents"] == .array([.string("note.txt")]))

        // A failure under --json (docs/CLI.md, "Errors under --json").
        try validated(["versions", "nosuch.txt"], in: here, schema: "error", used: &used, status: 1)

        // Every schema shipped was checked against real output.
        let shipped = try FileManager.default.contentsOfDirectory(atPath: Self.schemas.path)
            .filter { $0.hasSuffix(".schema.json") }.map { String($0.dropLast(".schema.json".count)) }
        #expect(Set(shipped) == used)
    }
}

extension JSONSchemaCLITests {
    /// The shapes the test above does not reach: bare `remote`, every outcome of a real
    /// `resolve` (not a dry run), `diff` of the unsaved edits, and `show` of a deletion.
    @Test func resolveOutcomesDiffOfEditsAndShowOfADeletionMatchTheirSchemas() throws {
        let scratch = try Scratch()
        let clean = "a\nb\nc\nd\ne\nf\n"
        let fixture = try ConflictFixture.make(
            scratch, document: "keep.txt",
            base: [
                "keep.txt": Data("one\n".utf8), "clean.txt": Data(clean.utf8), "markers.txt": Data("one\n".utf8),
                "fails.txt": Data("one\n".utf8), "gone.txt": Data("bye\n".utf8),
            ],
            edits: [
                [
                    "keep.txt": Data("alice\n".utf8), "clean.txt": Data(clean.replacingOccurrences(of: "a\n", with: "A\n").utf8),
                    "markers.txt": Data("alice\n".utf8), "fails.txt": Data("alice\n".utf8),
                ],
                [
                    "keep.txt": Data("bob\n".utf8), "clean.txt": Data(clean.replacingOccurrences(of: "f\n", with: "F\n").utf8),
                    "markers.txt": Data("bob\n".utf8), "fails.txt": Data("bob\n".utf8),
                ],
            ],
            staggered: false)
        let here = fixture.devices[0].root
        var used: Set<String> = []

        let remotes = try validated(["remote"], in: here, schema: "remote-list", used: &used)
        #expect(remotes != .array([]))

        func outcome(_ arguments: [String], status: Int32 = 0) throws -> JSONValue? {
            let value = try validated(["resolve"] + arguments, in: here, schema: "resolve", used: &used, status: status)
            guard case let .array(items) = value, items.count == 1 else { Issue.record("\(arguments): \(value)"); return nil }
            #expect(items[0]["dryRun"] == .bool(false))
            return items[0]["outcome"]
        }
        #expect(try outcome(["keep.txt", "--strategy", "latest-date"]) == .string("keep"))
        #expect(try outcome(["clean.txt", "--strategy", "merge"]) == .string("merged"))
        #expect(try outcome(["markers.txt", "--strategy", "merge", "--markers"], status: 1) == .string("mergedWithMarkers"))
        #expect(try outcome(["fails.txt", "--strategy", "merge"], status: 1) == .string("failed"))

        // The unsaved edits of every document.
        try Data("edited\n".utf8).write(to: here.appendingPathComponent("keep.txt"))
        let edits = try validated(["diff"], in: here, schema: "diff", used: &used)
        #expect(edits != .array([]))

        // A deletion, shown.
        try FileManager.default.removeItem(at: here.appendingPathComponent("gone.txt"))
        let deletion = try #require(try fixture.devices[0].save([DocumentPath("gone.txt")])).id
        let shown = try validated(["show", "gone.txt", deletion], in: here, schema: "show", used: &used)
        #expect(shown["contents"] == .string("deleted"))
        #expect(shown["version"]?["deleted"] == .bool(true))
    }
}

/// The validator itself: it must reject what breaks a schema, or the test above proves nothing.
@Suite struct JSONSchemaValidatorTests {
    static let schema = try! JSONValue.parse(
        Data(
            #"""
            {
              "$schema": "https://json-schema.org/draft/2020-12/schema",
              "type": "object",
              "properties": {
                "id": {"type": "string", "pattern": "^[0-9a-f]{40}$"},
                "when": {"type": "string", "format": "date-time"},
                "kind": {"enum": ["flat", "package"]},
                "size": {"type": "integer"},
                "base": {"anyOf": [{"$ref": "#/$defs/version"}, {"type": "null"}]},
                "note": {"type": ["string", "null"]},
                "list": {"type": "array", "items": {"$ref": "#/$defs/version"}},
                "fixed": {"const": true},
                "map": {"type": "object", "additionalProperties": {"type": "integer"}}
              },
              "required": ["id", "kind"],
              "additionalProperties": false,
              "$defs": {
                "version": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"], "additionalProperties": false}
              }
            }
            """#.utf8))

    func problems(_ json: String) throws -> [String] {
        JSONSchemaValidator(schema: Self.schema).problems(in: try JSONValue.parse(Data(json.utf8)))
    }

    let id = String(repeating: "a", count: 40)

    @Test func acceptsAConformingDocument() throws {
        #expect(
            try problems(
                #"""
                {"id": "\#(id)", "when": "2026-11-22T03:58:04Z", "kind": "flat", "size": 3, "base": {"id": "x"},
                 "note": null, "list": [{"id": "y"}], "fixed": true, "map": {"a": 1}}
                """#) == [])
        #expect(try problems(#"{"id": "\#(id)", "kind": "package", "base": null, "when": "2026-11-22T04:58:04+01:00"}"#) == [])
    }

    @Test func rejectsEachKindOfBreach() throws {
        let breaches: [(String, String)] = [
            (#"{"kind": "flat"}"#, "missing required property 'id'"),
            (#"{"id": "\#(id)", "kind": "folder"}"#, "is not one of"),
            (#"{"id": "\#(id)", "kind": "flat", "size": "3"}"#, "expected integer, found string"),
            (#"{"id": "\#(id)", "kind": "flat", "size": 3.5}"#, "expected integer, found number"),
            (#"{"id": "\#(id)", "kind": "flat", "size": true}"#, "expected integer, found boolean"),
            (#"{"id": "ABC", "kind": "flat"}"#, "does not match"),
            (#"{"id": "\#(id)", "kind": "flat", "when": "2026-11-22 03:58:04"}"#, "is not an RFC 3339 date-time"),
            (#"{"id": "\#(id)", "kind": "flat", "when": "2026-13-40T03:58:04Z"}"#, "is not an RFC 3339 date-time"),
            (#"{"id": "\#(id)", "kind": "flat", "extra": 1}"#, "property 'extra' is not in the schema"),
            (#"{"id": "\#(id)", "kind": "flat", "base": {"id": 1}}"#, "matches none of anyOf"),
            (#"{"id": "\#(id)", "kind": "flat", "note": 3}"#, "expected string or null"),
            (#"{"id": "\#(id)", "kind": "flat", "list": [{"name": "y"}]}"#, "$.list[0]: missing required property 'id'"),
            (#"{"id": "\#(id)", "kind": "flat", "fixed": false}"#, "is not true"),
            (#"{"id": "\#(id)", "kind": "flat", "map": {"a": "1"}}"#, "$.map.a: expected integer"),
            (#"[]"#, "expected object, found array"),
            (#"{"id": null, "kind": "flat"}"#, "$.id: expected string, found null"),
        ]
        for (document, expected) in breaches {
            let found = try problems(document)
            #expect(found.contains { $0.contains(expected) }, "\(document) should break with '\(expected)', found \(found)")
        }
    }

    @Test func reportsKeywordsItDoesNotCheck() throws {
        let schema = try JSONValue.parse(Data(#"{"type": "integer", "multipleOf": 3}"#.utf8))
        #expect(JSONSchemaValidator(schema: schema).problems(in: .integer(1)).contains { $0.contains("'multipleOf'") })
    }

    @Test func checksMinimumAndMaximum() throws {
        let schema = try JSONValue.parse(Data(#"{"type": "number", "minimum": 0, "maximum": 100}"#.utf8))
        let validator = JSONSchemaValidator(schema: schema)
        #expect(validator.problems(in: .integer(0)).isEmpty && validator.problems(in: .number(99.5)).isEmpty)
        #expect(validator.problems(in: .integer(-1)).contains { $0.contains("below") })
        #expect(validator.problems(in: .number(100.5)).contains { $0.contains("above") })
    }

    @Test func everyShippedSchemaUsesOnlyTheCheckedSubset() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: JSONSchemaCLITests.schemas.path).filter { $0.hasSuffix(".schema.json") }
        #expect(names.count >= 20)
        for name in names {
            let schema = try JSONValue.parse(Data(contentsOf: JSONSchemaCLITests.schemas.appendingPathComponent(name)))
            #expect(schema["$schema"] == .string("https://json-schema.org/draft/2020-12/schema"), "\(name)")
            // Walk every subschema: an unknown keyword anywhere is reported on any value that reaches it,
            // so collect keywords directly.
            var unknown: Set<String> = []
            func walk(_ value: JSONValue, isSchema: Bool) {
                switch value {
                case let .object(members):
                    if isSchema {
                        for key in members.keys where !JSONSchemaValidator.keywords.contains(key) { unknown.insert(key) }
                    }
                    for (key, member) in members {
                        switch key {
                        case "properties", "$defs":
                            if case let .object(children) = member { children.values.forEach { walk($0, isSchema: true) } }
                        case "items", "additionalProperties": walk(member, isSchema: true)
                        case "anyOf": if case let .array(children) = member { children.forEach { walk($0, isSchema: true) } }
                        default: break
                        }
                    }
                default: break
                }
            }
            walk(schema, isSchema: true)
            #expect(unknown.isEmpty, "\(name) uses keywords the test validator does not check: \(unknown)")
        }
    }
}
