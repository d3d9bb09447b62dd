import DocverKit
import DocverTestSupport
import Foundation
import Testing

/// The crash harness: runs the real `docver` binary for save, sync, integrate, resolve and
/// restore, SIGKILLs it at a seeded random moment, and checks what the next command finds:
/// `git fsck --strict` clean, every commit seen before still reachable, the next commands
/// succeed, and no current version (nor any file in the working tree) holds content nobody
/// saved — a torn or empty file taken for an edit would.
///
/// Quick profile in the normal suite; `DOCVER_CRASH_KILLS=60` (and `DOCVER_CRASH_SEED`) for
/// the long one.
@Suite(.serialized) struct CrashRecoveryTests {
    static let kills = ProcessInfo.processInfo.environment["DOCVER_CRASH_KILLS"].flatMap(Int.init) ?? 10
    static let seed = ProcessInfo.processInfo.environment["DOCVER_CRASH_SEED"].flatMap(UInt64.init) ?? 20_261_123

    enum Operation: CaseIterable { case save, sync, integrate, resolve, restore }

    /// Alice as a full device; as a device on demand; as a full device whose every save
    /// writes its files into a pack of its own (`docver.saveUnpackLimit 1`), so kills land
    /// in the pack's writing and installation too.
    enum Mode: CaseIterable, CustomStringConvertible {
        case full, onDemand, packedSaves
        var description: String {
            switch self {
            case .full: ""
            case .onDemand: " on demand"
            case .packedSaves: " with packed saves"
            }
        }
    }

    /// Everything a device wrote, so a file's contents can be checked against it.
    final class Oracle {
        var contents: Set<Data> = []
        var counter = 0

        /// Unique contents, large enough that writing them takes a while (a wide kill window).
        func make(_ label: String, random: inout SeededRandom) -> Data {
            counter += 1
            let line = "\(label) \(counter) " + String(repeating: "x", count: 60) + "\n"
            let data = Data(String(repeating: line, count: Int.random(in: 500...4000, using: &random)).utf8)
            contents.insert(data)
            return data
        }
    }

