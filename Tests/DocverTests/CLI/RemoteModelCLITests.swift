import DocverKit
import DocverTestSupport
import Foundation
import Testing

/// Random sequences of `remote add|remove|rename|set-url` against a model of the remotes:
/// after each command `remote --json` matches the model, and a command that fails exits 1
/// and leaves the configuration and the references exactly as they were.
@Suite struct RemoteModelCLITests {
    static let steps = ProcessInfo.processInfo.environment["DOCVER_REMOTE_STEPS"].flatMap(Int.init) ?? 40

    @Test(arguments: [UInt64(0x2E_01), 0x2E_02])
    func remoteCommandsFollowTheModel(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let scratch = try Scratch()
        let root = scratch.path("alice")
        #expect(try docver("init", root.path, "--device", "alice").status == 0)
        var existing: Set<String> = [try scratch.bareRemote("one.git").path, try scratch.bareRemote("two.git").path]
        let missing = (1...3).map { scratch.path("new-\($0).git").path }
        let network = "git://127.0.0.1:1/far.git"
        let names = ["origin", "backup", "nas", "bad name"]
        var model: [String: String] = [:]

        func state() throws -> String { try runGit(["config", "--local", "--list"], in: root) + refSnapshot(root) }
        func isValid(_ name: String) -> Bool { !name.contains(" ") }
        /// Whether the URL is accepted; a missing path given with --create becomes a repository.
        func check(_ url: String, create: Bool) -> Bool {
            if url == network || existing.contains(url) { return true }
            if create { existing.insert(url); return true }
            return false
        }

        for step in 0..<Self.steps {
            let name = names.randomElement(using: &random)!
            let url = (Array(existing) + missing + [network]).sorted().randomElement(using: &random)!
            let create = Bool.random(using: &random)
            let arguments: [String]
            let succeeds: Bool
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                arguments = ["remote", "add", name, url] + (create ? ["--create"] : [])
                succeeds = isValid(name) && model[name] == nil && check(url, create: create)
                if succeeds { model[name] = url }
            case 1:
                arguments = ["remote", Bool.random(using: &random) ? "remove" : "rm", name]
                succeeds = model.removeValue(forKey: name) != nil
            case 2:
                let newName = names.randomElement(using: &random)!
                arguments = ["remote", "rename", name, newName]
                succeeds = isValid(newName) && model[name] != nil && (name == newName || model[newName] == nil)
                if succeeds, name != newName { model[newName] = model.removeValue(forKey: name) }
            default:
                arguments = ["remote", "set-url", name, url] + (create ? ["--create"] : [])
                succeeds = model[name] != nil && check(url, create: create)
                if succeeds { model[name] = url }
            }
            let before = try state()
            let result = try docver(arguments, in: root)
            let context = "seed \(seed) step \(step): \(arguments)"
            if succeeds {
                #expect(result.status == 0, "\(context): \(result.stderr)")
            } else {
                #expect(result.status == 1, "\(context): exit \(result.status)")
                #expect(result.stderrLines.first?.hasPrefix("docver: error: ") == true, "\(context): \(result.stderr)")
                #expect(try state() == before, "\(context) changed the container")
            }
            let listed = try #require(try parseCLIJSON(docver("remote", "--json", in: root)) as? [[String: String]], "\(context)")
            #expect(listed.map { $0["name"]! } == model.keys.sorted(), "\(context)")
            #expect(Dictionary(uniqueKeysWithValues: listed.map { ($0["name"]!, $0["url"]!) }) == model, "\(context)")
            for path in missing {
                #expect(FileManager.default.fileExists(atPath: path) == existing.contains(path), "\(context): \(path)")
            }
        }
        try expectFsckClean(root)
    }
}
