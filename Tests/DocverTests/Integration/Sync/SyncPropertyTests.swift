import DocverKit
import Foundation
import Testing

/// Random interleavings of saves and syncs over several devices sharing one bare remote.
///
/// Environment knobs for digging into a failure:
/// `DOCVER_SYNC_SEED=<n>` replays one seed; `DOCVER_SYNC_SEEDS=<count>` and
/// `DOCVER_SYNC_STEPS=<count>` scale the run; `DOCVER_SYNC_KEEP=<dir>` keeps the devices of a
/// failing seed there; `DOCVER_SYNC_TRACE=1` prints every seed's trace.
@Suite struct SyncPropertyTests {
    static let seeds: [UInt64] = {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["DOCVER_SYNC_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = environment["DOCVER_SYNC_SEEDS"].flatMap(Int.init) ?? 16
        return (0..<UInt64(count)).map { 0x5EED_0000 &+ $0 &* 7919 }
    }()

    static let steps = ProcessInfo.processInfo.environment["DOCVER_SYNC_STEPS"].flatMap(Int.init) ?? 30

    /// A handful of documents: flat files, one in a folder, and one file package.
    static let documents = ["a.txt", "b.txt", "c.txt", "notes/d.txt", "e.imagenotes"]

    /// One save as the test saw it: its id and the documents it changed.
    struct Save {
        var id: String
        var device: String
        var documents: [String]
    }

    @Test(arguments: seeds)
    func randomInterleavingsConvergeAndLoseNothing(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let scratch = try Scratch("property\(seed)")
        let remote = try scratch.bareRemote()
        let deviceCount = Int.random(in: 3...5, using: &random)
        let devices = try (0..<deviceCount).map { try scratch.device("device\($0)", remote: remote) }
        var saves: [Save] = []
        var renames: [(from: String, to: String, save: String?)] = []
        var trace: [String] = ["seed \(seed): \(deviceCount) devices, \(Self.steps) steps"]

        func record(_ result: SaveResult?, _ device: Container, _ what: String) {
            guard let result else { return }
            saves.append(Save(id: result.id, device: device.device.id, documents: result.changes.map(\.document.path)))
            trace.append("  \(device.device.id) \(what) -> \(result.id.prefix(10)) \(result.changes.map { "\($0.change.rawValue) \($0.document)" })")
        }

        func fail(_ message: String) {
            if let keep = ProcessInfo.processInfo.environment["DOCVER_SYNC_KEEP"] {
                // Keep the devices for inspection with plain git.
                let copy = URL(fileURLWithPath: keep).appendingPathComponent("seed-\(seed)")
                if !FileManager.default.fileExists(atPath: copy.path) {
                    try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
                    try? FileManager.default.copyItem(at: scratch.url, to: copy)
                }
            }
            Issue.record("seed \(seed) (replay with DOCVER_SYNC_SEED=\(seed)): \(message)\n\(trace.joined(separator: "\n"))")
        }

        // Every step: one device saves (a new document, an edit or a deletion), leaves an edit
        // unsaved for its next sync, or syncs.
        for step in 0..<Self.steps {
            let device = devices[Int.random(in: 0..<deviceCount, using: &random)]
            let roll = Int.random(in: 0..<100, using: &random)
            let document = Self.documents[Int.random(in: 0..<Self.documents.count, using: &random)]
            let exists = FileManager.default.fileExists(atPath: device.root.appendingPathComponent(document).path)
            do {
                if roll < 40 {
                    let report = try device.sync()
                    record(report.savedBeforeSync, device, "sync (save before sync)")
                    trace.append(
                        "  \(device.device.id) sync integrated=\(report.integrated) conflicts=\(report.newConflicts.mapValues(\.count)) warnings=\(report.warnings)"
                    )
                    if !report.warnings.isEmpty { fail("sync warned: \(report.warnings)") }
                } else if exists && roll >= 90 && !document.hasSuffix(".imagenotes") {
                    // Rename to a flat name this device does not use.
                    let free = Self.documents.filter {
                        !$0.hasSuffix(".imagenotes")
                            && !FileManager.default.fileExists(atPath: device.root.appendingPathComponent($0).path)
                    }
                    guard let target = free.randomElement(using: &random) else { continue }
                    let destination = device.root.appendingPathComponent(target)
                    try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try FileManager.default.moveItem(at: device.root.appendingPathComponent(document), to: destination)
                    do {
                        let result = try device.save([DocumentPath(document), DocumentPath(target)])
                        renames.append((document, target, result?.id))
                        record(result, device, "rename \(document) -> \(target)")
                    } catch DocverError.noSuchDocument {
                        renames.append((document, target, nil))
                        record(try device.save([DocumentPath(target)]), device, "rename unsaved new \(document) -> \(target)")
                    }
                } else if exists && roll >= 82 {
                    try device.remove(document)
                    do {
                        record(try device.save([DocumentPath(document)]), device, "delete \(document)")
                    } catch DocverError.noSuchDocument {
                        // A new document that was never saved: removing it leaves nothing to save.
                        trace.append("  \(device.device.id) removed unsaved new \(document)")
                    }
                } else {
                    // Mostly unique contents; sometimes one of two shared ones (identical edits).
                    let shared = Int.random(in: 0..<10, using: &random) == 0
                    let text =
                        shared
                        ? "shared \(document) \(Int.random(in: 0..<2, using: &random))\n"
                        : "\(document) by \(device.device.id) at step \(step) of seed \(seed)\n"
                    try write(text, to: document, in: device)
                    if roll < 48 {
                        trace.append("  \(device.device.id) unsaved edit of \(document)")
                    } else {
                        record(try device.save([DocumentPath(document)]), device, "\(exists ? "edit" : "new") \(document)")
                    }
                }
            } catch {
                fail("step \(step) on \(device.device.id) threw: \(error)")
                return
            }
        }

        // Quiesce: every device syncs twice, with nothing new saved.
        for round in 0..<2 {
            for device in devices {
                let report = try device.sync()
                record(report.savedBeforeSync, device, "final sync \(round) (save before sync)")
                trace.append(
                    "  \(device.device.id) final sync \(round) integrated=\(report.integrated) conflicts=\(report.newConflicts.mapValues(\.count))")
                if round == 1, report.savedBeforeSync != nil { fail("\(device.device.id) saved in the second final round") }
                // The second round only fast-forwards to what the last device of the first made.
                if round == 1, !report.newConflicts.isEmpty { fail("\(device.device.id) recorded conflicts in the second final round") }
            }
        }

        let head = try #require(try devices[0].headID())
        let contents = try devices[0].currentContents()
        let conflicts = try devices[0].conflictSummary()
        for device in devices {
            let id = device.device.id
            if try device.headID() != head { fail("\(id) ends at \(try device.headID() ?? "nil"), device0 at \(head)") }
            if try device.currentContents() != contents { fail("\(id) has different current contents") }
            let theirs = try device.conflictSummary()
            if theirs != conflicts { fail("\(id) has different conflicts: \(theirs) vs \(conflicts)") }
            if try device.workingTreeFiles() != device.expectedFiles() {
                fail("\(id)'s working tree does not match its current versions")
            }
            if try !device.status().changed.isEmpty { fail("\(id) has unsaved changes: \(try device.status().changed)") }
            let fsck = try runProcess("/usr/bin/git", ["fsck", "--strict", "--no-progress"], in: device.root)
            if fsck.status != 0 { fail("git fsck --strict failed on \(id): \(fsck.stderr)") }
        }

        // No version lost: every save is in the final history...
        let graph = try CommitGraph(head: head, in: devices[0].root)
        for save in saves where !graph.contains(save.id) {
            fail("save \(save.id) of \(save.device) is not reachable from the final head")
        }
        // ... and every document's versions that no later version of it supersedes are the
        // current version or an unresolved conflict version, on every device.
        try checkFrontier(saves: saves, renames: renames, graph: graph, device: devices[0], fail: fail)
        if ProcessInfo.processInfo.environment["DOCVER_SYNC_TRACE"] != nil { print(trace.joined(separator: "\n")) }
    }

    private func write(_ text: String, to document: String, in device: Container) throws {
        if document.hasSuffix(".imagenotes") {
            try device.write(text, to: document + "/text.txt")
            try device.write(String(text.reversed()), to: document + "/img.png")
        } else {
            try device.write(text, to: document)
        }
    }

    /// For each document, the versions (saves that changed it) not an ancestor of another
    /// version of it must still be visible: their contents are the current contents or an
    /// unresolved conflict version's contents of some document (an edit may have followed a
    /// rename). Documents linked by renames count as one for what supersedes what, and a
    /// rename's own state at the new name is not checked (a followed edit replaces it). Versions
    /// whose state another save of the document also produced (shared contents, deletions)
    /// are left out: an identical state is not a conflict, and a deletion of a document only
    /// this device had seen can legitimately meet a re-creation as a plain change.
    private func checkFrontier(
        saves: [Save], renames: [(from: String, to: String, save: String?)], graph: CommitGraph,
        device: Container, fail: (String) -> Void
    ) throws {
        var family: [String: String] = [:]
        func root(_ document: String) -> String {
            var current = document
            while let parent = family[current], parent != current { current = parent }
            return current
        }
        for (from, to, _) in renames where root(from) != root(to) { family[root(from)] = root(to) }
        // A rename's state at the new name is the old name's state: an edit of the old name
        // made meanwhile follows the rename and legitimately replaces it.
        let renameTargets = Set(renames.compactMap { rename in rename.save.map { "\($0) \(rename.to)" } })

        var statesSeen: [String: [DocumentContents: Int]] = [:]
        var versions: [(document: String, id: String, state: DocumentContents)] = []
        for save in saves {
            for document in save.documents {
                let version = try device.version(save.id, of: DocumentPath(document))
                let state = try device.contents(of: version)
                statesSeen[document, default: [:]][state, default: 0] += 1
                versions.append((document, save.id, state))
            }
        }
        var visible: Set<DocumentContents> = []
        var allConflictIDs: Set<String> = []
        for document in Set(Self.documents + versions.map(\.document)) {
            let path = try DocumentPath(document)
            if let current = try device.currentVersion(of: path) { visible.insert(try device.contents(of: current)) }
            for conflict in try device.unresolvedConflictVersions(of: path) {
                visible.insert(try device.contents(of: conflict))
                allConflictIDs.insert(conflict.id)
            }
        }
        let saveIDs = Set(saves.map(\.id))
        for id in allConflictIDs where !saveIDs.contains(id) {
            // An edit that followed a rename is a version made by the integration itself.
            let subject = try runGit(["log", "-1", "--format=%an", id], in: device.root)
            if !subject.hasPrefix("docver") { fail("conflict version \(id) is not one of the saves") }
        }
        for version in versions {
            let superseded = versions.contains {
                $0.id != version.id && root($0.document) == root(version.document) && graph.isAncestor(version.id, of: $0.id)
            }
            guard !superseded, version.state != .deleted, statesSeen[version.document]?[version.state] == 1,
                !renameTargets.contains("\(version.id) \(version.document)")
            else { continue }
            if !visible.contains(version.state) {
                let path = try DocumentPath(version.document)
                fail(
                    "version \(version.id) of \(version.document) was lost: current is \(try device.currentVersion(of: path)?.id ?? "none"), conflicts \(try device.unresolvedConflictVersions(of: path).map(\.id))"
                )
            }
        }
    }
}

/// The commit graph reachable from one head, read once with `git rev-list --parents`.
struct CommitGraph {
    private var parents: [String: [String]] = [:]

    init(head: String, in directory: URL) throws {
        for line in try runGit(["rev-list", "--parents", head], in: directory).split(separator: "\n") {
            let ids = line.split(separator: " ").map(String.init)
            parents[ids[0]] = Array(ids.dropFirst())
        }
    }

    func contains(_ id: String) -> Bool { parents[id] != nil }

    /// True when `ancestor` is a strict ancestor of `commit`.
    func isAncestor(_ ancestor: String, of commit: String) -> Bool {
        var stack = parents[commit] ?? []
        var seen: Set<String> = []
        while let next = stack.popLast() {
            if next == ancestor { return true }
            if seen.insert(next).inserted { stack += parents[next] ?? [] }
        }
        return false
    }
}
