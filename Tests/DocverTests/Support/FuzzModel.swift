import DocverKit
import Foundation
import Testing

// The model and the oracle of the model-based sync fuzz test (Integration/Correctness/
// SyncFuzzTests.swift). The model is what the harness itself recorded while it drove the
// devices: every document state it saved, what each save was made on top of, and every
// resolution decision. The oracle compares it with what the converged devices show at the end.
// Git facts (trees, contents, ancestry, trailers) are read with the git CLI, not with
// DocverKit, so the oracle does not trust the code it checks.

// MARK: - Documents and states

/// The documents the fuzz world uses: flat files (one without an extension, and `notes`, which
/// is at times a file and at times a plain folder holding two documents) and one file package.
enum FuzzNames {
    /// `A.txt` beside `a.txt`, and `café.txt` in its two Unicode spellings (by their aliases,
    /// see ``real(_:)``): names git and docver keep apart although a case-folding or
    /// normalising comparison would take each pair for one name (issue 25).
    static let flat = [
        "a.txt", "A.txt", "b.txt", "c.md", "f", "g.txt", "notes", "notes/d.txt", "notes/e.txt",
        "cafe-nfc.txt", "cafe-nfd.txt",
    ]
    static let packages = ["p.imagenotes"]
    static let all = flat + packages
    /// The components a package holds.
    static let packageFiles = ["text.txt", "img.png"]

    /// The document a stored file belongs to: the package enclosing it, or the file itself.
    static func document(ofFile path: String) -> String {
        for package in packages where path.hasPrefix(package + "/") { return package }
        return path
    }

    static func isPackage(_ document: String) -> Bool { packages.contains(document) }

    /// The two spellings of `café.txt`, precomposed (NFC) and decomposed (NFD): one String to
    /// Swift, two names to git. The harness and the oracle call them by ASCII aliases, since
    /// their `[String: …]` would merge them, and use the real bytes on disk, in git commands
    /// and through DocverKit: ``real(_:)`` on the way out, ``alias(_:)`` on the way in.
    static let spellings: [(alias: String, real: String)] = [("cafe-nfc.txt", "caf\u{E9}.txt"), ("cafe-nfd.txt", "cafe\u{301}.txt")]

    /// The name on disk and to docver of a model name.
    static func real(_ name: String) -> String {
        spellings.first { $0.alias == name }?.real ?? name
    }

    /// The model name of a name read from disk, git or docver, compared by bytes.
    static func alias(_ name: String) -> String {
        spellings.first { $0.real.utf8.elementsEqual(name.utf8) }?.alias ?? name
    }
}

/// A document's state: the bytes of a flat document, the files of a package, or absent.
///
/// A flat document's file mode is part of its state (issue 25 item 3): an executable one
/// (`100755`) holds its bytes followed by ``executableMark``, a line no edit writes, so a
/// mode change is a change of the state, and to a merge an atom that one side adds or removes
/// as it would a line (git's merge keeps a one-sided mode change).
enum FuzzState: Hashable, CustomStringConvertible {
    case absent
    case flat(Data)
    case package([String: Data])

    static let executableMark = Data("\n\u{0}mode 100755\n".utf8)

    /// A flat document's state with its mode.
    static func flat(_ data: Data, executable: Bool) -> FuzzState { .flat(executable ? data + executableMark : data) }

    /// True for an executable flat document.
    var isExecutable: Bool {
        if case let .flat(data) = self {
            return data.count >= FuzzState.executableMark.count && data.suffix(FuzzState.executableMark.count) == FuzzState.executableMark
        }
        return false
    }

    /// The state without its mode (the contents alone, as ``DocumentContents`` holds them).
    var withoutMode: FuzzState {
        guard isExecutable, case let .flat(data) = self else { return self }
        return .flat(data.dropLast(FuzzState.executableMark.count))
    }

    /// A version's state as `device` reads it (`contents(of:)`), with its mode read with git
    /// from the version's commit.
    static func of(_ version: DocumentVersion, on device: Container, trees: GitTrees) throws -> FuzzState {
        let state = FuzzState(try device.contents(of: version))
        guard case let .flat(data) = state else { return state }
        return .flat(data, executable: try trees.isExecutable(FuzzNames.alias(version.document.path), at: version.id, in: device.root))
    }

    init(_ contents: DocumentContents) {
        switch contents {
        case let .flat(data): self = .flat(data)
        case let .package(package): self = .package(package.files)
        case .deleted: self = .absent
        }
    }

    var isAbsent: Bool { self == .absent }

    /// The text lines of a flat document, or of a package's `text.txt`; nil otherwise.
    var textLines: [String]? {
        switch self {
        case let .flat(data): return FuzzState.lines(data)
        case let .package(files): return files["text.txt"].map(FuzzState.lines)
        case .absent: return nil
        }
    }

