import DocverKit
import DocverTestSupport
import Foundation
import Synchronization
import Testing

/// The key-value store between devices: change events with their keys and reasons, and
/// convergence of concurrent writes in every sync order, checked against a model of the rule.
@Suite struct KeyValueSyncTests {
    // MARK: Change events

    @Test func synchronizeReportsOtherDevicesKeysWithApplesReasons() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try KeyValueStore(container: try scratch.device("alice", remote: remote))
        let bob = try KeyValueStore(container: try scratch.device("bob", remote: remote))
        try alice.set(0x00FF00, forKey: "bg")
        #expect(try alice.synchronize() == nil, "a device's own writes are no external change")
        #expect(try bob.synchronize() == KeyValueStoreChange(keys: ["bg"], reason: .initialSync))
        #expect(bob.longLong(forKey: "bg") == 0x00FF00)

        try alice.set(1, forKey: "bg")
        try alice.set("x", forKey: "fg")
        try alice.synchronize()
        try bob.set(true, forKey: "own")
        #expect(
            try bob.synchronize() == KeyValueStoreChange(keys: ["bg", "fg"], reason: .serverChange),
            "bob's own key is not reported")
        try alice.removeObject(forKey: "fg")
        try alice.synchronize()
        #expect(try bob.synchronize() == KeyValueStoreChange(keys: ["fg"], reason: .serverChange), "a removal is a change")
        #expect(bob.object(forKey: "fg") == nil)
        #expect(try bob.synchronize() == nil)
    }

    @Test func aSyncPastTheQuotaReportsAQuotaViolationAndOnlyShrinkingWritesPass() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try KeyValueStore(container: try scratch.device("alice", remote: remote))
        let bob = try KeyValueStore(container: try scratch.device("bob", remote: remote))
        try bob.set(0, forKey: "first")
        try bob.synchronize()
        for index in 0..<600 { try alice.set(.int(Int64(index)), forKey: "a\(index)") }
        for index in 0..<600 { try bob.set(.int(Int64(index)), forKey: "b\(index)") }
        try alice.synchronize()
        let change = try #require(try bob.synchronize())
        #expect(change.reason == .quotaViolation)
        #expect(change.keys.count == 600 && change.keys.allSatisfy { $0.hasPrefix("a") })
        #expect(bob.usage.keys == 1201 && bob.usage.exceedsQuota)
        // Nothing was dropped: every value of both devices is there.
        #expect(bob.longLong(forKey: "a599") == 599 && bob.longLong(forKey: "b599") == 599)
        #expect(throws: DocverError.self) { try bob.set(1, forKey: "new") }
        try bob.removeObject(forKey: "b0")
        try bob.set(5, forKey: "b1")
        #expect(try bob.save() != nil)
    }

    @Test func theStreamDeliversEachArrivalOnceWithItsKeys() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let aliceContainer = try scratch.device("alice", remote: remote)
        let bobContainer = try scratch.device("bob", remote: remote)
        let alice = try KeyValueStore(container: aliceContainer)
        let bob = try KeyValueStore(container: bobContainer)
        let stream = bob.changes(pollInterval: .milliseconds(20))
        // One consumer task; each change is handed over with a deadline, so a missed change
        // fails the test instead of hanging it.
        let received = Received()
        let consumer = Task { for await change in stream { received.changes.withLock { $0.append(change) } } }
        defer { consumer.cancel() }
        func change(_ number: Int) async throws -> KeyValueStoreChange? {
            for _ in 0..<3000 {
                if let change = received.changes.withLock({ $0.count > number ? $0[number] : nil }) { return change }
                try await Task.sleep(for: .milliseconds(20))
            }
            Issue.record("change \(number + 1) did not arrive within 60 seconds")
            return nil
        }

        try alice.set(0x00FF00, forKey: "bg")
        try alice.synchronize()
        try bobContainer.sync()  // another process's sync would do the same: the stream watches the branch
        let first = try await change(0)
        #expect(first == KeyValueStoreChange(keys: ["bg"], reason: .initialSync))
        #expect(bob.longLong(forKey: "bg") == 0x00FF00, "the store's values are up to date when the change arrives")

        try bob.set("mine", forKey: "own")
        try bob.synchronize()  // bob's own write: nothing for bob's stream
        try alice.set(2, forKey: "bg")
        try alice.synchronize()
        try bob.synchronize()
        let second = try await change(1)
        #expect(second == KeyValueStoreChange(keys: ["bg"], reason: .serverChange))
        // Each arrival is delivered once: the stream is in order, so a third arrival, once it
        // is delivered, shows that nothing came between (no fixed wait for "nothing more").
        try alice.set("later", forKey: "fg")
        try alice.synchronize()
        try bob.synchronize()
        let third = try await change(2)
        #expect(third == KeyValueStoreChange(keys: ["fg"], reason: .serverChange))
        #expect(received.changes.withLock { $0.count } == 3, "each arrival is delivered once")
    }

    /// The changes a stream delivered, shared with the task that reads the stream.
    final class Received: Sendable {
        let changes = Mutex<[KeyValueStoreChange]>([])
    }

    // MARK: Convergence

    /// A model of the per-key rule as integration applies it. Every write records what its
    /// device knew when it wrote it (its causal past). Each device branch holds, per key, the
    /// write that is current there; a sync joins this device's branch with every branch on the
    /// remote: per key, a write another joined write saw drops out, and of the rest a value
    /// beats a removal, then the later date, the greater device id, the greater commit id. A
    /// write that lost a join is not current anywhere after it (it stays in history).
    struct Model {
        struct Write {
            var id: Int
            var key: String
            var value: PropertyListValue?
            var date: Int
            var device: String
            var commit: String
            var seen: Set<Int>
        }

        var writes: [Write] = []
        /// Device → the writes its branch holds (its causal past).
        var knowledge: [String: Set<Int>] = [:]
        /// Device → key → the write current on its branch.
        var branches: [String: [String: Int]] = [:]
        /// Device → its branch as last pushed to the remote.
        var pushed: [String: [String: Int]] = [:]

        mutating func record(_ write: Write) {
            writes.append(write)
            knowledge[write.device, default: []].insert(write.id)
            branches[write.device, default: [:]][write.key] = write.id
        }

        /// The rule among the current writes of the joined branches.
        func join(_ candidates: Set<Int>) -> Int {
            let remaining = candidates.filter { id in !candidates.contains { writes[$0].seen.contains(id) } }
            let present = remaining.filter { writes[$0].value != nil }
            let pool = present.isEmpty ? remaining : present
            return pool.max { (writes[$0].date, writes[$0].device, writes[$0].commit) < (writes[$1].date, writes[$1].device, writes[$1].commit) }!
        }

        /// A sync of `device`: join its branch with every pushed branch, then push.
        mutating func sync(_ device: String) {
            let heads = [branches[device, default: [:]]] + Array(pushed.values)
            var joined: [String: Int] = [:]
            for key in Set(heads.flatMap(\.keys)) { joined[key] = join(Set(heads.compactMap { $0[key] })) }
            branches[device] = joined
            for other in pushed.keys { knowledge[device, default: []].formUnion(knowledge[other + "@remote", default: []]) }
            knowledge[device + "@remote"] = knowledge[device, default: []]
            pushed[device] = joined
        }

        /// The value `device` must hold for `key`.
        func expected(_ key: String, on device: String) -> PropertyListValue? {
            branches[device]?[key].flatMap { writes[$0].value }
        }
    }

    final class World {
        let scratch: Scratch
        let containers: [Container]
        let stores: [KeyValueStore]
        var model = Model()
        var random: SeededRandom
        var log: [String] = []
        let keys = ["bg", "fg", "size", "theme"]

        init(devices: Int, seed: UInt64) throws {
            let scratch = try Scratch("kv-\(devices)-\(seed)")
            let remote = try scratch.bareRemote()
            let names = ["alice", "bob", "carol"].prefix(devices)
            let containers = try names.map { try scratch.device($0, remote: remote) }
            self.scratch = scratch
            self.containers = containers
            stores = try containers.map { try KeyValueStore(container: $0) }
            random = SeededRandom(seed: seed)
        }

        /// Random sets and removals on one device, saved as one save (recorded in the model).
        func write(on index: Int) throws {
            let store = stores[index], device = containers[index].device.id
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let key = keys.randomElement(using: &random)!
                if Int.random(in: 0..<5, using: &random) == 0 {
                    try store.removeObject(forKey: key)
                    log.append("\(device) rm \(key)")
                } else {
                    let value: PropertyListValue =
                        Bool.random(using: &random)
                        ? .int(Int64.random(in: 0...3, using: &random))
                        : .string(device + String(Int.random(in: 0...99, using: &random)))
                    try store.set(value, forKey: key)
                    log.append("\(device) set \(key) \(value.jsonText)")
                }
            }
            try recordSave(on: index)
        }

        func sync(_ index: Int) throws {
            let device = containers[index].device.id
            try stores[index].synchronize()
            model.sync(device)
            log.append("\(device) sync")
        }

        /// Every device holds the model's value for every key, and the same bytes.
        func check(_ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            for (index, store) in stores.enumerated() {
                for key in keys {
                    let expected = model.expected(key, on: containers[index].device.id)
                    #expect(
                        store.object(forKey: key) == expected,
                        "\(context): \(containers[index].device.id) holds \(key) = \(store.object(forKey: key)?.jsonText ?? "nil"), the rule gives \(expected?.jsonText ?? "nil")\n\(log.joined(separator: "\n"))",
                        sourceLocation: sourceLocation)
                }
                #expect(try containers[index].conflicts().isEmpty, "\(context): no conflict is left open", sourceLocation: sourceLocation)
            }
            let trees = try containers.map { try runProcess("/usr/bin/git", ["rev-parse", "HEAD:.docver"], in: $0.root).stdout }
            #expect(Set(trees).count == 1, "\(context): the same bytes on every device", sourceLocation: sourceLocation)
        }

        func syncEveryone() throws {
            for _ in 0..<2 { for index in containers.indices { try sync(index) } }
        }
    }

    /// Every device writes the same key and one of its own, then the devices sync in each
    /// possible order: all end with the rule's value.
    @Test(arguments: [2, 3])
    func concurrentWritesConvergeInEverySyncOrder(devices: Int) throws {
        func permutations(_ items: [Int]) -> [[Int]] {
            items.count <= 1
                ? [items]
                : items.indices.flatMap { index in
                    var rest = items
                    let first = rest.remove(at: index)
                    return permutations(rest).map { [first] + $0 }
                }
        }
        for (number, order) in permutations(Array(0..<devices)).enumerated() {
            let world = try World(devices: devices, seed: UInt64(number))
            for index in 0..<devices {
                let device = world.containers[index].device.id
                try world.stores[index].set(.string("\(device)'s colour"), forKey: "bg")
                try world.stores[index].set(.int(Int64(index)), forKey: "fg")
                try world.stores[index].removeObject(forKey: "size")
                world.log.append("\(device) writes bg, fg")
                try world.recordSave(on: index)
            }
            for index in order { try world.sync(index) }
            try world.syncEveryone()
            try world.check("order \(order)")
        }
    }

    static let seeds: [UInt64] = {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["DOCVER_KV_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = environment["DOCVER_KV_SEEDS"].flatMap(Int.init) ?? 3
        return (1...UInt64(max(1, count))).map { $0 }
    }()

    /// Random writes and syncs on two or three devices sharing a remote; after everyone has
    /// synced, every device holds the model's value of every key. `DOCVER_KV_SEEDS=<n>` runs
    /// more seeds, `DOCVER_KV_SEED=<n>` one.
    @Test(arguments: [2, 3], seeds)
    func randomWritesAndSyncsConvergeToTheRulesValues(devices: Int, seed: UInt64) throws {
        let world = try World(devices: devices, seed: seed &* 31 &+ UInt64(devices))
        for _ in 0..<14 {
            let index = Int.random(in: 0..<devices, using: &world.random)
            if Bool.random(using: &world.random) { try world.write(on: index) } else { try world.sync(index) }
        }
        try world.syncEveryone()
        try world.check("seed \(seed), \(devices) devices")
    }
}

extension KeyValueSyncTests.World {
    /// Saves what a test set by hand on one device and records it in the model.
    func recordSave(on index: Int) throws {
        guard let commit = try stores[index].save() else { return }
        let root = containers[index].root, device = containers[index].device.id
        let date = Int(try runGit(["show", "-s", "--format=%at", commit], in: root).trimmingCharacters(in: .whitespacesAndNewlines))!
        let files = try runGit(["diff-tree", "--no-commit-id", "--name-only", "-r", "--root", commit], in: root)
            .split(separator: "\n").map(String.init)
        let seen = model.knowledge[device, default: []]
        for file in files {
            let key = String(file.dropFirst(".docver/kv/".count).dropLast(".json".count))
            model.record(
                KeyValueSyncTests.Model.Write(
                    id: model.writes.count, key: key, value: stores[index].object(forKey: key),
                    date: date, device: device, commit: commit, seen: seen))
        }
    }
}
