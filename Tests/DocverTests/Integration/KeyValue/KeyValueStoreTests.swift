import DocverKit
import Foundation
import Testing

/// The key-value store on one or two devices: typed values, quotas, the reserved folder, the
/// history of a key and how plain git shows it.
@Suite struct KeyValueStoreTests {
    static let samples: [String: PropertyListValue] = [
        "string": .string("Hello iCloud ✓\n\"quoted\""),
        "data": .data(Data([0, 1, 2, 255])),
        "int": .int(Int64.min),
        "max": .int(Int64.max),
        "double": .double(-0.1),
        "bool": .bool(true),
        "array": .array([.int(1), .double(1), .string("1"), .bool(false), .data(Data([7])), .array([])]),
        "dictionary": .dictionary(["nested": .dictionary(["x": .int(2)]), "": .string("empty key")]),
    ]

    @Test func everyTypeRoundTripsThroughASaveAndWrongTypeGettersGiveZeroValues() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let store = try KeyValueStore(container: alice)
        for (key, value) in Self.samples { try store.set(value, forKey: key) }
        #expect(try store.save() != nil)

        let reopened = try KeyValueStore(container: alice)
        #expect(reopened.dictionaryRepresentation == Self.samples)
        #expect(reopened.string(forKey: "string") == "Hello iCloud ✓\n\"quoted\"")
        #expect(reopened.data(forKey: "data") == Data([0, 1, 2, 255]))
        #expect(reopened.longLong(forKey: "int") == Int64.min && reopened.longLong(forKey: "max") == Int64.max)
        #expect(reopened.double(forKey: "double") == -0.1)
        #expect(reopened.bool(forKey: "bool"))
        #expect(reopened.array(forKey: "array")?.count == 6)
        #expect(reopened.dictionary(forKey: "dictionary")?["nested"] == .dictionary(["x": .int(2)]))
        // A missing key, or a value of another type: nil, 0 or false, as Apple's getters.
        for key in ["missing", "string", "data", "int", "double", "bool", "array", "dictionary"] {
            if key != "string" { #expect(reopened.string(forKey: key) == nil, "\(key)") }
            if key != "data" { #expect(reopened.data(forKey: key) == nil, "\(key)") }
            if key != "int" { #expect(reopened.longLong(forKey: key) == 0, "\(key)") }
            if key != "double" { #expect(reopened.double(forKey: key) == 0, "\(key)") }
            if key != "bool" { #expect(reopened.bool(forKey: key) == false, "\(key)") }
            if key != "array" { #expect(reopened.array(forKey: key) == nil, "\(key)") }
            if key != "dictionary" { #expect(reopened.dictionary(forKey: key) == nil, "\(key)") }
        }
        #expect(reopened.object(forKey: "missing") == nil)
        // An int is not a double, even when it holds a whole number.
        try store.set(3, forKey: "three")
        #expect(store.longLong(forKey: "three") == 3 && store.double(forKey: "three") == 0)
        try expectFsckClean(alice.root)
        #expect(try alice.git(["status", "--porcelain"]).isEmpty, "git status stays clean")
    }

    @Test func changesStayInMemoryUntilSavedAndRemovalsAreSaved() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let store = try KeyValueStore(container: alice)
        try store.set("green", forKey: "colour")
        #expect(try KeyValueStore(container: alice).object(forKey: "colour") == nil, "not saved yet")
        #expect(try alice.headID() == nil)
        let save = try #require(try store.save())
        #expect(try alice.headID() == save)
        #expect(try KeyValueStore(container: alice).string(forKey: "colour") == "green")
        #expect(try store.save() == nil, "nothing left to save")
        try store.set("green", forKey: "colour")
        #expect(try store.save() == nil, "the same value is no new save")
        try store.removeObject(forKey: "colour")
        #expect(store.object(forKey: "colour") == nil)
        #expect(try store.save() != nil)
        #expect(try KeyValueStore(container: alice).dictionaryRepresentation.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: alice.root.path + "/.docver/kv/colour.json"))
        #expect(try alice.git(["status", "--porcelain"]).isEmpty)
    }

    // MARK: Quotas

    /// Refs, working tree files and the store's values: everything a failed write must leave alone.
    private func state(of container: Container, _ store: KeyValueStore) throws -> String {
        let files = try container.workingTreeFiles().keys.sorted().joined(separator: ",")
        let values = store.dictionaryRepresentation.keys.sorted().joined(separator: ",")
        return try refSnapshot(container.root) + "|" + files + "|" + values + "|\(store.usage)"
    }

    @Test func aWritePastTheKeyQuotaFailsAndChangesNothing() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let store = try KeyValueStore(container: alice)
        for index in 0..<KeyValueQuota.maximumKeys { try store.set(.int(Int64(index)), forKey: "k\(index)") }
        try store.save()
        #expect(store.usage.keys == 1024)
        let before = try state(of: alice, store)
        #expect(throws: DocverError.keyValueQuotaExceeded("1025 keys, at most 1024 are allowed")) {
            try store.set(1, forKey: "one-more")
        }
        #expect(try state(of: alice, store) == before)
        #expect(try store.save() == nil, "the refused write is not pending")
        // Changing a key that exists, or removing one, is still allowed.
        try store.set(-1, forKey: "k0")
        try store.removeObject(forKey: "k1")
        try store.set(1, forKey: "one-more")
        #expect(try store.save() != nil)
        #expect(try KeyValueStore(container: alice).usage.keys == 1024)
    }

    @Test func aWritePastTheSizeQuotaFailsAndChangesNothing() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let store = try KeyValueStore(container: alice)
        try store.set(String(repeating: "a", count: 600_000), forKey: "big")
        try store.save()
        let before = try state(of: alice, store)
        #expect(throws: DocverError.self) { try store.set(String(repeating: "b", count: 500_000), forKey: "second") }
        #expect(throws: DocverError.self) { try store.set(String(repeating: "a", count: 1_048_576), forKey: "big") }
        #expect(try state(of: alice, store) == before)
        // The usage is the files' bytes, as plain git counts them.
        let size = try alice.git(["cat-file", "-s", "HEAD:.docver/kv/big.json"]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(size) == store.usage.bytes)
        try store.set(String(repeating: "b", count: 400_000), forKey: "second")
        #expect(try store.save() != nil)
    }

    @Test func badKeysAndValuesFailAndChangeNothing() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let store = try KeyValueStore(container: alice)
        try store.set(1, forKey: "kept")
        try store.save()
        let before = try state(of: alice, store)
        #expect(throws: DocverError.invalidKey("", reason: "it is empty")) { try store.set(1, forKey: "") }
        #expect(throws: DocverError.self) { try store.set(1, forKey: String(repeating: "k", count: 65)) }
        #expect(throws: DocverError.self) { try store.set(1, forKey: "line\nbreak") }
        #expect(throws: DocverError.self) { try store.set(.nan, forKey: "nan") }
        #expect(throws: DocverError.self) { try store.set([.double(.infinity)], forKey: "inf") }
        #expect(throws: DocverError.self) { try store.removeObject(forKey: "") }
        #expect(try state(of: alice, store) == before)
        #expect(try store.save() == nil)
    }

    // MARK: The reserved folder

    @Test func theStoreIsNeverAUserDocumentNorAConflict() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("hello\n", to: "note.txt")
        let aliceStore = try KeyValueStore(container: alice)
        let bobStore = try KeyValueStore(container: bob)
        try aliceStore.set("red", forKey: "colour")
        try bobStore.set("blue", forKey: "colour")
        try aliceStore.synchronize()
        try bobStore.synchronize()
        try aliceStore.synchronize()
        let report = try bob.sync()
        for device in [alice, bob] {
            #expect(try device.documents().map(\.document.path) == ["note.txt"])
            #expect(try device.query(DocumentQuery(glob: "*")).map(\.document.path) == ["note.txt"])
            #expect(try device.conflicts().isEmpty, "the store resolves by itself")
            let status = try device.status()
            #expect(status.changed.isEmpty && status.inConflict.isEmpty)
            #expect(try !device.log().contains { $0.changes.contains { $0.document.path.hasPrefix(".docver") } })
            #expect(try device.git(["status", "--porcelain"]).isEmpty)
            try expectFsckClean(device.root)
        }
        #expect(!report.documentChanges.contains { $0.document.path.hasPrefix(".docver") })
        #expect(aliceStore.string(forKey: "colour") == bobStore.string(forKey: "colour"))
        // The integration commit records no conflict for the store's files.
        #expect(try !alice.git(["log", "--format=%B"]).contains(".docver"))
        // The CLI's listings agree.
        let listing = try docver("ls", "--json", in: alice.root)
        #expect(!listing.stdout.contains(".docver"))
        #expect(try docver("conflicts", in: alice.root).stdout.contains(".docver") == false)
    }