    static func lines(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// What a three-way merge moves around, as a set: the non-empty text lines (every line the
    /// harness writes carries a token of its own, so a line is one edit) and, for a package,
    /// each other file whole. Empty for an absence.
    var mergeAtoms: Set<String> {
        switch self {
        case .absent: return []
        case let .flat(data): return Set(FuzzState.lines(data).filter { !$0.isEmpty })
        case let .package(files):
            var atoms = Set((files["text.txt"].map(FuzzState.lines) ?? []).filter { !$0.isEmpty })
            for (name, data) in files where name != "text.txt" { atoms.insert("\u{0}\(name)=\(FuzzState.fingerprint(data))") }
            return atoms
        }
    }

    /// True for contents that hold a conflict-marker region (`<<<<<<<` … `>>>>>>>`).
    var hasConflictMarkers: Bool {
        guard let lines = textLines else { return false }
        guard let start = lines.firstIndex(where: { $0.hasPrefix("<<<<<<<") }) else { return false }
        return lines[start...].contains { $0.hasPrefix(">>>>>>>") }
    }

    /// A short, stable fingerprint for logs: `absent`, `flat#1a2b3c4d/57B`, `pkg#…`.
    var description: String {
        switch self {
        case .absent: return "absent"
        case let .flat(data): return (isExecutable ? "flat+x#" : "flat#") + "\(FuzzState.fingerprint(data))/\(data.count)B"
        case let .package(files):
            var all = Data()
            for name in files.keys.sorted() { all += Data(name.utf8) + [0] + files[name]! + [0] }
            return "pkg#\(FuzzState.fingerprint(all))/\(files.count)f"
        }
    }

    static func fingerprint(_ data: Data) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in data { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return String(hash, radix: 16).leftPadded(to: 8)
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
    var short: String { String(prefix(10)) }
}

// MARK: - The model

/// One document's state in one save, as the harness recorded it when the save appeared on
/// the device that made it (API saves, saves before a sync, plain `git commit`s, resolutions).
struct FuzzVersion: CustomStringConvertible {
    var commit: String
    var device: String
    var document: String
    var state: FuzzState
    /// The document's state in the save's parent: the state the device saved on top of.
    var before: FuzzState
    var step: Int
    var operation: String
    /// Further states the version was made from: the other parents' states of a merge made
    /// with plain git, the conflict versions a docver merge resolution merged.
    var alsoFrom: [FuzzState] = []
    /// The states this version holds in full, so that they are accounted for when it is (nil:
    /// `before`). A merge lists only the sides whose every change it holds.
    var supersedes: [FuzzState]? = nil
    /// A decision that kept one version's contents (choose, latest-date), or a replace with
    /// one: made from that version alone, not from the state it replaced (docs/RESOLVING.md,
    /// "merge").
    var keepsOneVersion = false

    var description: String {
        "\(commit.short) \(document) \(state) by \(device) at step \(step) (\(operation)) on top of \(before)"
            + (alsoFrom.isEmpty ? "" : " and \(alsoFrom)")
    }
}

/// A merge made with plain git, as the harness made it.
struct FuzzPlainMerge: CustomStringConvertible {
    var commit: String
    /// How: `git merge -X theirs` in bob's checkout, in a plain clone pushed to docver/x, ...
    var how: String
    var step: Int
    /// Per document with new content: the parents' states whose changes the result lacks, and
    /// what it lacks of each (lines added since the base missing, lines removed still there).
    var dropped: [String: [(state: FuzzState, missing: [String])]] = [:]
    /// Per document: the parents' states the result is not (a side another side's version
    /// replaced whole, as `-s ours` does, or one whose changes the result lacks). docs/FORMAT.md
    /// ("Merges made with plain git"): such a side's version is set aside, unless it is an
    /// ancestor of the version kept.
    var notKept: [String: [FuzzState]] = [:]
    /// Per document the result holds: the parents it is absent in. A deletion on such a
    /// parent's line is a version the merge may set aside (the result is the other side's
    /// version, which does not descend from the deletion), as it sets aside contents.
    var absentIn: [String: [String]] = [:]

    var description: String { "plain merge \(commit.short) at step \(step) (\(how))" }
}

/// A resolution of a conflict, as decided on one device.
struct FuzzDecision: CustomStringConvertible {
    var device: String
    var document: String
    /// The commit that recorded the decision (a resolution save or a record-only commit).
    var commit: String
    var kind: String
    /// The conflict decided: the current version and the conflict versions, sorted.
    var conflict: [String]
    /// The document's state the decision made current.
    var result: FuzzState
    var step: Int
    /// For a merge resolution: the merged versions whose changes the result lacks (by the
    /// model's own merge base, not docver's).
    var notIncluded: [String] = []

    var description: String { "\(device) \(kind) of \(document) at step \(step) → \(result) (\(commit.short))" }
}

/// Everything the harness recorded.
struct FuzzModel {
    var versions: [FuzzVersion] = []
    /// Every save commit any device made (each holds one or more of `versions`, or none for
    /// record-only commits): commit → "device, step, operation".
    var saves: [String: String] = [:]
    var decisions: [FuzzDecision] = []
    /// Commits the harness made with plain git (commits and merges): commit → what.
    var plainCommits: [String: String] = [:]
    /// Plain commits carrying typed `Docver-` records: commit → the records (`key: value`) and
    /// whether the commit hook marked the commit. docver honours records only in the commits it
    /// writes them in (docs/FORMAT.md, "Records from plain git"): these are ignored, with a
    /// warning from the sync that brings them.
    var typedRecords: [String: (records: [String], hook: Bool)] = [:]
    var plainMerges: [FuzzPlainMerge] = []
    var documents: Set<String> { Set(versions.map(\.document)).union(FuzzNames.all) }

    /// Whether a plain merge had a parent holding `state` of `document` and a result that is not
    /// that state: a merge that may have set a version of that state aside.
    func plainMergeReplaced(_ state: FuzzState, of document: String) -> Bool {
        plainMerges.contains { $0.notKept[document]?.contains(state) == true }
    }

    /// Whether a plain merge had a parent on the line of `deletion` (a version that deleted
    /// `document`) where the document was absent, and a result that holds it: a merge that may
    /// have set the deletion aside.
    func plainMergeReplacedDeletion(_ deletion: String, of document: String, graph: FuzzGraph) -> Bool {
        plainMerges.contains { merge in
            merge.absentIn[document]?.contains { graph.isAncestorOrSelf(deletion, of: $0) } == true
        }
    }

    /// For a finding's message: the plain commits whose typed records name one of `versions`.
    func typedRecordNotes(naming versions: Set<String>) -> [String] {
        typedRecords.sorted { $0.key < $1.key }.compactMap { commit, typed in
            let named = typed.records.filter { record in versions.contains { record.contains($0) } }
            guard !named.isEmpty else { return nil }
            return "named by \(named.map { String($0.prefix(28)) }) typed into plain commit \(commit.short) "
                + (typed.hook ? "marked by the commit hook" : "made without the hook")
        }
    }
}

// MARK: - Lineage: which saved state each version was made from

/// The model's own derivation graph of document states, for merge bases computed without
/// docver: a version's predecessors are the newest versions, on its commit's ancestry, that hold
/// the state it was saved on top of (`before`), the states it merged (`alsoFrom`) or its own
/// state (a revert, a copy or a chosen version saved again). Merge results are then computed as
/// sets of atoms (lines), which is exact for clean merges because every line carries a token.
final class FuzzLineage {
    let versions: [FuzzVersion]
    let graph: FuzzGraph
    private var byState: [FuzzState: [Int]] = [:]
    /// Deletions, per document: the absence a re-creation was saved on top of.
    private var deletions: [String: [Int]] = [:]
    private var predecessorMemo: [Int: [Int]] = [:]
    private var ancestorMemo: [Int: Set<Int>] = [:]
    private var heldAncestorMemo: [Int: Set<Int>] = [:]

    init(_ model: FuzzModel, graph: FuzzGraph) {
        versions = model.versions
        self.graph = graph
        for (index, version) in versions.enumerated() where graph.contains(version.commit) {
            if version.state.isAbsent {
                deletions[version.document, default: []].append(index)
            } else {
                byState[version.state, default: []].append(index)
            }
        }
    }

    /// The newest versions holding `state` on the ancestry of `commit` (itself included unless
    /// `strictly`). For the absence: the newest deletions of `document`, so that a re-creation
    /// is made on top of the deletion, as docver's version graph has it (docs/RESOLVING.md).
    func nodes(holding state: FuzzState, of document: String? = nil, before commit: String, strictly: Bool = false) -> [Int] {
        let pool = state.isAbsent ? document.map { deletions[$0] ?? [] } ?? [] : byState[state] ?? []
        let candidates = pool.filter {
            graph.isAncestorOrSelf(versions[$0].commit, of: commit) && (!strictly || versions[$0].commit != commit)
        }
        return candidates.filter { candidate in
            !candidates.contains { other in
                versions[other].commit != versions[candidate].commit
                    && graph.isAncestorOrSelf(versions[candidate].commit, of: versions[other].commit)
            }
        }
    }

    /// The version of `document` at `commit` holding `state`: the model's version made there,
    /// or the newest one holding that state before it.
    func node(commit: String, document: String, state: FuzzState) -> [Int] {
        if let exact = versions.indices.first(where: { versions[$0].commit == commit && versions[$0].document == document }),
            versions[exact].state == state, graph.contains(commit)
        {
            return [exact]
        }
        return nodes(holding: state, of: document, before: commit)
    }

    func predecessors(_ index: Int) -> [Int] {
        if let known = predecessorMemo[index] { return known }
        let version = versions[index]
        var result: [Int] = []
        let states = version.keepsOneVersion ? [version.state] : [version.before] + version.alsoFrom + [version.state]
        for state in states {
            for node in nodes(holding: state, of: version.document, before: version.commit, strictly: true) where !result.contains(node) {
                result.append(node)
            }
        }
        predecessorMemo[index] = result
        return result
    }

    func ancestors(_ index: Int) -> Set<Int> {
        if let known = ancestorMemo[index] { return known }
        var seen: Set<Int> = [index]
        var stack = [index]
        while let next = stack.popLast() {
            for predecessor in predecessors(next) where seen.insert(predecessor).inserted { stack.append(predecessor) }
        }
        ancestorMemo[index] = seen
        return seen
    }

    func ancestors(_ nodes: [Int]) -> Set<Int> { nodes.reduce(into: Set<Int>()) { $0.formUnion(ancestors($1)) } }

    /// The ancestors whose every change `index` holds: the walk of ``ancestors(_:)`` through
    /// the states each version holds in full only (a merge's `supersedes`, not the sides whose
    /// changes it dropped).
    func heldAncestors(_ index: Int) -> Set<Int> {
        if let known = heldAncestorMemo[index] { return known }
        var seen: Set<Int> = [index]
        var stack = [index]
        while let next = stack.popLast() {
            let version = versions[next]
            let states = version.keepsOneVersion ? [version.state] : (version.supersedes ?? [version.before]) + [version.state]
            for state in states {
                for node in nodes(holding: state, of: version.document, before: version.commit, strictly: true)
                where seen.insert(node).inserted {
                    stack.append(node)
                }
            }
        }
        heldAncestorMemo[index] = seen
        return seen
    }

    /// True when `side` descends from `version` in the lineage without holding its changes
    /// (a plain merge made on top of it that dropped them).
    func descendsWithoutHolding(_ side: [Int], _ version: [Int]) -> Bool {
        let reached = ancestors(side), held = side.reduce(into: Set<Int>()) { $0.formUnion(heldAncestors($1)) }
        return version.contains { reached.contains($0) && !held.contains($0) }
    }

    /// The best common ancestors of two sides (each one or more versions).
    func bestCommonAncestors(_ a: [Int], _ b: [Int]) -> [Int] {
        let common = ancestors(a).intersection(ancestors(b))
        return common.filter { node in !common.contains { $0 != node && ancestors($0).contains(node) } }.sorted()
    }

    /// The atoms of the merge base of two sides; with several best common ancestors, their own
    /// merge (git's recursive merge), folded. Empty when they have none (created independently).
    func baseAtoms(_ a: [Int], _ b: [Int], depth: Int = 0) -> Set<String> {
        let best = bestCommonAncestors(a, b)
        guard let first = best.first else { return [] }
        var side = [first]
        var atoms = versions[first].state.mergeAtoms
        // (A deletion among several ancestors leaves the fold as it is, as in docver's mergeBase.)
        for next in best.dropFirst() where !versions[next].state.isAbsent && versions[next].state.mergeAtoms != atoms {
            let base = depth > 4 ? atoms.intersection(versions[next].state.mergeAtoms) : baseAtoms(side, [next], depth: depth + 1)
            atoms = Self.merge(atoms, versions[next].state.mergeAtoms, base: base)
            side.append(next)
        }
        return atoms
    }

    /// A clean three-way merge, as sets: what both sides hold, and what either added.
    static func merge(_ ours: Set<String>, _ theirs: Set<String>, base: Set<String>) -> Set<String> {
        ours.intersection(theirs).union(ours.subtracting(base)).union(theirs.subtracting(base))
    }

    /// What `result` lacks of one side's changes against the others since their merge base:
    /// atoms the side added that are missing, atoms it removed that are still there.
    func lacks(_ result: Set<String>, side: [Int], atoms: Set<String>, others: [Int]) -> [String] {
        let base = baseAtoms(side, others)
        let missing = atoms.subtracting(base).subtracting(result).map { "missing: " + $0 }
        let resurrected = base.subtracting(atoms).intersection(result).map { "removed but still there: " + $0 }
        return (missing + resurrected).sorted()
    }

    /// The versions a merge resolution's side is compared with (`lacks`): the other merged
    /// sides' versions, but not those the side descends from (a conflict version its device
    /// edited on top of, still listed). Such an ancestor is no rival: merged against the side
    /// it changes nothing, as docs/RESOLVING.md ("merge") merges each version against its own
    /// base with the current one. Taken as a rival, it would make the side's base that
    /// ancestor, so that the side's undoing of the ancestor's edit of a line would count as a
    /// change of the side's own, lacking wherever a true rival edited the same line. (All the
    /// others when every one is an ancestor.)
    func rivals(of index: Int, among sides: [[Int]]) -> [Int] {
        let ancestry = ancestors(sides[index])
        let others = sides.indices.filter { $0 != index }
        let rivals = others.filter { !sides[$0].allSatisfy(ancestry.contains) }
        return (rivals.isEmpty ? others : rivals).flatMap { sides[$0] }
    }

    /// Whether `git merge-file` finds every change of a flat text side, since its one best
    /// common ancestor with the others, in `result` in order: merging the side into the
    /// result again changes nothing (docs/FORMAT.md, "Merges made with plain git": "text line
    /// by line"). False when the side, the result or that base is not flat text, or the sides
    /// have several best common ancestors or none.
    ///
    /// `lacks` compares sets of lines, which cannot tell a line the result still has where the
    /// side removed it from the same line put back elsewhere: a conflict settled with both
    /// sides' hunks (`ours` then `theirs`) holds, after the side's replacement of a line, the
    /// other side's unchanged copy of that line. Git then reads the copy as a line the result
    /// added, and the side's replacement as made.
    func heldLineByLine(_ result: FuzzState, side: [Int], state: FuzzState, others: [Int]) throws -> Bool {
        let best = bestCommonAncestors(side, others)
        guard best.count == 1, case let .flat(base) = versions[best[0]].state,
            case let .flat(ours) = result, case let .flat(theirs) = state
        else { return false }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-merge-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, data) in [("result", ours), ("base", base), ("side", theirs)] {
            try data.write(to: directory.appendingPathComponent(name))
        }
        let merged = try runProcess("/usr/bin/git", ["merge-file", "-p", "result", "base", "side"], in: directory)
        return merged.status == 0 && merged.stdoutData == ours
    }
}

// MARK: - What the converged devices show

/// The state of the converged container, read from one device after the final syncs.
struct FuzzObservation {
    struct Listed: Hashable, CustomStringConvertible {
        var id: String
        var device: String
        var state: FuzzState
        var description: String { "\(id.short)@\(device) \(state)" }
    }

