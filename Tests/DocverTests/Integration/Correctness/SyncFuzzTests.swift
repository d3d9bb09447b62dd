import DocverKit
import Foundation
import Testing

/// Issue 11's model-based fuzz test: random sessions of 3 to 5 devices sharing one bare
/// remote, checked at the end against a model of everything the harness saved and decided.
///
/// Each step is one random action on one device: edit, create, delete or rename a document,
/// swap the folder `notes` for a file of the same name (and back), save everything or one
/// document, sync, a crossed `git fetch` of one other device's branch followed by
/// `integrate()`, a resolution of a document in conflict (replace, mark-resolved,
/// remove-other-versions, latest-date, merge, choose), the same conflict resolved on several
/// devices before they sync, a plain `git commit -am` (a save of that device through the
/// commit hook), or a plain `git merge -s ours` of another device's branch (a resolution by a
/// git user that drops the other side). Every step checks its own postconditions; at the end
/// every device syncs until
/// nothing moves and the oracle (Support/FuzzModel.swift) checks: (1) the devices converged,
/// (2) no saved version was lost and every save is reachable, (3) the working trees hold the
/// current versions, (4) `git fsck --strict` is clean, (5) each conflict version is listed once
/// and the listing is the unresolved set of the trailers and of plain merges, (6) concurrent resolutions of the
/// same conflict do not drop a decision in silence (issue 11 item 6).
///
/// Profiles: 12 seeds × 40 steps by default (CI); `DOCVER_FUZZ_LONG=1` runs 300 seeds × 120
/// steps. `DOCVER_FUZZ_SEED=<n>` runs one seed, `DOCVER_FUZZ_STEPS=<n>` and
/// `DOCVER_FUZZ_SEEDS=<count>` scale a run, `DOCVER_FUZZ_TRACE=1` prints every seed's step log,
/// `DOCVER_FUZZ_KEEP=<dir>` keeps the devices of a failing seed. A failure names its seed, the
/// command that replays it and the step log. A replay repeats the same random choices; commit
/// dates come from the clock, so an outcome that hinges on which of two saves was later can
/// differ, and the step log says what happened in the failing run.
@Suite struct SyncFuzzTests {
    struct Profile: Sendable {
        var seeds: [UInt64]
        var steps: Int
    }

    static let profile: Profile = {
        let environment = ProcessInfo.processInfo.environment
        let long = environment["DOCVER_FUZZ_LONG"] == "1"
        let steps = environment["DOCVER_FUZZ_STEPS"].flatMap(Int.init) ?? (long ? 120 : 40)
        if let seed = environment["DOCVER_FUZZ_SEED"].flatMap(UInt64.init) { return Profile(seeds: [seed], steps: steps) }
        let count = environment["DOCVER_FUZZ_SEEDS"].flatMap(Int.init) ?? (long ? 300 : 12)
        return Profile(seeds: (1...UInt64(max(1, count))).map { $0 }, steps: steps)
    }()

    @Test(arguments: profile.seeds)
    func randomSessionsConvergeAndLoseNothing(seed: UInt64) async throws {
        let world = try FuzzWorld(seed: seed, steps: Self.profile.steps)
        await world.run()
    }

    /// Sessions of the long profile that once failed, replayed in every run. Seed 20: a
    /// `replace` of a document whose current version an open conflict record named made that
    /// version a new conflict version. Seed 30: a decision keeping the file `notes`, met by a
    /// folder of that name, was dropped in silence. (Replays follow the clock for commit
    /// dates, so each reproduced its failure here without the fix, not necessarily everywhere.)
    @Test(arguments: [UInt64(20), 30])
    func longProfileFindingsStayFixed(seed: UInt64) async throws {
        let world = try FuzzWorld(seed: seed, steps: 120)
        await world.run()
    }

    /// The oracle can fail: given what a real session's devices showed at the end, altered in
    /// a copy the way a bug would alter it, it reports the damage.
    @Test func theOracleNoticesWhatABugWouldDo() async throws {
        for seed: UInt64 in 1...12 {
            let world = try FuzzWorld(seed: seed, steps: 40, recordsIssues: false)
            await world.run()
            guard let observation = world.observation,
                  let (document, listed) = observation.listing.sorted(by: { $0.key < $1.key }).first(where: { !$0.value.isEmpty })
            else { continue }
            let model = world.model
            let lostBefore = Set(FuzzOracle.lostVersions(model, observation).map { "\($0.commit) \($0.document)" })

            // A conflict version missing from the listing (and from the trailers' unresolved
            // set, as if it had never been recorded): some version is lost.
            var reported = false
            for version in listed {
                var dropped = observation
                dropped.listing[document] = listed.filter { $0.id != version.id }
                dropped.unresolvedByTrailers[document]?.remove(version.id)
                let lost = Set(FuzzOracle.lostVersions(model, dropped).map { "\($0.commit) \($0.document)" })
                if !lost.subtracting(lostBefore).isEmpty { reported = true }
            }
            #expect(reported, "seed \(seed): dropping a conflict version of \(document) from the listing lost no version")

            // The listing disagreeing with the trailers.
            var disagreeing = observation
            disagreeing.listing[document] = Array(listed.dropFirst())
            #expect(FuzzOracle.check(model, disagreeing).contains { $0.message.contains("the trailers leave") })

            // A conflict version listed twice.
            var twice = observation
            twice.listing[document] = listed + [listed[0]]
            #expect(FuzzOracle.check(model, twice).contains { $0.message.contains("listed twice") })

            // A document's current state replaced by contents nobody saved: its current
            // version is lost (for a document whose current contents appear nowhere else).
            let replaced = observation.current.sorted { $0.key < $1.key }.contains { document, state in
                guard !state.isAbsent else { return false }
                var garbled = observation
                garbled.current[document] = .flat(Data("never saved\n".utf8))
                let lost = Set(FuzzOracle.lostVersions(model, garbled).map { "\($0.commit) \($0.document)" })
                return !lost.subtracting(lostBefore).isEmpty
            }
            #expect(replaced, "seed \(seed): replacing a current state lost no version")
            return
        }
        Issue.record("none of seeds 1...12 ended with a conflict version listed")
    }

