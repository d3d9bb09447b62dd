import DocverKit
import Foundation
import Testing

/// `docver kv`: the built binary's stdout, stderr and exit codes (docs/CLI.md, "kv").
@Suite struct KeyValueCLITests {
    @Test func setGetListAndRemoveEveryType() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let cases: [(type: String, input: String, shown: String, stored: PropertyListValue)] = [
            ("string", "Hello iCloud", "Hello iCloud", .string("Hello iCloud")),
            ("int", "65280", "65280", .int(65280)),
            ("int", "-9223372036854775808", "-9223372036854775808", .int(Int64.min)),
            ("double", "2.5", "2.5", .double(2.5)),
            ("bool", "true", "true", .bool(true)),
            ("data", "AAEC", "AAEC", .data(Data([0, 1, 2]))),
            (
                "json", #"{"b": [1, 2.0, "x"], "a": null_free}"#.replacingOccurrences(of: "null_free", with: "true"),
                #"{"a":true,"b":[1,2.0,"x"]}"#, .dictionary(["a": .bool(true), "b": .array([.int(1), .double(2), .string("x")])])
            ),
        ]
        for (index, entry) in cases.enumerated() {
            let key = "k\(index)"
            // `--` before the arguments: a value may start with `-`.
            let set = try docver(["kv", "set", "--type", entry.type, "--", key, entry.input], in: alice.root)
            #expect(set.status == 0 && set.stderr.isEmpty, "\(entry): \(set.stderr)")
            #expect(set.stdout.hasPrefix("set \(key) (\(entry.stored.typeName)) in save "))
            let get = try docver(["kv", "get", key], in: alice.root)
            #expect(get.status == 0 && get.stdout == entry.shown + "\n", "\(entry): \(get.stdout)")
            #expect(try KeyValueStore(container: alice).object(forKey: key) == entry.stored)
        }
        let again = try docver(["kv", "set", "k1", "65280", "--type", "int"], in: alice.root)
        #expect(again.status == 0 && again.stdout == "k1 already has this value; nothing to save\n")

        let json = try parseJSON(try docver("kv", "get", "k6", "--json", in: alice.root).stdoutData) as? [String: Any]
        #expect(json?["key"] as? String == "k6" && json?["type"] as? String == "dictionary")
        #expect((json?["value"] as? [String: Any])?["a"] as? Bool == true)
        let list = try docver("kv", "ls", in: alice.root)
        #expect(list.stdout.split(separator: "\n").count == cases.count)
        #expect(list.stdout.contains("k1  int        65280"))
        let listed = try parseJSON(try docver("kv", "ls", "--json", in: alice.root).stdoutData) as? [[String: Any]]
        #expect(listed?.map { $0["key"] as? String } == (0..<cases.count).map { "k\($0)" })

        let removed = try docver("kv", "rm", "k0", in: alice.root)
        #expect(removed.status == 0 && removed.stdout.hasPrefix("removed k0 in save "))
        let history = try parseJSON(try docver("kv", "history", "k0", "--json", in: alice.root).stdoutData) as? [[String: Any]]
        #expect(history?.map { $0["role"] as? String } == ["current", "superseded"])
        #expect(history?.first?["removed"] as? Bool == true && history?.last?["value"] as? String == "Hello iCloud")
        // A global -C before the command group works, as for every command.
        let fromElsewhere = try docver(["-C", alice.root.path, "kv", "get", "k1"], in: scratch.url)
        #expect(fromElsewhere.stdout == "65280\n")
        #expect(try alice.git(["status", "--porcelain"]).isEmpty)
        try expectFsckClean(alice.root)
    }

    @Test(arguments: [
        (["kv", "set", "", "x"], "docver: error: invalid key '': it is empty"),
        (
            ["kv", "set", String(repeating: "k", count: 65), "x"],
            "docver: error: invalid key '\(String(repeating: "k", count: 65))': it is 65 bytes of UTF-8; at most 64 are allowed"
        ),
        (["kv", "set", "k", "{\"a\": 1", "--type", "json"], "docver: error: invalid value: not valid JSON: unexpected end of text (at byte 7)"),
        (["kv", "set", "k", "[1, null]", "--type", "json"], "docver: error: invalid value: null is not a property-list value"),
        (["kv", "set", "k", "12x", "--type", "int"], "docver: error: invalid value: '12x' is not a 64-bit integer"),
        (["kv", "set", "k", "nan", "--type", "double"], "docver: error: invalid value: 'nan' is not a finite number"),
        (["kv", "set", "k", "yes", "--type", "bool"], "docver: error: invalid value: 'yes' is not a bool: use true or false"),
        (["kv", "set", "k", "%%%", "--type", "data"], "docver: error: invalid value: '%%%' is not Base64"),
        (["kv", "get", "missing"], "docver: error: no such key: missing"),
        (["kv", "rm", "missing"], "docver: error: no such key: missing"),
        (["kv", "history", ""], "docver: error: invalid key '': it is empty"),
        (["kv", "get", "a\nb"], "docver: error: invalid key 'a\\nb': control characters are not allowed"),
    ])
    func badInputGetsOneLineAndExitOneAndChangesNothing(arguments: [String], message: String) throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        _ = try docver("kv", "set", "kept", "1", in: alice.root)
        let before = try refSnapshot(alice.root)
        let result = try docver(arguments, in: alice.root)
        #expect(result.status == 1)
        #expect(result.stderrLines == [message])
        #expect(result.stdout.isEmpty)
        #expect(try refSnapshot(alice.root) == before)
    }

    @Test func anUnknownTypeIsAUsageError() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let result = try docver("kv", "set", "k", "v", "--type", "date", in: alice.root)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: "))
    }

    @Test func watchPrintsTheChangeAnotherDeviceMade() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: docverExecutable)
        watch.arguments = ["kv", "watch", "-v", "--json", "--interval", "0.05", "--changes", "1"]
        watch.currentDirectoryURL = bob.root
        let output = Pipe()
        watch.standardOutput = output
        let diagnostics = Pipe()
        watch.standardError = diagnostics
        try watch.run()
        defer { if watch.isRunning { watch.terminate() } }
        // The watcher says (with -v) when it has read the store; a change made after that is printed.
        try waitForLine(containing: "watching the store for changes", in: diagnostics)

        let store = try KeyValueStore(container: alice)
        try store.set(0x00FF00, forKey: "bg")
        try store.synchronize()
        #expect(try docver("sync", in: bob.root).status == 0)  // another process brings it in
        let deadline = Date().addingTimeInterval(20)
        while watch.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!watch.isRunning, "watch stops after --changes 1")
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text == "{\"keys\":[\"bg\"],\"reason\":\"initial-sync\"}\n")
    }
}