    var head: String
    /// The current version of every document the model knows (nil: never saved).
    var currentID: [String: String] = [:]
    var current: [String: FuzzState] = [:]
    /// `conflicts()`: the unresolved conflict versions of each document, in listing order.
    var listing: [String: [Listed]] = [:]
    /// The current version `conflicts()` names for each listed document.
    var listedCurrent: [String: String] = [:]
    /// The unresolved set as docs/FORMAT.md defines it, computed from the trailers with git:
    /// `Docver-Conflict` − `Docver-Resolved` − `Docver-Removed`, minus the current version.
    var unresolvedByTrailers: [String: Set<String>] = [:]
    /// Every `Docver-Conflict` record, by path: the version ids.
    var conflictRecords: [String: Set<String>] = [:]
    /// Versions set aside by a resolution: in a `Docver-Resolved` or `Docver-Removed` trailer.
    var setAside: [String: Set<String>] = [:]
    /// The states of the versions set aside.
    var setAsideStates: [String: [FuzzState]] = [:]
    /// `history(of:)` of every document with a current version: states, newest first.
    var history: [String: [FuzzState]] = [:]
    /// Plain folders the API showed as versions of the file of the same name in conflict (a
    /// package-kind current or conflict version of a name without an extension): "document
    /// id". They are absences to the oracle (docs/FORMAT.md: a plain folder is no document),
    /// and the files in them count as visible.
    var foldersShownAsVersions: [String] = []
    var filesInFolderVersions: Set<FuzzState> = []
    /// For every integration in the history: the model's documents absent there.
    var absentAtMerges: [String: Set<String>] = [:]
    /// Versions only a merge resolution's records set aside, though its result lacks their
    /// changes (a "clean" merge that dropped them): not set aside.
    var claimedByMerges: [String] = []
    /// `resolvedConflictVersions(of:)` of documents where it lists a version more than once.
    var resolvedListedTwice: [String: [String]] = [:]
    var graph: FuzzGraph

