import Foundation
import Testing

@testable import DocverKit

/// docver serve's requests as read from a line, and the notifications computed from two
/// states of a container (docs/PROTOCOL.md), without a server or a repository.
@Suite struct ProtocolMessageTests {
    private func request(_ line: String) throws(ProtocolError) -> ProtocolRequest {
        try ProtocolRequest(line: Data(line.utf8))
    }

    private func code(_ line: String) -> Int? {
        do {
            _ = try request(line)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func aRequestKeepsItsIdMethodAndNamedParams() throws {
        let read = try request(#"{"jsonrpc": "2.0", "id": 7, "method": "show", "params": {"document": "a.txt", "all": true}}"#)
        #expect(read.id == .number("7"))
        #expect(read.method == "show")
        #expect(try read.params.string("document") == "a.txt")
        #expect(try read.params.bool("all"))
        #expect(try read.params.optionalString("version") == nil)
        #expect(try request(#"{"jsonrpc": "2.0", "id": "x", "method": "status"}"#).id == .string("x"))
        #expect(try request(#"{"jsonrpc": "2.0", "method": "status"}"#).id == nil)  // a notification
    }

    @Test func malformedLinesGetTheirJSONRPCCodes() {
        #expect(code("{nope") == -32700)
        #expect(code("") == -32700)
        #expect(code(#"{"jsonrpc": "2.0", "id": 1, "method": "status"} trailing"#) == -32700)
        #expect(code("[1, 2]") == -32600)
        #expect(code("42") == -32600)
        #expect(code(#"{"id": 1, "method": "status"}"#) == -32600)
        #expect(code(#"{"jsonrpc": "1.0", "id": 1, "method": "status"}"#) == -32600)
        #expect(code(#"{"jsonrpc": "2.0", "id": 1, "method": 5}"#) == -32600)
        #expect(code(#"{"jsonrpc": "2.0", "id": [1], "method": "status"}"#) == -32600)
        #expect(code(#"{"jsonrpc": "2.0", "id": 1, "method": "show", "params": ["a.txt"]}"#) == -32602)
    }

    @Test func aWrongParamIsNamed() throws {
        let read = try request(
            #"{"jsonrpc": "2.0", "id": 1, "method": "resolve", "params": {"document": 5, "strategy": "sideways", "versions": [1]}}"#)
        for check in [
            { _ = try read.params.string("document") }, { _ = try read.params.string("keep") },
            { _ = try read.params.choice("strategy", ["merge"]) }, { _ = try read.params.strings("versions") },
        ] {
            #expect(throws: ProtocolError.self) { try check() }
        }
        do {
            _ = try read.params.string("document")
        } catch {
            #expect(error.code == -32602)
            #expect(error.message == #"resolve: "document" must be a string"#)
        }
    }

    @Test func documentKeyAndTrackingChangesBecomeNotifications() throws {
        let blob = try #require(ObjectID(hex: String(repeating: "a", count: 40)))
        let other = try #require(ObjectID(hex: String(repeating: "b", count: 40)))
        var before = ContainerState()
        before.documents = ["kept.txt": "1", "edited.txt": "2", "gone.txt": "3"]
        before.keyValues = ["theme": blob, "old": blob]
        before.tracking = ["refs/remotes/origin/docver/bob": blob]
        var after = before
        after.documents = ["kept.txt": "1", "edited.txt": "4", "new.txt": "5"]
        after.keyValues = ["theme": other, "fresh": blob]
        after.tracking = ["refs/remotes/origin/docver/bob": other]

        let lines = try after.description(from: before)
        #expect(
            lines == [
                #"{"jsonrpc":"2.0","method":"syncStateChanged","params":{"remotes":["origin"],"state":"fetched"}}"#,
                #"{"jsonrpc":"2.0","method":"documentChanged","params":{"documents":["#
                    + #"{"change":"modified","document":"edited.txt","previous":"2","version":"4"},"#
                    + #"{"change":"deleted","document":"gone.txt","previous":"3","version":null},"#
                    + #"{"change":"added","document":"new.txt","previous":null,"version":"5"}]}}"#,
                #"{"jsonrpc":"2.0","method":"keyValueChanged","params":{"keys":["fresh","old","theme"],"removed":["old"]}}"#,
            ])
        #expect(try after.description(from: after) == [])
    }
}

extension ContainerState {
    /// The notifications from `before` to this state, as the lines the server writes.
    fileprivate func description(from before: ContainerState) throws -> [String] {
        try before.changes(to: self).map { try ProtocolEncoding.line($0) }
    }
}