    /// Runs on a thread of its own: the harness waits on processes for many seconds, which
    /// would hold one of the cooperative pool's two threads that the async tests need (their
    /// live queries timed out under the full suite). A failed expectation on this thread is
    /// reported as an issue of an unknown test: it still fails the run.
    /// The harness in each ``Mode``: on demand (`clone --on-demand`), kills land in git's
    /// fetches and in the fetch of an older version's contents too; with packed saves, in the
    /// writing and installation of a save's pack.
    @Test(arguments: Mode.allCases)
    func killedCommandsNeverLoseASaveNorSaveATornFile(mode: Mode) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let thread = Thread {
                do {
                    try self.runHarness(mode: mode)
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    private func runHarness(mode: Mode) throws {
        let onDemand = mode == .onDemand
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let bob = try scratch.device("bob", remote: remote)
        var random = SeededRandom(seed: Self.seed)
        let oracle = Oracle()
        let documents = ["a.txt", "b.txt", "notes/c.txt", "notes/d.txt"]
        // On demand, bob saves the first versions, and alice joins with their contents only.
        let first = onDemand ? bob : try scratch.device("alice", remote: remote)
        if mode == .packedSaves { try first.git(["config", "docver.saveUnpackLimit", "1"]) }
        for document in documents {
            try first.write(String(decoding: oracle.make(first.device.id, random: &random), as: UTF8.self), to: document)
        }
        _ = try first.save()
        try first.sync()
        let alice =
            onDemand
            ? try Container.clone(from: remote.path, to: scratch.path("alice"), device: Device(id: "alice"), onDemand: true).container
            : first
        try bob.sync()

        var killed = 0
        // How long each command took when it was not killed: kills land within that window.
        var duration: [Operation: Double] = [:]
        var landings: [Operation: Landings] = [:]
        for round in 0..<Self.kills {
            let operation = Operation.allCases.randomElement(using: &random)!
            let arguments = try prepare(operation, alice: alice, bob: bob, documents: documents, oracle: oracle, random: &random)
            let before = try reachableCommits(alice.root)
            let unfinishedPacks = Landings.unfinishedPacks(alice.root)
            // Every other round waits for the write intent to appear and kills within the next
            // few milliseconds. The window where a torn write could be taken for an edit is a
            // few milliseconds at the end of a command that mostly starts up and fetches: kills
            // at a random moment of the whole command landed in it 3 times in 60.
            let targeted = round % 2 == 1
            let delay =
                targeted
                ? Double.random(in: 0...0.005, using: &random)
                : Double.random(in: 0...(duration[operation] ?? 0.3), using: &random)
            let trigger = targeted ? alice.root.path + "/.git/docver/intent" : nil
            let (wasRunning, elapsed) = try Self.runAndKill(arguments, in: alice.root, after: delay, startingWhenExists: trigger)
            if wasRunning {
                killed += 1
                landings[operation, default: Landings()].record(alice.root, targeted: targeted, unfinishedPacksBefore: unfinishedPacks)
            } else if !targeted {
                duration[operation] = elapsed
            }
            try check(
                alice, before: before, oracle: oracle,
                context:
                    "round \(round)\(mode) (\(operation), killed \(delay) s after \(targeted ? "the intent appeared" : "it started"), seed \(Self.seed))"
            )
        }
        print("crash harness: \(killed) of \(Self.kills) commands killed while running (seed \(Self.seed))")
        for operation in Operation.allCases {
            guard let landed = landings[operation] else { continue }
            let seconds = duration[operation].map { String(format: "%.2f", $0) } ?? "?"
            print("crash harness: \(operation) (\(seconds) s when not killed): \(landed)")
        }
        // The kill window is random; most rounds must have hit a running command.
        #expect(killed >= Self.kills / 3, "only \(killed) of \(Self.kills) commands were still running when killed")
    }

    /// Sets up work for `operation` and returns the docver arguments that perform it.
    private func prepare(
        _ operation: Operation, alice: Container, bob: Container, documents: [String],
        oracle: Oracle, random: inout SeededRandom
    ) throws -> [String] {
        func edit(_ device: Container, _ label: String, count: Int) throws {
            for document in documents.shuffled(using: &random).prefix(count) {
                try device.write(String(decoding: oracle.make(label, random: &random), as: UTF8.self), to: document)
            }
        }
        switch operation {
        case .save:
            try edit(alice, "alice", count: 4)
            return ["save"]
        case .sync:
            try bob.sync()
            try edit(bob, "bob", count: 4)
            try bob.sync()
            return ["sync"]
        case .integrate:
            try bob.sync()
            try edit(bob, "bob", count: 4)
            try bob.sync()
            try runGit(["fetch", "-q", "origin"], in: alice.root)
            return ["integrate"]
        case .resolve:
            let document = documents.randomElement(using: &random)!
            try bob.sync()
            try alice.sync()
            try alice.write(String(decoding: oracle.make("alice", random: &random), as: UTF8.self), to: document)
            _ = try alice.save()
            try bob.write(String(decoding: oracle.make("bob", random: &random), as: UTF8.self), to: document)
            _ = try bob.save()
            try bob.sync()
            try alice.sync()
            guard try !alice.conflicts().isEmpty else { return ["status"] }
            return ["resolve", "--all", "--strategy", "latest-date"]
        case .restore:
            let document = documents.randomElement(using: &random)!
            let versions = try alice.history(of: DocumentPath(document)).filter { !$0.isDeletion }
            guard versions.count > 1, let old = versions.last else { return ["status"] }
            return ["restore", document, old.id]
        }
    }

    /// Where the kills of one operation landed, read from what each left behind: a write
    /// intent (killed between recording the write and finishing it), temporary files (killed
    /// while writing a file), a lock file.
    struct Landings: CustomStringConvertible {
        var kills = 0, targeted = 0, intents = 0, temporaryFiles = 0, locks = 0, packs = 0

        /// The packs being written when a process died (`tmp_pack_docver_*`; `git gc` removes
        /// them after their expiry).
        static func unfinishedPacks(_ root: URL) -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path + "/.git/objects/pack")) ?? []
            return names.filter { $0.hasPrefix("tmp_pack_docver_") }.count
        }