    init(head: String, graph: FuzzGraph) {
        self.head = head
        self.graph = graph
    }

    /// Reads the observation from `device` (which must be at `head`) through the public API,
    /// and the trailers and ancestry through git.
    static func read(from device: Container, model: FuzzModel, trees: GitTrees) throws -> FuzzObservation {
        let documents = model.documents
        let head = try #require(try device.headID())
        var observation = FuzzObservation(head: head, graph: try FuzzGraph(head: head, in: device.root))
        for document in documents.sorted() {
            let path = try DocumentPath(FuzzNames.real(document))
            guard let current = try device.currentVersion(of: path) else { continue }
            observation.currentID[document] = current.id
            observation.current[document] = observation.normalized(
                try FuzzState.of(current, on: device, trees: trees), of: document,
                id: current.id, inConflict: try !device.conflicts(path).isEmpty)
            if !current.isDeletion {
                observation.history[document] = try device.history(of: path).map { try FuzzState.of($0, on: device, trees: trees) }
            }
        }
        for conflict in try device.conflicts() {
            let document = FuzzNames.alias(conflict.document.path)
            observation.listedCurrent[document] = conflict.current.id
            observation.listing[document] = try conflict.conflicts.map {
                Listed(
                    id: $0.id, device: $0.device.id,
                    state: observation.normalized(try FuzzState.of($0, on: device, trees: trees), of: document, id: $0.id, inConflict: true))
            }
        }
        // The trailers, each commit's separately (docs/FORMAT.md, "With plain git"). Records
        // count only in the commits docver writes them in ("Records from plain git"): conflict
        // records in integrations, decisions in docver's own saves and resolutions, never in
        // the plain commits the harness made (typed records there are ignored).
        let format =
            "%H%x1f%(trailers:key=Docver-Integration,valueonly)%x1f%(trailers:key=Docver-Conflict,valueonly,separator=%x1d)%x1f"
            + "%(trailers:key=Docver-Resolved,valueonly,separator=%x1d)%x1f%(trailers:key=Docver-Removed,valueonly,separator=%x1d)%x1e"
        var conflicts: [String: Set<String>] = [:]
        var settledBy: [String: [String: Set<String>]] = [:]
        for record in try runGit(["log", "--format=" + format, head], in: device.root).split(separator: "\u{1e}") {
            let fields = record.split(separator: "\u{1f}", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5 else { continue }
            let commit = fields[0].trimmingCharacters(in: .whitespacesAndNewlines)
            func records(_ field: String) -> [(version: String, path: String)] {
                field.split(separator: "\u{1d}").compactMap { value in
                    let words = value.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").map(String.init)
                    guard let version = words.first, let path = words.last, words.count >= 2 else { return nil }
                    return (version, FuzzNames.alias(path.removingPercentEncoding ?? path))
                }
            }
            if fields[1].trimmingCharacters(in: .whitespacesAndNewlines) == "1" {
                for (version, path) in records(fields[2]) { conflicts[path, default: []].insert(version) }
            }
            if model.plainCommits[commit] == nil {
                for (version, path) in records(fields[3]) + records(fields[4]) { settledBy[path, default: [:]][version, default: []].insert(commit) }
            }
        }
        // Versions a merge made with plain git set aside carry no trailer: docver derives them
        // from the merge (docs/FORMAT.md, "Merges made with plain git") and lists them as
        // resolved conflict versions (`versions --all`). (Not one that only a typed record
        // resolved: that record is ignored.)
        let typed = Set(
            model.typedRecords.values.flatMap(\.records).compactMap { record -> String? in
                let words = record.split(separator: " ").map(String.init)
                guard words.count >= 3, words[0] == "Docver-Resolved:" || words[0] == "Docver-Removed:" else { return nil }
                return words[1] + " " + FuzzNames.alias(words.last!.removingPercentEncoding ?? words.last!)
            })
        // A version a typed record names may still have been set aside by a plain merge (the
        // record is ignored, the merge is not): only if a plain merge replaced its state, or,
        // for a deletion, kept the document where the deletion's line had it absent (seed 35).
        for document in documents.sorted() {
            let resolved = try device.resolvedConflictVersions(of: DocumentPath(FuzzNames.real(document)))
            if Set(resolved.map(\.id)).count != resolved.count { observation.resolvedListedTwice[document] = resolved.map(\.id) }
            for version in resolved {
                let settledHere = settledBy[document]?[version.id] != nil
                let named = typed.contains(version.id + " " + document)
                let state = try named ? trees.state(of: document, at: version.id, in: device.root) : .absent
                let replaced =
                    named
                    && (model.plainMergeReplaced(state, of: document)
                        || state.isAbsent && model.plainMergeReplacedDeletion(version.id, of: document, graph: observation.graph))
                guard settledHere || !named || replaced else { continue }
                settledBy[document, default: [:]][version.id, default: []].insert("plain merge")
            }
        }
        // A merge resolution names every version it merged in its records. A version whose
        // changes the result lacks was not merged: such a record does not set it aside.
        let mergeResolutions = Dictionary(model.decisions.filter { $0.kind == "resolve merge" }.map { ($0.commit, $0) }) { a, _ in a }
        var settled: [String: Set<String>] = [:]
        for (document, versions) in settledBy {
            for (version, commits) in versions {
                if commits.allSatisfy({ mergeResolutions[$0]?.notIncluded.contains(version) == true }) {
                    observation.claimedByMerges.append(
                        "\(document): \(version.short) is named by the merge resolution\(commits.count == 1 ? "" : "s") "
                            + "\(commits.map(\.short).sorted()), whose result lacks its changes")
                    continue
                }
                settled[document, default: []].insert(version)
            }
        }
        for (document, versions) in conflicts {
            var open = versions.subtracting(settled[document] ?? []).subtracting((settledBy[document] ?? [:]).keys)
            if let current = observation.currentID[document] { open.remove(current) }
            if !open.isEmpty { observation.unresolvedByTrailers[document] = open }
        }
        observation.setAside = settled
        observation.conflictRecords = conflicts
        for merge in observation.graph.merges {
            let files = try trees.files(at: merge, in: device.root)
            observation.absentAtMerges[merge] = documents.filter { document in
                FuzzNames.isPackage(document) ? !files.keys.contains { $0.hasPrefix(document + "/") } : files[document] == nil
            }
        }
        for (document, versions) in settled {
            observation.setAsideStates[document] = try versions.sorted().map {
                try trees.state(of: document, at: $0, in: device.root)
            }
        }
        return observation
    }

    /// A package-kind state of a name that is not a package name is a plain folder: absent.
    mutating func normalized(_ state: FuzzState, of document: String, id: String, inConflict: Bool) -> FuzzState {
        guard case let .package(files) = state, !FuzzNames.isPackage(document) else { return state }
        if inConflict { foldersShownAsVersions.append("\(document) \(id.short)") }
        for data in files.values { filesInFolderVersions.insert(.flat(data)) }
        return .absent
    }
}

// MARK: - The oracle

/// One thing the oracle found wrong, and the document it is about (if one).
struct FuzzFailure: CustomStringConvertible {
    var document: String?
    /// The version lost, for a lost version.
    var version: FuzzVersion?
    var message: String
    var description: String { message }
}

enum FuzzOracle {
    /// Checks (2) every save reachable from the converged head and no version lost, (5) each
    /// conflict version listed once, never the current version, and the listing equal to the
    /// unresolved set computed from the trailers, and that a version a later save replaced on
    /// the line of the current version is in `history(of:)`. Returns one failure per finding.
    static func check(_ model: FuzzModel, _ observation: FuzzObservation) -> [FuzzFailure] {
        var failures: [FuzzFailure] = []
        let graph = observation.graph

        // Every save is in the converged history.
        for (commit, what) in model.saves.sorted(by: { $0.key < $1.key }) where !graph.contains(commit) {
            failures.append(FuzzFailure(message: "save \(commit.short) (\(what)) is not reachable from the converged head \(observation.head.short)"))
        }

        // The listing: each conflict version once, never the current version, and exactly the
        // unresolved set computed from the trailers.
        for document in Set(observation.listing.keys).union(observation.unresolvedByTrailers.keys).sorted() {
            let listed = observation.listing[document] ?? []
            let ids = listed.map(\.id)
            if Set(ids).count != ids.count {
                failures.append(FuzzFailure(document: document, message: "\(document): a conflict version is listed twice: \(listed)"))
            }
            if let current = observation.listedCurrent[document], ids.contains(current) {
                failures.append(
                    FuzzFailure(document: document, message: "\(document): the current version \(current.short) is also listed as a conflict version")
                )
            }
            // A document with no version on this line (a plain folder of its name is current)
            // is listed with its absence at the head as current.
            if let current = observation.listedCurrent[document], current != observation.currentID[document],
                observation.currentID[document] != nil
            {
                failures.append(
                    FuzzFailure(
                        document: document,
                        message:
                            "\(document): conflicts() names \(current.short) as current, currentVersion(of:) \(observation.currentID[document]?.short ?? "none")"
                    ))
            }
            let expected = observation.unresolvedByTrailers[document] ?? []
            if Set(ids) != expected {
                let typed = model.typedRecordNotes(naming: Set(ids).symmetricDifference(expected))
                failures.append(
                    FuzzFailure(
                        document: document,
                        message:
                            "\(document): conflicts() lists \(ids.map(\.short).sorted()), the trailers leave \(expected.map(\.short).sorted()) unresolved"
                            + (typed.isEmpty ? "" : " (" + typed.joined(separator: "; ") + ")")))
            }
        }

        // A conflict version is identified by its version alone (docs/FORMAT.md, "The
        // unresolved set"): records of it from several commits list it once, resolved too.
        for (document, ids) in observation.resolvedListedTwice.sorted(by: { $0.key < $1.key }) {
            failures.append(
                FuzzFailure(
                    document: document, message: "\(document): resolvedConflictVersions (versions --all) lists a version twice: \(ids.map(\.short))"))
        }

        // docs/FORMAT.md: a plain folder is no document, so never a version of one.
        for folder in observation.foldersShownAsVersions {
            let document = String(folder.split(separator: " ")[0])
            failures.append(
                FuzzFailure(
                    document: document,
                    message:
                        "\(document): the plain folder of version \(folder.split(separator: " ")[1]) is shown as a version of the file \(document) (kind package)"
                ))
        }

        // No version lost.
        let lost = lostVersions(model, observation)
        for version in lost {
            let document = version.document
            // Why nothing holds it, when the model knows: a merge that claimed it.
            var why = observation.claimedByMerges.filter { $0.hasPrefix("\(document): \(version.commit.short) ") }
            why += model.typedRecordNotes(naming: [version.commit])
            for merge in model.plainMerges {
                for (_, sides) in merge.dropped {
                    for side in sides where side.state == version.state {
                        // (A mode is the atom "\0mode 100755": its NUL would end the printed line.)
                        let missing = side.missing.prefix(3).joined(separator: "; ").replacingOccurrences(of: "\u{0}", with: "\\0")
                        why.append("\(merge) lacks its changes (\(missing)) and set nothing aside")
                    }
                }
            }
            failures.append(
                FuzzFailure(
                    document: document, version: version,
                    message:
                        "version lost: \(version); current \(observation.currentID[document]?.short ?? "none") \(observation.current[document] ?? .absent), "
                        + "conflict versions \(observation.listing[document] ?? []), set aside \((observation.setAside[document] ?? []).map(\.short).sorted())"
                        + (why.isEmpty ? "" : "; " + why.joined(separator: "; "))))
        }

        // A version that later saves replaced, on the line that leads to the current version,
        // is in the current version's history.
        failures += historyFailures(model, observation)
        return failures
    }