    /// Check (6) can fail: in a real session where two devices decided the same conflict
    /// differently, a copy of what the devices showed, altered so that the document's current
    /// state is something nobody decided and nothing is listed, is reported as a decision
    /// dropped in silence.
    @Test func theOracleNoticesADroppedDecision() async throws {
        for seed: UInt64 in 1...24 {
            let world = try FuzzWorld(seed: seed, steps: 40, recordsIssues: false)
            await world.run()
            guard let observation = world.observation else { continue }
            let model = world.model
            let decisions = model.decisions
            var contested: FuzzDecision?
            for i in decisions.indices where contested == nil {
                for j in decisions.indices where j > i {
                    let (a, b) = (decisions[i], decisions[j])
                    guard a.document == b.document, a.device != b.device, a.conflict == b.conflict, a.result != b.result
                    else { continue }
                    guard !observation.graph.isAncestorOrSelf(a.commit, of: b.commit),
                          !observation.graph.isAncestorOrSelf(b.commit, of: a.commit) else { continue }
                    contested = a
                    break
                }
            }
            guard let decision = contested else { continue }
            let before = FuzzOracle.droppedDecisions(model, observation).count
            var altered = observation
            altered.current[decision.document] = .flat(Data("nobody decided this\n".utf8))
            altered.listing[decision.document] = []
            altered.setAside[decision.document] = []
            let after = FuzzOracle.droppedDecisions(model, altered)
            let named = after.contains { failure in failure.document == decision.document }
            #expect(after.count > before && named,
                    "seed \(seed): \(decision.document)'s decisions vanished and check (6) said nothing")
            return
        }
        Issue.record("none of seeds 1...24 had two devices decide one conflict differently")
    }
}

/// One fuzz session: the devices, the random source, the model and the step log.
final class FuzzWorld {
    let seed: UInt64
    let steps: Int
    private var random: SplitMix64
    private let scratch: Scratch
    private let remote: URL
    private(set) var devices: [Container] = []
    private(set) var model = FuzzModel()
    private let trees = GitTrees()
    private var log: [String] = []
    /// Per device: documents changed in the working tree and not saved yet, with the state
    /// the harness left them in.
    private var pending: [String: [String: FuzzState]] = [:]
    /// Commits already seen on some device.
    private var known: Set<String> = []
    private var step = -1
    private var token = 0
    private var issues = 0
    private var stats: [String: Int] = [:]
    /// Where a plain folder was first shown as a version of the file `notes` (reported once).
    private var folderShownAsVersion: String?
    /// The operation running (for errors that end a session).
    private var lastOperation = ""

    /// False for a session run to exercise the oracle: failures are collected, not recorded.
    let recordsIssues: Bool
    /// What the converged devices showed (after a session that got that far).
    private(set) var observation: FuzzObservation?
    private(set) var failures: [String] = []

    init(seed: UInt64, steps: Int, recordsIssues: Bool = true) throws {
        self.seed = seed
        self.steps = steps
        self.recordsIssues = recordsIssues
        random = SplitMix64(seed: seed)
        scratch = try Scratch("fuzz\(seed)")
        remote = try scratch.bareRemote()
        let ids = ["alice", "bob", "carol", "dave", "erin"]
        let count = Int.random(in: 3...5, using: &random)
        devices = try ids.prefix(count).map { try scratch.device($0, remote: remote) }
    }

    // MARK: Running

    func run() async {
        note("seed \(seed): \(devices.count) devices (\(devices.map(\.device.id).joined(separator: ", "))), \(steps) steps")
        do {
            try await setUp()
            for index in 0..<steps {
                step = index
                try await randomStep()
            }
            step = steps
            try await quiesce()
            try checkOracle()
        } catch {
            fail("step \(step) threw: \(error)")
        }
        if ProcessInfo.processInfo.environment["DOCVER_FUZZ_TRACE"] != nil {
            print(header() + "\n" + log.joined(separator: "\n"))
        }
    }

    /// The first device saves a few documents; everyone syncs.
    private func setUp() async throws {
        let first = devices[0]
        for document in ["a.txt", "b.txt", "notes/d.txt", "p.imagenotes"] { try create(document, on: first) }
        try await operate(first, "save the first documents", saving: nil) { _ = try first.save(nil, message: "first"); return "" }
        for device in devices { try await sync(device) }
    }