        mutating func record(_ root: URL, targeted isTargeted: Bool, unfinishedPacksBefore: Int) {
            kills += 1
            if Self.unfinishedPacks(root) > unfinishedPacksBefore { packs += 1 }
            if isTargeted { targeted += 1 }
            let git = root.path + "/.git/"
            if FileManager.default.fileExists(atPath: git + "docver/intent") { intents += 1 }
            if ["index.lock", "refs/heads/docver/alice.lock"].contains(where: { FileManager.default.fileExists(atPath: git + $0) }) { locks += 1 }
            let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
            if files.contains(where: { !$0.hasPrefix(".git/") && $0.contains(".docver-tmp-") }) { temporaryFiles += 1 }
        }

        var description: String {
            "\(kills) killed (\(targeted) once the intent appeared); left a write intent \(intents), temporary files \(temporaryFiles), a lock \(locks), a pack half written \(packs)"
        }
    }

    /// Runs docver and SIGKILLs it `delay` seconds after it started, or (with `trigger`) after
    /// the file `trigger` appeared. Returns whether it was still running, and how long it ran.
    static func runAndKill(
        _ arguments: [String], in directory: URL, after delay: Double,
        startingWhenExists trigger: String? = nil
    ) throws -> (Bool, Double) {
        let process = Process()
        // DOCVER_CRASH_BINARY runs the harness against another build (to compare versions).
        process.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.environment["DOCVER_CRASH_BINARY"] ?? docverExecutable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let start = Date()
        try process.run()
        var clockStart: Date? = trigger == nil ? start : nil
        while process.isRunning {
            if clockStart == nil, let trigger, access(trigger, F_OK) == 0 { clockStart = Date() }
            if let clockStart, Date().timeIntervalSince(clockStart) >= delay { break }
            usleep(trigger == nil ? 500 : 100)
        }
        let running = process.isRunning
        if running { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (running, Date().timeIntervalSince(start))
    }

    private func reachableCommits(_ directory: URL) throws -> Set<String> {
        Set(try runGit(["rev-list", "--all", "--reflog"], in: directory).split(separator: "\n").map(String.init))
    }

    private func check(_ alice: Container, before: Set<String>, oracle: Oracle, context: String) throws {
        // The next command works, and finishes whatever the killed one left.
        let status = try docver("status", in: alice.root)
        #expect(status.status == 0, "status failed after \(context): \(status.stderr)")
        try expectFsckClean(alice.root)
        let after = try reachableCommits(alice.root)
        let lost = before.subtracting(after)
        #expect(lost.isEmpty, "commits lost after \(context): \(lost)")
        for lock in ["index.lock", "refs/heads/docver/alice.lock"] {
            #expect(!FileManager.default.fileExists(atPath: alice.root.path + "/.git/" + lock), "\(lock) left after \(context)")
        }
        // Nor in the staging folder, where a checkout makes them.
        let staged = (try? FileManager.default.contentsOfDirectory(atPath: alice.root.path + "/.git/docver/staging")) ?? []
        #expect(staged.isEmpty, "temporary files are left in .git/docver/staging after \(context): \(staged)")
        // No file in the working tree holds content nobody saved (a torn write taken for an edit).
        for (path, data) in try alice.workingTreeFiles() {
            #expect(!path.contains(".docver-tmp-"), "a temporary file is left in the working tree after \(context): \(path)")
            #expect(oracle.contents.contains(data), "\(path) holds content nobody wrote after \(context) (\(data.count) bytes)")
        }
        let sync = try docver("sync", in: alice.root)
        #expect(sync.status == 0, "sync failed after \(context): \(sync.stderr)")
        for (path, contents) in try alice.currentContents() {
            guard case let .flat(data) = contents else { continue }
            #expect(oracle.contents.contains(data), "the current version of \(path) is content nobody saved after \(context)")
        }
        #expect(try alice.status().changed.isEmpty, "status is not clean after a sync, \(context)")
        let gitStatus = try runGit(["status", "--porcelain"], in: alice.root)
        #expect(gitStatus.isEmpty, "git status is not clean after a sync, \(context): \(gitStatus)")
    }
}