    /// The versions the converged container does not account for.
    ///
    /// A version is accounted for when its state is visible — the current state of a
    /// document, an unresolved conflict version, a version a resolution set aside — or when a
    /// save that is itself accounted for was made on top of it (that save replaced it; it is
    /// in that save's history). States are compared by contents: every edit writes a token of
    /// its own, so equal contents are the same edit (or an identical edit, which is one state),
    /// and contents may move to another name (a rename that an edit followed).
    ///
    /// A deletion is an absence of one document: accounted for when the document is absent
    /// now, when a deletion of it is listed or set aside, when an accounted-for save re-created
    /// the document on top of it, or when it is the same change as an accounted-for deletion
    /// (it deleted the same state, or an integration joined the two while the document stayed
    /// absent). A deletion nobody contested may also drop out: when no concurrent save edited
    /// the state it deleted and that state did not come back, a document created elsewhere
    /// under the same name (on a line that never held it) legitimately takes the name. A
    /// contested deletion — one that competed with an edit of the state it deleted — must stay
    /// visible ("a modification beats a deletion", and the deletion is kept as a conflict
    /// version).
    static func lostVersions(_ model: FuzzModel, _ observation: FuzzObservation) -> [FuzzVersion] {
        let graph = observation.graph
        var visibleNow: [String: Set<FuzzState>] = [:]
        for (document, state) in observation.current { visibleNow[document, default: []].insert(state) }
        for (document, listed) in observation.listing { visibleNow[document, default: []].formUnion(listed.map(\.state)) }
        func mustStayVisible(_ deletion: FuzzVersion) -> Bool {
            let contested = model.versions.contains {
                $0.document == deletion.document && !$0.state.isAbsent && $0.before == deletion.before && $0.commit != deletion.commit
                    && !graph.isAncestorOrSelf($0.commit, of: deletion.commit) && !graph.isAncestorOrSelf(deletion.commit, of: $0.commit)
            }
            let resurrected = visibleNow[deletion.document]?.contains(deletion.before) ?? false
            return contested || resurrected
        }
        let uncontested = Set(model.versions.filter { $0.state.isAbsent && !mustStayVisible($0) }.map { "\($0.commit) \($0.document)" })

        var visible: Set<FuzzState> = []
        for state in observation.current.values where !state.isAbsent { visible.insert(state) }
        for listed in observation.listing.values.joined() where !listed.state.isAbsent { visible.insert(listed.state) }
        for state in observation.setAsideStates.values.joined() where !state.isAbsent { visible.insert(state) }
        visible.formUnion(observation.filesInFolderVersions)

        var accounted = Array(repeating: false, count: model.versions.count)
        // Saves accounted for that (re-)created their document on top of its absence.
        var recreations: [String: [String]] = [:]
        // Deletions accounted for, by document and the state they deleted: another deletion
        // of the same state is the same change (two devices that deleted the same version).
        var deleted: Set<String> = []
        func deletionKey(_ version: FuzzVersion) -> String { "\(version.document) \(version.before)" }
        // Deletions accounted for, by document (commits).
        var accountedDeletions: [String: [String]] = [:]
        // Two deletions that an integration joined while the document stayed absent became one
        // absence: what accounts for one accounts for the other.
        func mergedWithAccountedDeletion(_ version: FuzzVersion) -> Bool {
            guard let others = accountedDeletions[version.document] else { return false }
            return observation.absentAtMerges.contains { merge, absent in
                absent.contains(version.document) && observation.graph.isAncestorOrSelf(version.commit, of: merge)
                    && others.contains { $0 != version.commit && observation.graph.isAncestorOrSelf($0, of: merge) }
            }
        }
        var changed = true
        while changed {
            changed = false
            // Newest first: a save made on top of another is usually later, so one pass
            // accounts for most chains.
            for index in model.versions.indices.reversed() where !accounted[index] {
                let version = model.versions[index]
                let document = version.document
                let listedIDs = Set((observation.listing[document] ?? []).map(\.id))
                var ok = listedIDs.contains(version.commit) || (observation.setAside[document]?.contains(version.commit) ?? false)
                if version.state.isAbsent {
                    // An absence is one state: a listed (or set aside) deletion of the document
                    // stands for every deletion of it (two lines that both deleted it and met
                    // hold one deletion version).
                    ok =
                        ok || (observation.current[document] ?? .absent).isAbsent || uncontested.contains("\(version.commit) \(document)")
                        || (observation.listing[document] ?? []).contains { $0.state.isAbsent }
                        || (observation.setAsideStates[document] ?? []).contains { $0.isAbsent }
                        || deleted.contains(deletionKey(version))
                        || mergedWithAccountedDeletion(version)
                        || (recreations[document] ?? []).contains { other in
                            other != version.commit && observation.graph.isAncestorOrSelf(version.commit, of: other)
                        }
                } else {
                    ok = ok || visible.contains(version.state)
                }
                if ok {
                    accounted[index] = true
                    changed = true
                    if version.state.isAbsent {
                        deleted.insert(deletionKey(version))
                        accountedDeletions[document, default: []].append(version.commit)
                    }
                    // What this version was saved on top of is in its history: accounted for
                    // (for a merge: each side whose every change it holds).
                    if version.before.isAbsent {
                        recreations[document, default: []].append(version.commit)
                    }
                    for state in version.supersedes ?? [version.before] where !state.isAbsent { visible.insert(state) }
                }
            }
        }
        return model.versions.indices.filter { !accounted[$0] }.map { model.versions[$0] }
    }