    private func randomStep() async throws {
        let device = devices[Int.random(in: 0..<devices.count, using: &random)]
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<24: try await edit(on: device)
        case 24..<29: try await createStep(on: device)
        case 29..<33: try await deleteStep(on: device)
        case 33..<37: try await renameStep(on: device)
        case 37..<40: try await swapStep(on: device)
        case 40..<42: try await adoptStep(on: device)
        case 42..<46: try await saveAll(device)
        case 46..<49: try await saveOne(device)
        case 49..<66: try await sync(device)
        case 66..<72: try await crossedIntegrate(device)
        case 72..<83: try await resolveStep(on: device)
        case 83..<90: try await multiResolveStep()
        case 90..<97: try await plainCommit(device)
        case 97..<99: try await plainMerge(device)
        default: try await sync(device)
        }
    }

    // MARK: Working-tree actions

    private func url(_ device: Container, _ path: String) -> URL { device.root.appendingPathComponent(path) }

    private func kind(_ device: Container, _ path: String) -> (file: Bool, directory: Bool) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url(device, path).path, isDirectory: &isDirectory) else { return (false, false) }
        return (!isDirectory.boolValue, isDirectory.boolValue)
    }

    /// The documents present in a device's working tree.
    private func present(_ device: Container) -> [String] {
        FuzzNames.all.filter { FuzzNames.isPackage($0) ? kind(device, $0).directory : kind(device, $0).file }
    }

    /// True when `document` can be created in the working tree (an empty folder in its way is
    /// removed first, as a user would).
    private func canCreate(_ document: String, on device: Container) -> Bool {
        let here = kind(device, document)
        if here.file { return false }
        if here.directory {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: url(device, document).path)) ?? ["?"]
            guard !FuzzNames.isPackage(document), entries.isEmpty else { return false }
            try? FileManager.default.removeItem(at: url(device, document))
        }
        if document.hasPrefix("notes/") && kind(device, "notes").file { return false }
        return true
    }

    /// The state the working tree holds for a document.
    private func diskState(_ document: String, on device: Container) throws -> FuzzState {
        if FuzzNames.isPackage(document) {
            guard kind(device, document).directory else { return .absent }
            var files: [String: Data] = [:]
            for name in FuzzNames.packageFiles where kind(device, document + "/" + name).file {
                files[name] = try Data(contentsOf: url(device, document + "/" + name))
            }
            return files.isEmpty ? .absent : .package(files)
        }
        guard kind(device, document).file else { return .absent }
        return .flat(try Data(contentsOf: url(device, document)))
    }

    /// Records that the harness changed `documents` in a device's working tree.
    private func touched(_ documents: [String], on device: Container) throws {
        for document in documents {
            pending[device.device.id, default: [:]][document] = try diskState(document, on: device)
        }
    }

    private func nextToken(_ device: Container) -> String {
        token += 1
        return "\(device.device.id) s\(step) #\(token)"
    }

    /// A fresh multi-line text (every line carries its own token, so merges are meaningful).
    private func freshText(_ document: String, on device: Container) -> String {
        let count = Int.random(in: 4...7, using: &random)
        return (1...count).map { "\(document) line \($0): \(nextToken(device))" }.joined(separator: "\n") + "\n"
    }

    private func write(_ text: String, to path: String, on device: Container) throws {
        let file = url(device, path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    private func create(_ document: String, on device: Container) throws {
        if FuzzNames.isPackage(document) {
            try write(freshText("text", on: device), to: document + "/text.txt", on: device)
            try write("PNG " + nextToken(device), to: document + "/img.png", on: device)
        } else {
            try write(freshText(document, on: device), to: document, on: device)
        }
        try touched([document], on: device)
    }

    /// Changes one line of a text (replaces it, inserts one before it, or removes it).
    private func edited(_ text: String, on device: Container) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let line = Int.random(in: 0..<max(1, lines.count), using: &random)
        let roll = Int.random(in: 0..<10, using: &random)
        if lines.isEmpty || roll < 7 {
            if lines.isEmpty { lines = [""] }
            lines[line] = "edit \(nextToken(device))"
        } else if roll < 9 || lines.count < 3 {
            lines.insert("insert \(nextToken(device))", at: line)
        } else {
            lines.remove(at: line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func pick<T>(_ items: [T]) -> T? {
        items.isEmpty ? nil : items[Int.random(in: 0..<items.count, using: &random)]
    }

    private func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    private func edit(on device: Container) async throws {
        guard let document = pick(present(device)) else { return try await createStep(on: device) }
        if FuzzNames.isPackage(document) {
            if chance(70) {
                let text = (try? String(contentsOf: url(device, document + "/text.txt"), encoding: .utf8)) ?? ""
                try write(edited(text, on: device), to: document + "/text.txt", on: device)
            } else {
                try write("PNG " + nextToken(device), to: document + "/img.png", on: device)
            }
        } else {
            try write(edited(try String(contentsOf: url(device, document), encoding: .utf8), on: device), to: document, on: device)
        }
        try touched([document], on: device)
        try await maybeSave(device, "edit \(document)", [document])
    }

    private func createStep(on device: Container) async throws {
        guard let document = pick(FuzzNames.all.filter { canCreate($0, on: device) }) else { return try await sync(device) }
        try create(document, on: device)
        try await maybeSave(device, "create \(document)", [document])
    }

    private func deleteStep(on device: Container) async throws {
        guard let document = pick(present(device)) else { return try await sync(device) }
        try FileManager.default.removeItem(at: url(device, document))
        try touched([document], on: device)
        try await maybeSave(device, "delete \(document)", [document])
    }

    private func renameStep(on device: Container) async throws {
        let flat = present(device).filter { !FuzzNames.isPackage($0) }
        guard let from = pick(flat) else { return try await createStep(on: device) }
        try FileManager.default.moveItem(at: url(device, from), to: scratch.path("moving-\(device.device.id)"))
        guard let to = pick(FuzzNames.flat.filter { $0 != from && canCreate($0, on: device) }) else {
            try FileManager.default.moveItem(at: scratch.path("moving-\(device.device.id)"), to: url(device, from))
            return try await sync(device)
        }
        try FileManager.default.createDirectory(at: url(device, to).deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: scratch.path("moving-\(device.device.id)"), to: url(device, to))
        try touched([from, to], on: device)
        try await maybeSave(device, "rename \(from) → \(to)", [from, to])
    }

    /// `rm -r notes` and a file `notes`, or the file removed and a folder `notes/` made.
    private func swapStep(on device: Container) async throws {
        let affected = ["notes", "notes/d.txt", "notes/e.txt"]
        let what: String
        if kind(device, "notes").directory {
            try FileManager.default.removeItem(at: url(device, "notes"))
            try write(freshText("notes", on: device), to: "notes", on: device)
            what = "folder notes/ → file notes"
        } else {
            if kind(device, "notes").file { try FileManager.default.removeItem(at: url(device, "notes")) }
            let inside = pick(["notes/d.txt", "notes/e.txt"])!
            try write(freshText(inside, on: device), to: inside, on: device)
            what = "file notes → folder notes/ with \(inside)"
        }
        try touched(affected, on: device)
        try await maybeSave(device, what, affected, saveAll: true)
    }

    /// Copies a document from another device's working tree: an identical edit made twice.
    private func adoptStep(on device: Container) async throws {
        let others = devices.filter { $0.device.id != device.device.id }
        guard let other = pick(others), let document = pick(present(other).filter { !FuzzNames.isPackage($0) }),
              kind(device, document).file || canCreate(document, on: device) else { return try await edit(on: device) }
        try write(try String(contentsOf: url(other, document), encoding: .utf8), to: document, on: device)
        try touched([document], on: device)
        try await maybeSave(device, "copy \(document) from \(other.device.id)", [document])
    }

    /// Saves the change now (all documents, or the named ones), or leaves it for a later save.
    private func maybeSave(_ device: Container, _ what: String, _ documents: [String], saveAll: Bool = false) async throws {
        guard chance(50) else {
            note("\(device.device.id): \(what) (unsaved)")
            return
        }
        if saveAll || chance(30) {
            try await operate(device, "\(what), save all", saving: nil) { _ = try device.save(nil); return "" }
        } else {
            try await saveDocuments(device, documents, label: what)
        }
    }

    private func saveDocuments(_ device: Container, _ documents: [String], label: String) async throws {
        try await operate(device, "\(label), save \(documents.joined(separator: " "))", saving: Set(documents)) {
            // A name that was never saved and is not in the working tree fails the whole save;
            // save the others, as a user would.
            var names = documents
            var skipped: [String] = []
            while !names.isEmpty {
                do {
                    _ = try device.save(try names.map(DocumentPath.init))
                    break
                } catch DocverError.noSuchDocument(let name) where names.contains(name) {
                    names.removeAll { $0 == name }
                    skipped.append(name)
                }
            }
            return skipped.isEmpty ? "" : "no such document: \(skipped.joined(separator: " "))"
        }
    }

    // MARK: Saving and syncing

    private func saveAll(_ device: Container) async throws {
        try await operate(device, "save all", saving: nil) { _ = try device.save(nil); return "" }
    }

    private func saveOne(_ device: Container) async throws {
        let candidates = (pending[device.device.id] ?? [:]).keys.sorted()
        guard let document = pick(candidates.isEmpty ? present(device) : candidates) else { return try await saveAll(device) }
        try await saveDocuments(device, [document], label: "save one")
    }

    private func sync(_ device: Container) async throws {
        try await operate(device, "sync", saving: nil) {
            let report = try device.sync()
            if !report.warnings.isEmpty { self.fail("sync on \(device.device.id) warned: \(report.warnings)") }
            return self.describe(report)
        }
        try expectClean(device, after: "sync")
        try probeFolderVersions(device)
    }

    /// A plain folder is not a document (docs/FORMAT.md): the file `notes` in conflict must
    /// never list the folder `notes/` as its current or a conflict version (kind package).
    private func probeFolderVersions(_ device: Container) throws {
        guard folderShownAsVersion == nil, let conflict = try device.conflicts(DocumentPath("notes")).first else { return }
        if let folder = ([conflict.current] + conflict.conflicts).first(where: { $0.kind == .package }) {
            folderShownAsVersion = "\(device.device.id) at step \(step)"
            fail("\(device.device.id) lists the plain folder notes/ of \(folder.id.short) as a version of the file notes in conflict")
        }
    }

    private func describe(_ report: SyncReport) -> String {
        var parts: [String] = []
        if report.integrated { parts.append("integrated") }
        if !report.newConflicts.isEmpty {
            parts.append("new conflicts " + report.newConflicts.sorted { $0.key < $1.key }
                .map { "\($0.key)[\($0.value.map(\.short).joined(separator: ","))]" }.joined(separator: " "))
        }
        return parts.joined(separator: ", ")
    }

    /// A crossed integration: plain `git fetch` of one other device's branch, then `integrate()`.
    private func crossedIntegrate(_ device: Container) async throws {
        let pushed = devices.filter { other in
            other.device.id != device.device.id
                && (try? runGit(["rev-parse", "--verify", "-q", "refs/heads/docver/\(other.device.id)"], in: remote)) != nil
        }
        guard let other = pick(pushed) else { return try await sync(device) }
        let branch = "docver/\(other.device.id)"
        try runGit(["fetch", "-q", "origin", "+refs/heads/\(branch):refs/remotes/origin/\(branch)"], in: device.root)
        try await operate(device, "git fetch \(other.device.id)'s branch + integrate", saving: nil) {
            self.describe(try device.integrate())
        }
        try expectClean(device, after: "integrate")
        try probeFolderVersions(device)
    }

    /// A plain `git commit -am` in the checkout, dated a few seconds off (the hook makes it a
    /// save of this device; its author date is its version's date).
    private func plainCommit(_ device: Container) async throws {
        let id = device.device.id
        let head = try device.headID()
        // `-a` commits changes of tracked documents only: new ones stay unsaved.
        let tracked = try Set((pending[id] ?? [:]).keys.filter { try !trees.state(of: $0, at: head, in: device.root).isAbsent })
        let date = Int(Date().timeIntervalSince1970) + Int.random(in: -4...4, using: &random)
        try await operate(device, "git commit -am (author date \(date))", saving: tracked) {
            let result = try runProcess("/usr/bin/git", ["commit", "-q", "-a", "-m", "Plain commit at step \(self.step)"], in: device.root,
                                        environment: ["GIT_AUTHOR_NAME": "Tester", "GIT_AUTHOR_EMAIL": "tester@example.com",
                                                      "GIT_COMMITTER_NAME": "Tester", "GIT_COMMITTER_EMAIL": "tester@example.com",
                                                      "GIT_AUTHOR_DATE": "@\(date) +0000"])
            if result.status != 0 {
                let output = result.stdout + result.stderr
                guard output.contains("nothing to commit") || output.contains("no changes added") || output.contains("nothing added") else {
                    throw GitCommandFailed(arguments: ["commit", "-am"], status: result.status, stderr: output)
                }
                return "nothing to commit"
            }
            return ""
        }
    }

    /// A git user merges another device's branch into this one with `git merge -s ours` (this
    /// side's tree whole, the other side dropped) and pushes it: a resolution by a git user
    /// (docs/FORMAT.md, "Merges made with plain git"). Every version the merge dropped must
    /// stay listed, as a resolved conflict version, on every device.
    private func plainMerge(_ device: Container) async throws {
        let id = device.device.id
        guard (pending[id] ?? [:]).isEmpty else { return try await sync(device) }
        let pushed = devices.filter { other in
            other.device.id != id && (try? runGit(["rev-parse", "--verify", "-q", "refs/heads/docver/\(other.device.id)"], in: remote)) != nil
        }
        guard let other = pick(pushed) else { return try await sync(device) }
        let branch = "docver/\(other.device.id)"
        try runGit(["fetch", "-q", "origin", "+refs/heads/\(branch):refs/remotes/origin/\(branch)"], in: device.root)
        let before = try device.headID()
        let result = try runProcess("/usr/bin/git", ["merge", "-q", "--no-edit", "-s", "ours", "refs/remotes/origin/\(branch)"],
                                    in: device.root,
                                    environment: ["GIT_AUTHOR_NAME": "Tester", "GIT_AUTHOR_EMAIL": "tester@example.com",
                                                  "GIT_COMMITTER_NAME": "Tester", "GIT_COMMITTER_EMAIL": "tester@example.com"])
        let after = try device.headID()
        // The merge is no save: every device's discovery skips it.
        if let after, after != before { known.insert(after) }
        note("\(id): git merge -s ours \(other.device.id)'s branch" + (result.status == 0 ? (after == before ? " | already merged" : " | merged") : " | failed"))
        if result.status != 0 { fail("git merge -s ours on \(id) failed: \(result.stderr)") }
        try expectClean(device, after: "a plain merge")
    }

    /// After a sync or an integration nothing is unsaved: plain git sees a clean checkout.
    private func expectClean(_ device: Container, after what: String) throws {
        if let left = pending[device.device.id], !left.isEmpty {
            fail("after \(what), \(device.device.id) still has unsaved documents \(left.keys.sorted())")
        }
        let status = try runGit(["status", "--porcelain", "--untracked-files=all"], in: device.root)
        if !status.isEmpty { fail("after \(what), git status on \(device.device.id) is not clean:\n\(status)") }
    }

    // MARK: Resolutions

    enum Resolution: CustomStringConvertible {
        case replace(String), markResolved([String]), removeOtherVersions, latestDate, merge, choose(String)

        var description: String {
            switch self {
            case let .replace(id): "replace with \(id.short)"
            case let .markResolved(ids): ids.isEmpty ? "mark-resolved" : "mark-resolved \(ids.map(\.short).joined(separator: " "))"
            case .removeOtherVersions: "remove-other-versions"
            case .latestDate: "resolve latest-date"
            case .merge: "resolve merge"
            case let .choose(id): "resolve choose \(id.short)"
            }
        }

        var isDecision: Bool { if case .replace = self { false } else { true } }

        var kind: String {
            switch self {
            case .replace: "replace"
            case .markResolved: "mark-resolved"
            case .removeOtherVersions: "remove-other-versions"
            case .latestDate: "latest-date"
            case .merge: "merge"
            case .choose: "choose"
            }
        }
    }

    private func randomResolution(of conflict: Conflict) -> Resolution {
        let versions = [conflict.current] + conflict.conflicts
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return .replace(pick(conflict.conflicts)!.id)
        case 1: return chance(70) ? .markResolved([]) : .markResolved([pick(conflict.conflicts)!.id])
        case 2: return .removeOtherVersions
        case 3: return .latestDate
        case 4: return .merge
        default: return .choose(pick(versions)!.id)
        }
    }

    private func resolveStep(on device: Container) async throws {
        guard let conflict = pick(try device.conflicts()) else { return try await sync(device) }
        try await resolve(conflict, with: randomResolution(of: conflict), on: device)
    }

    /// Two or three devices get to the same head, then each resolves the same conflict its own
    /// way before any of them syncs again.
    private func multiResolveStep() async throws {
        guard try devices.contains(where: { try !$0.conflicts().isEmpty }) else {
            return try await edit(on: devices[Int.random(in: 0..<devices.count, using: &random)])
        }
        var chosen = devices
        chosen.shuffle(using: &random)
        chosen = Array(chosen.prefix(Int.random(in: 2...min(3, devices.count), using: &random)))
        for device in chosen { try await sync(device) }
        for device in chosen.dropLast() { try await sync(device) }
        let first = try chosen[0].conflicts()
        let shared = try first.filter { conflict in
            try chosen.dropFirst().allSatisfy { try $0.conflicts(conflict.document).first == conflict }
        }
        guard let conflict = pick(shared) else {
            note("\(chosen.map(\.device.id).joined(separator: "+")): no conflict in common to resolve")
            return
        }
        var kinds: [Resolution] = [.latestDate, .merge, .markResolved([]), .removeOtherVersions,
                                   .choose(pick([conflict.current] + conflict.conflicts)!.id),
                                   .choose(pick(conflict.conflicts)!.id)]
        kinds.shuffle(using: &random)
        note("\(chosen.map(\.device.id).joined(separator: "+")) resolve \(conflict.document) each their own way")
        stats["multi-resolve", default: 0] += 1
        for (device, kind) in zip(chosen, kinds) { try await resolve(conflict, with: kind, on: device) }
    }

    private func resolve(_ conflict: Conflict, with resolution: Resolution, on device: Container) async throws {
        let id = device.device.id
        var conflict = conflict
        let path = conflict.document
        let document = path.path
        // A strategy saves the document's unsaved edits first, which changes the conflict it
        // then decides; save them here so the expectations below hold for the conflict decided.
        if case .replace = resolution {} else if pending[id]?[document] != nil {
            try await saveDocuments(device, [document], label: "before resolving")
            guard let now = try device.conflicts(path).first else {
                note("\(id): \(document) is no longer in conflict")
                return
            }
            conflict = now
            if case let .choose(version) = resolution, !([now.current] + now.conflicts).contains(where: { $0.id == version }) {
                return try await resolve(now, with: .choose(now.current.id), on: device)
            }
            if case let .markResolved(versions) = resolution, !versions.allSatisfy({ id in now.conflicts.contains { $0.id == id } }) {
                return try await resolve(now, with: .markResolved([]), on: device)
            }
        }
        let key = ([conflict.current.id] + conflict.conflicts.map(\.id)).sorted()
        let states = Dictionary(uniqueKeysWithValues: try ([conflict.current] + conflict.conflicts).map { ($0.id, FuzzState(try device.contents(of: $0))) })
        let currentBefore = states[conflict.current.id]!
        let pendingBefore = pending[id] ?? [:]
        let refsBefore = try otherRefs(device)
        let filesBefore = try device.workingTreeFiles()
        var refused: DocverError?
        var thrown: Error?
        var outcome: ResolutionOutcome?
        let savesDocument: Set<String>
        switch resolution {
        case .markResolved, .removeOtherVersions: savesDocument = []
        default: savesDocument = [document]
        }
        let own = try await operate(device, "\(resolution) of \(document)", saving: savesDocument, target: document) {
            do {
                switch resolution {
                case let .replace(version): _ = try device.replace(path, with: version)
                case let .markResolved(versions): _ = try device.markResolved(path, versions: versions)
                case .removeOtherVersions: _ = try device.removeOtherVersions(of: path)
                case .latestDate: outcome = try await device.resolve(path, using: LatestDateStrategy())
                case let .choose(version): outcome = try await device.resolve(path, using: UserChoiceStrategy.version(version))
                case .merge: outcome = try await device.resolve(path, using: MergeStrategy())
                }
            } catch let error as DocverError {
                switch (resolution, error) {
                case (.merge, .mergeFailed), (.merge, .notMergeable), (_, .editsInTheWay):
                    refused = error
                    return "refused: \(error)"
                default:
                    thrown = error
                    return "threw: \(error)"
                }
            }
            return outcome.map { "\($0.summary)" } ?? ""
        }
        stats[refused != nil ? "\(resolution.kind) refused" : thrown != nil ? "\(resolution.kind) failed" : resolution.kind, default: 0] += 1

        if let thrown {
            fail("\(resolution) of \(document) on \(id) threw: \(thrown)")
        }
        // A refused (or failed) resolution changes nothing (but the document's unsaved edits
        // may be saved first).
        if refused != nil || thrown != nil {
            let what = refused != nil ? "a refused \(resolution.kind)" : "a failed \(resolution)"
            if try device.workingTreeFiles() != filesBefore { fail("\(what) of \(document) on \(id) changed the working tree") }
            if try otherRefs(device) != refsBefore { fail("\(what) of \(document) on \(id) changed references") }
            // Only a save of the unsaved edits may have happened (checked by operate).
            if own.count > 1 || own.contains(where: { !$0.changes.keys.allSatisfy { pendingBefore[$0] != nil } }) {
                fail("\(what) of \(document) on \(id) wrote \(own.map(\.commit.short))")
            }
            return
        }

        let after = try device.conflicts(path).first
        let listedAfter = Set(after?.conflicts.map(\.id) ?? [])
        let currentAfter = try device.currentVersion(of: path).map { FuzzState(try device.contents(of: $0)) } ?? .absent
        let before = Set(conflict.conflicts.map(\.id))
        func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { fail("\(resolution) of \(document) on \(id): \(message())") }
        }
        switch resolution {
        case let .replace(version):
            expect(currentAfter == states[version], "the current state is \(currentAfter), the version replaced with holds \(states[version]!)")
            expect(listedAfter == before, "replace resolves nothing, yet the conflict versions went from \(before.map(\.short).sorted()) to \(listedAfter.map(\.short).sorted())")
        case let .markResolved(versions):
            expect(listedAfter == (versions.isEmpty ? [] : before.subtracting(versions)),
                   "still listed: \(listedAfter.map(\.short).sorted())")
            expect(currentAfter == currentBefore, "the current state changed from \(currentBefore) to \(currentAfter)")
        case .removeOtherVersions:
            expect(listedAfter.isEmpty, "still listed: \(listedAfter.map(\.short).sorted())")
            expect(currentAfter == currentBefore, "the current state changed from \(currentBefore) to \(currentAfter)")
        case .latestDate:
            // As integration ranks versions: a modification beats a deletion, then the latest
            // date, the greater device id, the greater version id (LatestDateStrategy's contract).
            let all = [conflict.current] + conflict.conflicts
            let candidates = all.contains { !$0.isDeletion } ? all.filter { !$0.isDeletion } : all
            let winner = rankedByConflictRule(candidates)[0]
            expect(currentAfter == states[winner.id], "the current state is \(currentAfter), the latest version \(winner.id.short) holds \(states[winner.id]!)")
            expect(listedAfter.isEmpty, "still listed: \(listedAfter.map(\.short).sorted())")
        case let .choose(version):
            expect(currentAfter == states[version], "the current state is \(currentAfter), the chosen version holds \(states[version]!)")
            expect(listedAfter.isEmpty, "still listed: \(listedAfter.map(\.short).sorted())")
        case .merge:
            expect(listedAfter.isEmpty, "still listed: \(listedAfter.map(\.short).sorted())")
            if case let .merged(contents)? = outcome?.resolution {
                expect(currentAfter == FuzzState(contents), "the current state \(currentAfter) is not the merge result")
            }
            // A clean merge holds every version's changes: each line a version added to its
            // base (every line written carries its own token) is in the result.
            if let result = currentAfter.textLines {
                for version in conflict.conflicts {
                    let base = try conflict.base(of: version).map { FuzzState(try device.contents(of: $0)) }
                    let baseLines = Set(base?.textLines ?? [])
                    for side in [version, conflict.current] {
                        guard let lines = states[side.id]?.textLines else { continue }
                        let dropped = Set(lines).subtracting(baseLines).subtracting(result)
                        expect(dropped.isEmpty, "the merge dropped \(dropped.sorted()) added by \(side.id.short) to its base \(conflict.base(of: version)?.id.short ?? "none")")
                    }
                }
            }
        }
        if resolution.isDecision, let commit = own.last?.commit {
            model.decisions.append(FuzzDecision(device: id, document: document, commit: commit, kind: "\(resolution)",
                                                conflict: key, result: currentAfter, step: step))
        }
    }

    /// Every reference but this device's branch (a refused operation may save unsaved edits).
    private func otherRefs(_ device: Container) throws -> [String] {
        try refSnapshot(device.root).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("refs/heads/docver/\(device.device.id) ") }
    }

    // MARK: Recording

    struct OwnCommit {
        var commit: String
        /// The documents the commit changed, with their new states.
        var changes: [String: FuzzState]
    }

    /// Runs one operation on a device, then records the saves it made: every commit new on the
    /// device's branch that is neither known nor an integration must be this device's, with one
    /// parent; each document it changed becomes a version of the model. `saving` names the
    /// unsaved documents the operation must save (nil: all of them): each must be saved with
    /// the state the harness left it in (or have been unchanged). A save may change no document
    /// the harness did not touch, other than the operation's own target.
    @discardableResult
    private func operate(_ device: Container, _ label: String, saving expected: Set<String>?, target: String? = nil,
                         _ body: () async throws -> String) async throws -> [OwnCommit] {
        let id = device.device.id
        let before = try device.headID()
        var pendingBefore = pending[id] ?? [:]
        // An edit that left a document as it was saved changes nothing.
        for (document, written) in pendingBefore where try trees.state(of: document, at: before, in: device.root) == written {
            pendingBefore[document] = nil
            pending[id]?[document] = nil
        }
        let outcome: String
        lastOperation = "\(id): \(label)"
        do {
            outcome = try await body()
        } catch {
            note("\(id): \(label) threw: \(error)")
            throw error
        }
        let after = try device.headID()
        let own = try discover(on: device, from: before, to: after, label: label)

        for commit in own {
            // A document written where a plain folder of its name stands, or inside a folder
            // that is now a file, displaces what is in the way (saved as deleted beside it).
            for document in commit.changes.keys.sorted() where pendingBefore[document] == nil && document != target {
                if let target, document.hasPrefix(target + "/") || target.hasPrefix(document + "/"),
                   case .absent? = commit.changes[document] { continue }
                fail("\(label) on \(id): save \(commit.commit.short) changed \(document), which was not edited in the working tree")
            }
        }
        for (document, written) in pendingBefore.sorted(by: { $0.key < $1.key }) {
            if let first = own.first(where: { $0.changes[document] != nil }) {
                let saved = first.changes[document]!
                if saved != written {
                    fail("\(label) on \(id): save \(first.commit.short) recorded \(document) as \(saved), the working tree held \(written)")
                }
                pending[id]?[document] = nil
            } else if expected?.contains(document) ?? true {
                let unchanged = try trees.state(of: document, at: before, in: device.root)
                if unchanged != written {
                    fail("\(label) on \(id) did not save \(document): the working tree held \(written), the last save \(unchanged)")
                }
                pending[id]?[document] = nil
            }
        }
        let saves = own.map { commit in
            "\(commit.commit.short)(" + commit.changes.sorted { $0.key < $1.key }
                .map { "\($0.value.isAbsent ? "-" : "")\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
        }
        var line = "\(id): \(label)"
        if !saves.isEmpty { line += " → saved " + saves.joined(separator: ", ") }
        if !outcome.isEmpty { line += " | " + outcome }
        note(line)
        return own
    }

    /// Records the commits new on a device's branch.
    private func discover(on device: Container, from before: String?, to after: String?, label: String) throws -> [OwnCommit] {
        guard let after, after != before else { return [] }
        let id = device.device.id
        let format = "%H%x1f%P%x1f%(trailers:key=Docver-Integration,valueonly)%x1f%(trailers:key=Docver-Device,valueonly)%x1e"
        let range = before.map { [after, "^" + $0] } ?? [after]
        var own: [OwnCommit] = []
        for record in try runGit(["log", "--reverse", "--topo-order", "--format=" + format] + range, in: device.root).split(separator: "\u{1e}") {
            let fields = record.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\u{1f}", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4, known.insert(fields[0]).inserted else { continue }
            let commit = fields[0]
            if !fields[2].trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { continue } // an integration
            let parents = fields[1].split(separator: " ").map(String.init)
            let author = fields[3].trimmingCharacters(in: .whitespacesAndNewlines)
            guard author == id, parents.count <= 1 else {
                fail("\(label) on \(id): unexpected commit \(commit.short) (device '\(author)', \(parents.count) parents)")
                continue
            }
            model.saves[commit] = "\(id) step \(step) \(label)"
            var changes: [String: FuzzState] = [:]
            for document in try trees.changedDocuments(from: parents.first, to: commit, in: device.root).sorted() {
                let state = try trees.state(of: document, at: commit, in: device.root)
                let before = try trees.state(of: document, at: parents.first, in: device.root)
                guard state != before else { continue }
                changes[document] = state
                model.versions.append(FuzzVersion(commit: commit, device: id, document: document, state: state, before: before,
                                                  step: step, operation: label))
            }
            own.append(OwnCommit(commit: commit, changes: changes))
        }
        return own
    }

    // MARK: The end

    /// Every device syncs, round after round, until a whole round moves no branch.
    private func quiesce() async throws {
        for round in 0..<6 {
            var moved = false
            for device in devices {
                let before = try device.headID()
                try await sync(device)
                if try device.headID() != before { moved = true }
            }
            if !moved {
                note("quiet after \(round + 1) rounds of syncs")
                return
            }
        }
        fail("the devices did not stop moving after 6 rounds of syncs")
    }

    private func checkOracle() throws {
        // (1) converged, (3) working trees, (4) fsck: the shared helper.
        if recordsIssues { try expectConverged(devices, context: header() + "\nstep log:\n" + log.joined(separator: "\n") + "\n") }
        // (2) and (5) against the model.
        let observation = try FuzzObservation.read(from: devices[0], model: model, trees: trees)
        self.observation = observation
        for failure in FuzzOracle.check(model, observation) { fail(failure.message) }
        // (6) concurrent decisions (issue 11 item 6).
        for failure in FuzzOracle.droppedDecisions(model, observation) { fail(failure.message) }
        stats["versions"] = model.versions.count
        stats["decisions"] = model.decisions.count
        stats["conflict versions listed at the end"] = observation.listing.values.map(\.count).reduce(0, +)
        note("stats: " + stats.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
    }

    // MARK: Reporting

    private func header() -> String {
        "SyncFuzz seed \(seed) (\(devices.count) devices, \(steps) steps); replay: DOCVER_FUZZ_SEED=\(seed) DOCVER_FUZZ_STEPS=\(steps) swift test --filter SyncFuzz"
    }

    private func note(_ line: String) {
        log.append(step < 0 ? "setup  \(line)" : step >= steps ? "end    \(line)" : "#\(step)".padding(toLength: 6, withPad: " ", startingAt: 0) + " " + line)
    }

    func fail(_ message: String) {
        failures.append(message)
        guard recordsIssues else { return }
        issues += 1
        if issues == 1, let keep = ProcessInfo.processInfo.environment["DOCVER_FUZZ_KEEP"] {
            let copy = URL(fileURLWithPath: keep).appendingPathComponent("seed-\(seed)")
            try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(at: copy)
            try? FileManager.default.copyItem(at: scratch.url, to: copy)
        }
        guard issues <= 12 else { return }
        let place = step < 0 ? "setup" : step >= steps ? "end" : "step \(step)"
        // The finding comes again after the step log: a long comment can reach the log cut
        // off at its start (seen with 120-step sessions), and the end must still say it.
        let comment = Comment(rawValue: "\(header())\n[\(place)] \(message)\nstep log:\n\(log.joined(separator: "\n"))"
            + "\nfinding, again: \(header())\n[\(place)] \(message)")
        Issue.record(comment)
    }
}

