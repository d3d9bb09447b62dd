import DocverKit
import Foundation
import Testing

/// `docver serve` (docs/PROTOCOL.md), driven over its pipes as an editor drives it: the real
/// binary on real containers with a bare remote. Every message is checked against its schema
/// in docs/schemas/protocol (``ServeProcess``).
@Suite struct ServeProtocolTests {
    /// Alice, served, and Bob share a remote; `notes.txt` is saved and synced on both.
    private func twoDevices(_ scratch: Scratch) throws -> (alice: Container, bob: Container) {
        try servedDevicePair(scratch)
    }

    /// Both edit `document`, Alice first; Bob syncs: Alice's next sync brings a conflict.
    private func concurrentEdits(_ alice: Container, _ bob: Container, _ document: String, age: Int = 2) throws {
        try alice.datedBeforeNow(age).saveText("alice\n", to: document)
        try bob.datedBeforeNow(age - 1).saveText("bob\n", to: document)
        try bob.sync()
    }

    @Test func initializeAnswersWithTheProtocolVersionAndCapabilities() throws {
        let scratch = try Scratch()
        let (alice, _) = try twoDevices(scratch)
        let server = try ServeProcess(alice)
        let result = try server.call("initialize", ["clientName": "test", "protocolVersion": "1.0"])
        #expect(result["protocolVersion"] == .string("1.0"))
        #expect(result["device"] == .string("alice"))
        #expect(result["container"] == .string(alice.root.path))
        guard case let .array(methods)? = result["capabilities"]?["methods"],
            case let .array(notifications)? = result["capabilities"]?["notifications"]
        else {
            Issue.record("no capabilities: \(result)")
            return
        }
        for method in [
            "status", "ls", "conflicts", "versions", "show", "diff", "save", "sync", "resolve", "replace",
            "markResolved", "removeOtherVersions", "restore", "kv.get", "kv.set", "kv.remove", "kv.list", "shutdown",
        ] {
            #expect(methods.contains(.string(method)), "\(method)")
        }
        #expect(
            Set(notifications.map(\.description))
                == Set(
                    [
                        "documentChanged", "conflictAppeared", "conflictResolved",
                        "syncStateChanged", "keyValueChanged",
                    ].map { "\"\($0)\"" }))
        // A client of another major version is told so, and the server goes on.
        let refused = try server.response("initialize", ["protocolVersion": "2.0"])
        #expect(refused["error"]?["code"] == .integer(-32602))
        #expect(try server.shutdown() == 0)
    }

    @Test func badRequestsGetJSONRPCErrorsAndTheServerKeepsAnswering() throws {
        let scratch = try Scratch()
        let (alice, _) = try twoDevices(scratch)
        let refsBefore = try refSnapshot(alice.root)
        let server = try ServeProcess(alice)
        try server.call("initialize")

        func error(after line: String) throws -> JSONValue {
            try server.sendLine(line)
            let message = try server.nextMessage()
            #expect(message["result"] == nil, "\(line) -> \(message)")
            return message
        }
        let unparsable = try error(after: "{nope")
        #expect(unparsable["error"]?["code"] == .integer(-32700))
        #expect(unparsable["id"] == .null)
        #expect(try error(after: "[1, 2]")["error"]?["code"] == .integer(-32600))
        #expect(try error(after: #"{"id": 4, "method": "status"}"#)["error"]?["code"] == .integer(-32600))
        let unknown = try error(after: #"{"jsonrpc": "2.0", "id": "a", "method": "nosuch"}"#)
        #expect(unknown["error"]?["code"] == .integer(-32601))
        #expect(unknown["id"] == .string("a"))
        #expect(try error(after: #"{"jsonrpc": "2.0", "id": 5, "method": "show", "params": [1]}"#)["error"]?["code"] == .integer(-32602))
        let wrongType = try server.response("show", ["document": 5], checkingParams: false)
        #expect(wrongType["error"]?["code"] == .integer(-32602))
        #expect(
            try server.response("resolve", ["document": "notes.txt", "strategy": "sideways"], checkingParams: false)["error"]?["code"]
                == .integer(-32602))
        // A notification (no id) is never answered, not even when nothing knows its method:
        // the next line is the next request's answer.
        try server.sendLine(#"{"jsonrpc": "2.0", "method": "nosuch"}"#)
        // docver's own failures carry its error code, message and hint.
        let missing = try server.response("versions", ["document": "nosuch.txt"])
        #expect(missing["error"]?["code"] == .integer(-32000))
        #expect(missing["error"]?["data"]?["code"] == .string("noSuchDocument"))
        #expect(missing["error"]?["data"]?["message"] == .string("no such document: nosuch.txt"))
        let notInConflict = try server.response("resolve", ["document": "notes.txt", "strategy": "latest-date"])
        #expect(notInConflict["error"]?["data"]?["code"] == .string("notInConflict"))

        #expect(server.isRunning)
        #expect(try server.call("status")["device"] == .string("alice"))
        #expect(try server.shutdown() == 0)
        #expect(try refSnapshot(alice.root) == refsBefore)
        try expectFsckClean(alice.root)
    }

    @Test func aSaveIsAnsweredAndReportedAsDocumentChanged() throws {
        let scratch = try Scratch()
        let (alice, _) = try twoDevices(scratch)
        let server = try ServeProcess(alice)
        try server.call("initialize")
        try alice.write("edited\n", to: "notes.txt")
        try alice.write("new\n", to: "drafts/new.txt")
        let saved = try server.call("save", ["message": "from the editor"])
        guard case let .string(save)? = saved["save"] else {
            Issue.record("no save: \(saved)")
            return
        }
        let changed = try server.notification("documentChanged")
        guard case let .array(documents)? = changed["documents"] else { Issue.record("\(changed)"); return }
        #expect(Set(documents.compactMap { $0["document"]?.description }) == ["\"notes.txt\"", "\"drafts/new.txt\""])
        #expect(documents.allSatisfy { $0["version"] == .string(save) })
        #expect(documents.contains { $0["document"] == .string("drafts/new.txt") && $0["change"] == .string("added") })
        // A save by another process is reported too.
        try alice.write("again\n", to: "notes.txt")
        let other = try docver(["-C", alice.root.path, "save", "notes.txt"])
        #expect(other.status == 0, "\(other.stderr)")
        let again = try server.notification("documentChanged")
        #expect(
            again["documents"]
                == .array([
                    .object([
                        "document": .string("notes.txt"), "change": .string("modified"),
                        "version": .string(try #require(try alice.currentVersion(of: DocumentPath("notes.txt"))).id), "previous": .string(save),
                    ])
                ]))
        #expect(try server.shutdown() == 0)
    }

    @Test func aConflictSyncedInElsewhereIsPushedAndResolvedOverTheProtocol() throws {
        let scratch = try Scratch()
        let (alice, bob) = try twoDevices(scratch)
        let server = try ServeProcess(alice)
        try server.call("initialize")
        try concurrentEdits(alice, bob, "notes.txt")

        // Another process syncs Alice's container: the conflict it brings is pushed.
        let sync = try docver(["-C", alice.root.path, "sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let appeared = try server.notification("conflictAppeared")
        #expect(appeared["document"] == .string("notes.txt"))
        let conflicts = try server.call("conflicts")
        guard case let .array(listed) = conflicts, let conflict = listed.first,
            case let .array(versions)? = conflict["conflicts"], let loser = versions.first?["id"]
        else {
            Issue.record("no conflict listed: \(conflicts)")
            return
        }
        #expect(appeared["versions"] == .array([loser]))
        #expect(try server.notification("syncStateChanged") { $0["state"] == .string("fetched") }["remotes"] == .array([.string("origin")]))

        // Resolved over the protocol: the version kept becomes current, the conflict closes.
        guard case let .string(kept) = loser else { return }
        let resolved = try server.call("resolve", ["document": "notes.txt", "strategy": "choose", "keep": kept])
        #expect(resolved["outcome"] == .string("keep"))
        #expect(resolved["version"] == loser)
        let closed = try server.notification("conflictResolved")
        #expect(closed["document"] == .string("notes.txt"))
        #expect(closed["versions"] == .array([loser]))
        #expect(closed["open"] == .integer(0))
        #expect(try server.call("conflicts") == .array([]))
        #expect(try server.call("show", ["document": "notes.txt"])["text"] == .string(try alice.read("notes.txt")))

        // A conflict brought by a sync over the protocol is pushed the same way.
        try concurrentEdits(alice, bob, "todo.txt")
        let report = try server.call("sync")
        #expect(report["newConflicts"]?["todo.txt"] != nil, "\(report)")
        #expect(try server.notification("conflictAppeared")["document"] == .string("todo.txt"))
        #expect(try server.notification("syncStateChanged") { $0["state"] == .string("finished") }["integrated"] == .bool(true))
        let merged = try server.call("resolve", ["document": "todo.txt", "strategy": "latest-date"])
        #expect(merged["outcome"] == .string("keep"))
        #expect(try server.notification("conflictResolved")["document"] == .string("todo.txt"))
        #expect(try server.shutdown() == 0)
        try expectFsckClean(alice.root)
    }

    /// With the agent running, nobody calls save or sync: the agent's autosave and the sync it
    /// makes when Bob's push reaches the remote are reported like any other change.
    @Test func whatTheAgentSavesAndBringsInIsReported() async throws {
        let scratch = try Scratch()
        let (alice, bob) = try twoDevices(scratch)
        let agent = try await AgentProcess.start(alice)
        let server = try ServeProcess(alice)
        try server.call("initialize")
        try bob.datedBeforeNow(2).saveText("bob\n", to: "notes.txt")
        try alice.write("alice\n", to: "notes.txt")
        try await waitFor("the agent to save and push notes.txt") {
            agent.events("synced").contains { ($0["pushed"] as? [String])?.contains("origin") == true }
        }
        let saved = try server.notification("documentChanged") { params in
            if case let .array(documents)? = params["documents"] { documents.contains { $0["document"] == .string("notes.txt") } } else { false }
        }
        #expect(saved["documents"] != nil)
        // Bob syncs: his edit and Alice's compete; the agent notices Bob's push and syncs.
        try bob.sync()
        try await waitFor("the conflict to reach Alice") { try !alice.conflicts().isEmpty }
        let appeared = try server.notification("conflictAppeared")
        #expect(appeared["document"] == .string("notes.txt"))
        #expect(try server.shutdown() == 0)
        #expect(agent.terminate() == 0)
    }

    /// The agent's going offline (its remote moved away) and coming back online move no
    /// reference; the server still tells the editor, with when and why.
    @Test func theAgentGoingOfflineAndBackOnlineIsReported() async throws {
        let scratch = try Scratch()
        let (alice, _) = try twoDevices(scratch)
        let agent = try await AgentProcess.start(alice)
        let server = try ServeProcess(alice)
        try server.call("initialize")
        let remote = scratch.path("remote.git"), away = scratch.path("remote-away.git")
        try FileManager.default.moveItem(at: remote, to: away)
        try await waitFor("the agent to go offline") { !agent.events("offline").isEmpty }
        let offline = try server.notification("syncStateChanged") { $0["state"] == .string("offline") }
        if case .string? = offline["since"] {} else { Issue.record("no date in \(offline)") }
        if case let .string(reason)? = offline["reason"] {
            #expect(reason.contains("origin"), "\(reason)")
        } else {
            Issue.record("no reason in \(offline)")
        }
        try FileManager.default.moveItem(at: away, to: remote)
        let online = try server.notification("syncStateChanged") { $0["state"] == .string("online") }
        #expect(online["reason"] == nil)
        #expect(try server.shutdown() == 0)
        #expect(agent.terminate() == 0)
    }

    @Test func keyValueChangesByAnotherProcessAreReported() throws {
        let scratch = try Scratch()
        let (alice, _) = try twoDevices(scratch)
        let server = try ServeProcess(alice)
        try server.call("initialize")
        let set = try docver(["-C", alice.root.path, "kv", "set", "theme", "dark"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try server.notification("keyValueChanged")["keys"] == .array([.string("theme")]))
        #expect(try server.call("kv.get", ["key": "theme"])["value"] == .string("dark"))
        try server.call("kv.remove", ["key": "theme"])
        let removed = try server.notification("keyValueChanged")
        #expect(removed["removed"] == .array([.string("theme")]))
        #expect(try server.shutdown() == 0)
    }

    /// Every method, every notification, checked against its schema; every schema in
    /// docs/schemas/protocol is used.
    @Test func everyMethodAndNotificationMatchesItsSchema() throws {
        let scratch = try Scratch()
        let (alice, bob) = try twoDevices(scratch)
        try concurrentEdits(alice, bob, "notes.txt")
        try alice.write("a\n", to: "trip.imagenotes/a.txt")
        let server = try ServeProcess(alice)
        try server.call("initialize", ["clientName": "schema test"])
        try server.call("status")
        try server.call("save", ["documents": ["trip.imagenotes"], "message": "a package"])
        _ = try server.notification("documentChanged")
        try server.call("sync", ["remotes": ["origin"]])
        let appeared = try server.notification("conflictAppeared")
        _ = try server.notification("syncStateChanged")
        try server.call("ls", ["inConflict": true, "sort": "modified", "reverse": true])
        try server.call("conflicts", ["document": "notes.txt"])
        let versions = try server.call("versions", ["document": "notes.txt", "all": true])
        try server.call("show", ["document": "notes.txt", "version": "@-1"])
        try server.call("show", ["document": "trip.imagenotes"])
        try server.call("diff", ["document": "notes.txt", "from": "@-1", "to": "@"])
        try server.call("resolve", ["document": "notes.txt", "strategy": "latest-date", "dryRun": true])
        guard case let .string(loser)? = appeared["versions"].flatMap({ if case let .array(ids) = $0 { ids.first } else { nil } }),
            case let .string(current)? = versions["current"]?["id"]
        else {
            Issue.record("no conflict version: \(appeared)")
            return
        }
        try server.call("replace", ["document": "notes.txt", "version": loser])
        try server.call("markResolved", ["document": "notes.txt", "versions": [loser]])
        _ = try server.notification("conflictResolved")
        try server.call("restore", ["document": "notes.txt", "version": current])
        try server.call("removeOtherVersions", ["document": "notes.txt"])
        try server.call("kv.set", ["key": "size", "value": 12])
        try server.call("kv.set", ["key": "blob", "value": "AAEC", "type": "data"])
        _ = try server.notification("keyValueChanged")
        try server.call("kv.get", ["key": "size"])
        try server.call("kv.list")
        try server.call("kv.remove", ["key": "blob"])
        #expect(try server.response("versions", ["document": "nosuch.txt"])["error"] != nil)
        // download and evict: on this full device download has nothing to do and evict is
        // refused; once origin keeps documents on demand and everything is synced, it evicts.
        let nothing = try server.call("download", ["documents": ["notes.txt"]])
        #expect(nothing["onDemand"] == .bool(false))
        #expect(try server.response("evict", ["documents": ["notes.txt"]])["error"] != nil)
        #expect(try alice.keepDocumentsOnDemand(from: "origin"))
        try server.call("sync", ["remotes": ["origin"]])
        let evicted = try server.call("evict", ["documents": ["notes.txt"]])
        #expect(evicted["documents"] == .array([.string("notes.txt")]))
        try server.call("ls", ["downloadStatus": "notDownloaded"])
        let back = try server.call("download", ["all": true])
        #expect(back["broughtBack"] == .array([.string("notes.txt")]))
        #expect(try server.shutdown() == 0)

        let shipped = try FileManager.default.contentsOfDirectory(atPath: ServeProcess.schemas.path)
            .filter { $0.hasSuffix(".schema.json") }.map { String($0.dropLast(".schema.json".count)) }
        #expect(Set(shipped) == server.schemasUsed)
        try expectFsckClean(alice.root)
    }
}