/// A clone killed at any moment leaves nothing a second clone into the same place trips on:
/// the clone is made in a hidden sibling and renamed into place at the end, and the next
/// clone removes what a killed one left there. A kill can land between the rename and the
/// process's exit: the container is then whole, and a second clone is refused.
@Suite(.serialized) struct KilledCloneTests {
    @Test func aKilledCloneLeavesNothingASecondCloneCannotUse() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        var random = SeededRandom(seed: CrashRecoveryTests.seed)
        for index in 0..<12 {
            let line = "document \(index) " + String(repeating: "y", count: 70) + "\n"
            try alice.write(String(repeating: line, count: Int.random(in: 1000...3000, using: &random)), to: "d\(index).txt")
        }
        _ = try alice.save()
        try alice.sync()
        let expected = try alice.workingTreeFiles()

        func clone(_ destination: URL, device: String) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: docverExecutable)
            process.arguments = ["clone", remote.path, destination.path, "--device", device]
            process.currentDirectoryURL = scratch.url
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        // How long a clone takes here: the kills land within that window.
        let start = Date()
        let whole = try clone(scratch.path("measure"), device: "measure")
        whole.waitUntilExit()
        #expect(whole.terminationStatus == 0)
        let duration = Date().timeIntervalSince(start)

        var killed = 0
        for round in 0..<CrashRecoveryTests.kills {
            let destination = scratch.path("carol\(round)")
            let delay = Double.random(in: 0...duration, using: &random)
            let process = try clone(destination, device: "carol\(round)")
            let deadline = Date().addingTimeInterval(delay)
            while process.isRunning && Date() < deadline { usleep(500) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killed += 1
            }
            process.waitUntilExit()
            let context = "round \(round), killed \(delay) s after it started (seed \(CrashRecoveryTests.seed))"

            // The rename into place is the clone's last step: a clone that reached it leaves a
            // whole container (one that finished, or one killed between the rename and its
            // exit), and cloning again is refused; one killed before it leaves nothing there.
            let renamed = FileManager.default.fileExists(atPath: destination.appendingPathComponent(".git").path)
            if process.terminationStatus == 0 && process.terminationReason == .exit {
                #expect(renamed, "\(context): a clone that succeeded left no container")
            }
            let again = try docver("clone", remote.path, destination.path, "--device", "carol\(round)", in: scratch.url)
            if renamed {
                #expect(again.status == 1, "\(context): \(again.stderr)")
                #expect(again.stderr.contains("exists and is not empty"), "\(context): \(again.stderr)")
            } else {
                #expect(again.status == 0, "\(context): \(again.stderr)")
            }
            let container = try Container(at: destination)
            #expect(try container.remotes().map(\.name) == ["origin"], "\(context)")
            #expect(try container.workingTreeFiles() == expected, "\(context)")
            let status = try docver("status", in: destination)
            #expect(status.status == 0, "\(context): \(status.stderr)")
            let synced = try docver("sync", in: destination)
            #expect(synced.status == 0, "\(context): \(synced.stderr)")
            try expectFsckClean(destination)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter { $0.contains("docver-clone") }
            #expect(leftovers.isEmpty, "\(context): \(leftovers)")
        }
        print("killed clones: \(killed) of \(CrashRecoveryTests.kills) were still running when killed")
        #expect(killed >= CrashRecoveryTests.kills / 3, "only \(killed) of \(CrashRecoveryTests.kills) clones were still running when killed")
    }
}