    // MARK: History and plain git

    @Test func theLosingValueStaysInHistoryOnEveryDevice() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        let aliceStore = try KeyValueStore(container: alice)
        let bobStore = try KeyValueStore(container: bob)
        try aliceStore.set(1, forKey: "bg")
        try aliceStore.synchronize()
        try bobStore.synchronize()
        try aliceStore.set(2, forKey: "bg")
        try bobStore.set(3, forKey: "bg")
        try aliceStore.synchronize()
        try bobStore.synchronize()
        try aliceStore.synchronize()
        let winner = bobStore.longLong(forKey: "bg")
        #expect(aliceStore.longLong(forKey: "bg") == winner)
        let history = try aliceStore.history(ofKey: "bg")
        #expect(history == (try bobStore.history(ofKey: "bg")), "every device tells the same history")
        try #require(history.count == 3)
        #expect(history[0].role == .current && history[0].value == .int(winner))
        let lost = try #require(history.first { $0.role == .lost })
        let superseded = try #require(history.first { $0.role == .superseded })
        #expect(Set([history[0].value, lost.value]) == [.int(2), .int(3)])
        #expect(superseded.value == .int(1) && superseded.device.id == "alice")
        // The rule: the later save wins, then the greater device id.
        let current = history[0]
        #expect(current.modified > lost.modified || (current.modified == lost.modified && current.device.id > lost.device.id))
        try bobStore.removeObject(forKey: "bg")
        try bobStore.synchronize()
        let afterRemoval = try bobStore.history(ofKey: "bg")
        #expect(afterRemoval.first?.value == nil && afterRemoval.first?.role == .current)
        #expect(afterRemoval.count == 4)
    }

    @Test func plainGitShowsAReadableHistoryOfAKey() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice", name: "Alice's Laptop")
        let store = try KeyValueStore(container: alice)
        try store.set(0x00FF00, forKey: "bg")
        try store.save()
        try store.set(0x0000FF, forKey: "bg")
        try store.set("dark", forKey: "theme")
        try store.save()
        let log = try alice.git(["log", "-p", "--format=%s (%an)", "--", ".docver/kv/bg.json"])
        #expect(log.contains("Set 2 keys (Alice's Laptop)"))
        #expect(log.contains("Set bg (Alice's Laptop)"))
        #expect(log.contains("-  \"value\": 65280\n+  \"value\": 255\n"))
        #expect(log.contains("+  \"key\": \"bg\",\n+  \"type\": \"int\",\n+  \"value\": 65280\n"))
        let message = try alice.git(["log", "-1", "--format=%B"])
        #expect(message == "Set 2 keys\n\nset: bg\nset: theme\n\nDocver-Device: alice\nDocver-Device-Name: Alice's Laptop\n\n")
        #expect(
            try alice.git(["show", "HEAD:.docver/kv/theme.json"]) == "{\n  \"key\": \"theme\",\n  \"type\": \"string\",\n  \"value\": \"dark\"\n}\n")
        try store.removeObject(forKey: "theme")
        try store.set(1, forKey: "bg")
        try store.save()
        #expect(
            try alice.git(["log", "-1", "--format=%B"])
                == "Change 2 keys\n\nset: bg\nremoved: theme\n\nDocver-Device: alice\nDocver-Device-Name: Alice's Laptop\n\n")
        try store.removeObject(forKey: "bg")
        try store.save()
        #expect(try alice.git(["log", "-1", "--format=%s"]) == "Remove bg\n")
        try expectFsckClean(alice.root)
    }

    @Test func aFileThatIsNotInTheFormatIsIgnoredNotFatal() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let store = try KeyValueStore(container: alice)
        try store.set(1, forKey: "good")
        try store.save()
        // A hand-made commit: a broken file, and a valid file under a name that is not its key's.
        try alice.write("not json", to: ".docver/kv/broken.json")
        try alice.write("{\"key\": \"other\", \"type\": \"int\", \"value\": 2}", to: ".docver/kv/misnamed.json")
        _ = try alice.git(["add", "-A", ".docver"])
        _ = try alice.git(["commit", "-q", "-m", "hand-made"])
        let reopened = try KeyValueStore(container: alice)
        #expect(reopened.dictionaryRepresentation == ["good": .int(1)])
        #expect(try alice.documents().isEmpty)
    }
}