    /// For each document whose current version is a recorded save: every recorded version on
    /// the chain of saves made on top of one another that ends at the current version must
    /// be in `history(of:)`.
    static func historyFailures(_ model: FuzzModel, _ observation: FuzzObservation) -> [FuzzFailure] {
        var failures: [FuzzFailure] = []
        for (document, currentID) in observation.currentID.sorted(by: { $0.key < $1.key }) {
            guard let history = observation.history[document],
                let current = model.versions.first(where: { $0.commit == currentID && $0.document == document })
            else { continue }
            let known = Set(history).union([observation.current[document] ?? .absent])
            var queue = [current]
            var seen: Set<String> = [current.commit]
            while let next = queue.popLast() {
                guard !next.before.isAbsent else { continue }
                let predecessors = model.versions.filter {
                    $0.document == document && $0.state == next.before && $0.commit != next.commit
                        && observation.graph.isAncestorOrSelf($0.commit, of: next.commit)
                }
                if predecessors.isEmpty { continue }
                if !known.contains(next.before) {
                    failures.append(
                        FuzzFailure(
                            document: document,
                            message:
                                "\(document): \(predecessors[0]) was replaced by \(next.commit.short) on the line of the current version \(currentID.short), but history(of:) does not show it"
                        ))
                }
                // A state several saves hold (a revert, a copy, a chosen version saved again)
                // is one state; the history may reach it through any of them, so the chain
                // cannot be followed further.
                guard model.versions.filter({ $0.document == document && $0.state == next.before }).count == 1 else { continue }
                for predecessor in predecessors where seen.insert(predecessor.commit).inserted { queue.append(predecessor) }
            }
        }
        return failures
    }

    /// Check (6): two devices that resolved the same conflict differently before seeing each
    /// other's decision must both find their decision kept: each result current or a listed
    /// conflict version, or a later version on its own line (an edit of the state it kept)
    /// current or listed, unless a later save of the document descends from both decisions.
    /// An edit of the kept state made without seeing the decision supersedes it when that
    /// edit, or a later edit of it, is current or listed, or was set aside by an explicit
    /// resolution; decided contents that followed a rename count where they went.
    static func droppedDecisions(_ model: FuzzModel, _ observation: FuzzObservation) -> [FuzzFailure] {
        var failures: [FuzzFailure] = []
        let graph = observation.graph
        let decisions = model.decisions
        for i in decisions.indices {
            for j in decisions.indices where j > i {
                let (a, b) = (decisions[i], decisions[j])
                guard a.document == b.document, a.device != b.device, a.conflict == b.conflict, a.result != b.result,
                    !graph.isAncestorOrSelf(a.commit, of: b.commit), !graph.isAncestorOrSelf(b.commit, of: a.commit)
                else { continue }
                // A later save or resolution of the document made after seeing both decided anew.
                let later = model.versions.map { ($0.document, $0.commit) } + decisions.map { ($0.document, $0.commit) }
                if later.contains(where: { document, commit in
                    document == a.document && commit != a.commit && commit != b.commit
                        && graph.isAncestorOrSelf(a.commit, of: commit) && graph.isAncestorOrSelf(b.commit, of: commit)
                }) {
                    continue
                }
                let current = observation.current[a.document] ?? .absent
                let listed = Set((observation.listing[a.document] ?? []).map(\.state))
                for (decision, other) in [(a, b), (b, a)] where decision.result != current && !listed.contains(decision.result) {
                    // The decision lived on: a later save or decision of the document on its own
                    // line (an edit of the state it kept) is current or listed (or was set aside
                    // by a git user's plain merge, which docver records), or is current
                    // at the name another device renamed the document to (the edit followed
                    // the rename).
                    let setAsideHere = observation.setAside[a.document] ?? []
                    let evolved = later.contains { document, commit in
                        document == a.document && commit != decision.commit && graph.isAncestorOrSelf(decision.commit, of: commit)
                            && (setAsideHere.contains(commit)
                                || (model.versions.first { $0.commit == commit && $0.document == document }?.state
                                    ?? decisions.first { $0.commit == commit }?.result).map { state in
                                        state == current || listed.contains(state) || (!state.isAbsent && observation.current.values.contains(state))
                                    } == true)
                    }
                    // A version of `document` that is `edit` or descends from it is current or listed.
                    func livesOn(_ edit: FuzzVersion, in document: String) -> Bool {
                        let now = observation.current[document] ?? .absent
                        let shown = Set((observation.listing[document] ?? []).map(\.state))
                        return model.versions.contains { version in
                            version.document == document && graph.isAncestorOrSelf(edit.commit, of: version.commit)
                                && (version.state == now || shown.contains(version.state))
                        }
                    }
                    // A version of `document` that is `edit` or descends from it was set aside by
                    // an explicit resolution (a record, or a git user's plain merge, which docver
                    // records): someone who saw it decided against it.
                    func setAsideOnItsLine(_ edit: FuzzVersion, in document: String) -> Bool {
                        let settled = observation.setAside[document] ?? []
                        return model.versions.contains { version in
                            version.document == document && graph.isAncestorOrSelf(edit.commit, of: version.commit)
                                && settled.contains(version.commit)
                        }
                    }
                    // An ordinary edit of the kept state, made before seeing the decision, supersedes
                    // it (docs/FORMAT.md, "Integration"): that edit, or a later edit of it, is
                    // current or listed, or was set aside by an explicit resolution (the decided
                    // contents went on in the edit, and the edit was not lost in silence; `evolved`
                    // allows the same for a later version on the decision's own line).
                    let edited = model.versions.contains { version in
                        version.document == a.document && version.before == decision.result
                            && !graph.isAncestorOrSelf(version.commit, of: decision.commit)
                            && !decisions.contains { $0.commit == version.commit }
                            && (livesOn(version, in: a.document) || setAsideOnItsLine(version, in: a.document))
                    }
                    // The decided contents followed another device's rename of the document (the
                    // edit follows the rename): they are current at the new name, or a save there,
                    // after the decision, edited them, and it or a later edit of it is current or
                    // listed there.
                    let followedRename =
                        !decision.result.isAbsent
                        && (observation.current.contains { document, state in
                            document != a.document && state == decision.result
                        }
                            || model.versions.contains { version in
                                version.document != a.document && version.before == decision.result
                                    && graph.isAncestorOrSelf(decision.commit, of: version.commit)
                                    && livesOn(version, in: version.document)
                            })
                    // The decision itself became a conflict version and was then resolved by
                    // someone who saw both: a later resolution, or a git user's plain merge that
                    // set it aside (docver records it as such, docs/FORMAT.md).
                    // (Or an identical decision of another device, made on the same side, that
                    // the git user's merge set aside in its place: the decided state is listed.)
                    let setAside =
                        (observation.setAside[a.document] ?? []).contains(decision.commit)
                        || (observation.setAsideStates[a.document] ?? []).contains(decision.result)
                    if evolved || edited || followedRename || setAside { continue }
                    failures.append(
                        FuzzFailure(
                            document: a.document,
                            message:
                                "\(a.document): the decision \(decision) was dropped in silence: \(other) is current (\(current)) and \(decision.result) is not listed"
                        ))
                }
            }
        }
        return failures
    }
}

// MARK: - Git facts

/// The commit graph reachable from one head, with every commit's ancestors as a bit set.
struct FuzzGraph {
    private var index: [String: Int] = [:]
    private var ancestors: [[UInt64]] = []
    /// The commits with several parents (integrations).
    private(set) var merges: [String] = []

    init(head: String, in directory: URL) throws {
        let lines = try runGit(["rev-list", "--topo-order", "--reverse", "--parents", head], in: directory).split(separator: "\n")
        let words = (lines.count + 63) / 64
        for line in lines {
            let ids = line.split(separator: " ").map(String.init)
            var bits = Array(repeating: UInt64(0), count: words)
            let me = index.count
            bits[me / 64] |= 1 << UInt64(me % 64)
            for parent in ids.dropFirst() {
                guard let p = index[parent] else { continue }
                for word in 0..<words { bits[word] |= ancestors[p][word] }
            }
            index[ids[0]] = me
            ancestors.append(bits)
            if ids.count > 2 { merges.append(ids[0]) }
        }
    }

    func contains(_ commit: String) -> Bool { index[commit] != nil }

    /// True when `ancestor` is `commit` or one of its ancestors.
    func isAncestorOrSelf(_ ancestor: String, of commit: String) -> Bool {
        guard let a = index[ancestor], let c = index[commit] else { return false }
        return ancestors[c][a / 64] & (1 << UInt64(a % 64)) != 0
    }
}

/// Reads commits' trees and blobs with git (`ls-tree`, `cat-file --batch`), cached by id.
final class GitTrees {
    private var files: [String: [String: String]] = [:]  // commit → file path → blob id
    private var executables: [String: Set<String>] = [:]  // commit → the paths of mode 100755
    private var blobs: [String: Data] = [:]

    /// The files of a commit (path → blob id).
    func files(at commit: String, in repository: URL) throws -> [String: String] {
        if let cached = files[commit] { return cached }
        let result = try runProcess("/usr/bin/git", ["ls-tree", "-r", "-z", "--full-tree", commit], in: repository)
        guard result.status == 0 else { throw GitCommandFailed(arguments: ["ls-tree", commit], status: result.status, stderr: result.stderr) }
        var map: [String: String] = [:]
        var executable: Set<String> = []
        for entry in result.stdout.split(separator: "\0") {
            // "<mode> <type> <id>\t<path>"
            guard let tab = entry.firstIndex(of: "\t") else { continue }
            let meta = entry[..<tab].split(separator: " ")
            guard meta.count == 3, meta[1] == "blob" else { continue }
            let path = FuzzNames.alias(String(entry[entry.index(after: tab)...]))
            map[path] = String(meta[2])
            if meta[0] == "100755" { executable.insert(path) }
        }
        files[commit] = map
        executables[commit] = executable
        return map
    }

    /// Whether the file at `path` is executable (mode `100755`) in a commit's tree.
    func isExecutable(_ path: String, at commit: String, in repository: URL) throws -> Bool {
        _ = try files(at: commit, in: repository)
        return executables[commit]?.contains(path) == true
    }

    /// Loads blobs not read yet, in one `git cat-file --batch`.
    func load(_ ids: some Sequence<String>, in repository: URL) throws {
        let missing = Array(Set(ids).filter { blobs[$0] == nil })
        guard !missing.isEmpty else { return }
        let input = Data((missing.joined(separator: "\n") + "\n").utf8)
        let result = try runProcess("/usr/bin/git", ["cat-file", "--batch"], in: repository, input: input)
        let data = result.stdoutData
        var cursor = data.startIndex
        while cursor < data.endIndex {
            guard let newline = data[cursor...].firstIndex(of: 0x0A) else { break }
            let header = String(decoding: data[cursor..<newline], as: UTF8.self).split(separator: " ")
            cursor = data.index(after: newline)
            guard header.count == 3, let size = Int(header[2]) else { continue }
            blobs[String(header[0])] = Data(data[cursor..<(cursor + size)])
            cursor += size + 1
        }
    }

    /// A document's state at a commit (absent for a nil commit).
    func state(of document: String, at commit: String?, in repository: URL) throws -> FuzzState {
        guard let commit else { return .absent }
        let map = try files(at: commit, in: repository)
        if FuzzNames.isPackage(document) {
            let prefix = document + "/"
            let entries = map.filter { $0.key.hasPrefix(prefix) }
            guard !entries.isEmpty else { return .absent }
            try load(entries.values, in: repository)
            return .package(Dictionary(uniqueKeysWithValues: entries.map { (String($0.key.dropFirst(prefix.count)), blobs[$0.value]!) }))
        }
        guard let blob = map[document] else { return .absent }
        try load([blob], in: repository)
        return .flat(blobs[blob]!, executable: executables[commit]?.contains(document) == true)
    }

    /// The documents whose files differ between two commits (nil: the empty tree).
    func changedDocuments(from parent: String?, to commit: String, in repository: URL) throws -> Set<String> {
        let old = try parent.map { try files(at: $0, in: repository) } ?? [:]
        let new = try files(at: commit, in: repository)
        var documents: Set<String> = []
        var oldExecutable: Set<String> = []
        if let parent {
            _ = try files(at: parent, in: repository)
            oldExecutable = executables[parent] ?? []
        }
        let newExecutable = executables[commit] ?? []
        for path in Set(old.keys).union(new.keys) where old[path] != new[path] || oldExecutable.contains(path) != newExecutable.contains(path) {
            documents.insert(FuzzNames.document(ofFile: path))
        }
        return documents
    }
}
