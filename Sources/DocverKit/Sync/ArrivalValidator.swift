import Foundation

/// Checks what arrives from a remote before it can move this device's branch or reach the
/// working tree, the way `git fsck --strict` checks objects, plus docver's own rules for
/// document names (those a local save obeys).
///
/// A device with push access, or a damaged server, can push any object. Integrating a tree
/// with an entry `..` or `.git`, an absolute or non-UTF-8 name, a link pointing outside the
/// container, or 40,000 nested folders would move the branch to something the working tree
/// cannot hold, and lock the device out. A head that fails is not integrated; the caller warns,
/// naming its branch, and goes on with the others.
///
/// Only what is new is read: commits not reachable from the trusted head (this device's
/// branch), parents before children, and in each commit's tree only the entries that differ
/// from its first parent's tree at the same path, when that parent was found valid or is
/// trusted (else from the trusted head's tree). A save that changed three documents costs
/// three entries, not a re-check of the folders around them. Trees are walked with an
/// explicit stack, so nesting cannot exhaust the thread's stack.
struct ArrivalValidator {
    /// The deepest folder nesting accepted (git's `core.maxTreeDepth` is 4096; a path this deep
    /// is already near the file system's limit).
    static let maximumDepth = 1000
    /// The longest path accepted, in bytes (Linux's PATH_MAX is 4096, the container's own path
    /// comes first).
    static let maximumPathBytes = 3000
    /// The longest symbolic-link target accepted, in bytes.
    static let maximumLinkBytes = 4095
    /// The latest commit date accepted: 9999-12-31T23:59:59Z, as seconds since 1970.
    static let latestTimestamp: Int64 = 253_402_300_799

    let repository: Repository
    /// The largest file accepted, in bytes (`docver.maxDocumentSize`); nil: no limit.
    let maximumDocumentSize: Int64?
    /// Whether a file's contents may be missing (a device on demand receives old versions'
    /// commits and folders, not their contents): a missing file is then left unchecked, to be
    /// fetched when a command reads it. Contents that are here are checked as always.
    let contentsMayBeMissing: Bool
    /// The device whose branch is being checked, named in a refusal.
    private var device = ""
    /// Trees already found valid, with the folder depth and path they were checked at.
    private var validTrees: Set<String> = []
    /// Commits already found valid, with their trees.
    private var validCommits: [ObjectID: ObjectID] = [:]

    init(repository: Repository, maximumDocumentSize: Int64? = nil, contentsMayBeMissing: Bool = false) {
        self.repository = repository
        self.maximumDocumentSize = maximumDocumentSize
        self.contentsMayBeMissing = contentsMayBeMissing
    }

    /// The first problem found in the commits and trees `head` brings that `trusted` does not
    /// already hold; nil when everything is valid.
    /// `device` names the branch's device in a refusal of a document above the size limit.
    mutating func problem(in head: ObjectID, trusting trusted: ObjectID?, device: String = "") -> String? {
        self.device = device
        do {
            let trustedTree = try trusted.map { try repository.commit($0).treeID }
            let walk = try repository.revwalk(from: [head], hiding: trusted.map { [$0] } ?? [], topological: true)
            var arrivals: [ObjectID] = []
            while let id = try walk.next() { arrivals.append(id) }
            let arriving = Set(arrivals)
            for id in arrivals.reversed() where validCommits[id] == nil {
                let commit = try repository.rawCommit(id)
                if let problem = Self.headerProblem(commit.headerLines) { return "commit \(id.hex.prefix(12)): \(problem)" }
                // A parent that does not arrive is reachable from the trusted head: trusted too.
                var reference = trustedTree
                if let parent = commit.parents.first {
                    if let tree = validCommits[parent] {
                        reference = tree
                    } else if trusted != nil, !arriving.contains(parent) {
                        reference = try repository.commit(parent).treeID
                    }
                }
                if let problem = try treeProblem(commit.tree, reference: reference) { return "commit \(id.hex.prefix(12)): \(problem)" }
                validCommits[id] = commit.tree
            }
            return nil
        } catch let error as GitError {
            return "its objects cannot be read (\(error.message))"
        } catch {
            return "its objects cannot be read (\(error))"
        }
    }

    // MARK: Commits

    /// What `git fsck --strict` reports about a commit header: a missing or repeated tree,
    /// author or committer line, or an identity without email, with a bad date or time zone.
    static func headerProblem(_ lines: [String]) -> String? {
        var trees = 0, authors = 0, committers = 0
        for line in lines where !line.isEmpty && !line.hasPrefix(" ") {
            if line.hasPrefix("tree ") { trees += 1 }
            if line.hasPrefix("author ") {
                authors += 1
                if let problem = identityProblem(String(line.dropFirst("author ".count))) { return "author: \(problem)" }
            }
            if line.hasPrefix("committer ") {
                committers += 1
                if let problem = identityProblem(String(line.dropFirst("committer ".count))) { return "committer: \(problem)" }
            }
        }
        guard trees == 1 else { return "\(trees) tree lines" }
        guard authors == 1 else { return "\(authors) author lines" }
        guard committers == 1 else { return "\(committers) committer lines" }
        return nil
    }

    /// `Name <email> SECONDS +HHMM`, with a date between 1970 and 9999.
    static func identityProblem(_ identity: String) -> String? {
        guard let open = identity.firstIndex(of: "<"), let close = identity.lastIndex(of: ">"), open < close else {
            return "no email"
        }
        let name = identity[..<open], email = identity[identity.index(after: open)..<close]
        if name.contains(">") || email.contains("<") || email.contains(">") { return "a malformed name or email" }
        let rest = identity[identity.index(after: close)...].split(separator: " ", omittingEmptySubsequences: false)
        guard rest.count == 3, rest[0].isEmpty else { return "a malformed date" }
        let seconds = rest[1], zone = rest[2]
        guard !seconds.isEmpty, seconds.allSatisfy({ $0.isASCII && $0.isNumber }),
            seconds == "0" || !seconds.hasPrefix("0")
        else { return "a malformed date" }
        guard let value = Int64(seconds), value <= latestTimestamp else { return "a date out of range (\(seconds))" }
        guard zone.count == 5, zone.first == "+" || zone.first == "-",
            zone.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber })
        else { return "a malformed time zone" }
        return nil
    }

    // MARK: Trees

    private static let modes: Set<UInt32> = [0o100644, 0o100755, 0o120000, 0o040000]

    private struct Pending {
        var tree: ObjectID
        var reference: ObjectID?
        var path: [String]
    }

    private mutating func treeProblem(_ root: ObjectID, reference: ObjectID?) throws -> String? {
        var stack = [Pending(tree: root, reference: reference, path: [])]
        while let pending = stack.popLast() {
            let key = pending.tree.hex + " " + pending.path.joined(separator: "/")
            guard !validTrees.contains(key) else { continue }
            // (Names are borrowed from libgit2's trees while this folder is checked.)
            func check(against referenceEntries: [BorrowedTreeEntry]) throws -> String? {
                try repository.withRawTreeEntries(pending.tree) { entries in
                    try folderProblem(entries, reference: referenceEntries, at: pending.path, stack: &stack)
                }
            }
            let problem: String?
            do {
                problem = try pending.reference.map { try repository.withRawTreeEntries($0, check) } ?? check(against: [])
            } catch {
                // A folder's object is read as a tree here and not asked its kind before (a
                // header read per folder, a sixth of the checks of a long divergence): an
                // object of another kind, or none, fails this read instead.
                if !pending.path.isEmpty, try repository.objectKind(pending.tree) != "tree" {
                    return "'\(pending.path.joined(separator: "/"))' is not a folder object"
                }
                throw error
            }
            if let problem { return problem }
            validTrees.insert(key)
        }
        return nil
    }

    /// The first problem in one folder's entries; the folders to check below it go on `stack`.
    private func folderProblem(
        _ entries: [BorrowedTreeEntry], reference referenceEntries: [BorrowedTreeEntry], at folder: [String],
        stack: inout [Pending]
    ) throws -> String? {
        // The reference is valid, so in git's order: it is walked alongside the tree, an
        // entry matching the reference's entry of the same sort key (the one of its name
        // and kind, the only one that can hold the same id and mode).
        var referencePosition = 0
        for (position, entry) in entries.enumerated() {
            let isTree = entry.rawMode == 0o040000
            if position > 0 {
                let previous = entries[position - 1]
                if BorrowedTreeEntry.gitOrder(previous.name, previous.rawMode == 0o040000, entry.name, isTree) >= 0 {
                    if entries[..<position].contains(where: { $0.name.elementsEqual(entry.name) }) {
                        return "duplicate entries named '\(Self.escaped(Array(entry.name)))'"
                    }
                    return "tree entries out of order"
                }
                // In order so far, an earlier entry of the same name can only be a file of
                // a folder's name: found by binary search, the earlier entries being sorted.
                if isTree {
                    var low = 0, high = position
                    while low < high {
                        let middle = (low + high) / 2
                        let earlier = entries[middle]
                        if BorrowedTreeEntry.gitOrder(earlier.name, earlier.rawMode == 0o040000, entry.name, false) < 0 {
                            low = middle + 1
                        } else {
                            high = middle
                        }
                    }
                    if low < position, entries[low].name.elementsEqual(entry.name) {
                        return "duplicate entries named '\(Self.escaped(Array(entry.name)))'"
                    }
                }
            }
            var same: BorrowedTreeEntry?
            while referencePosition < referenceEntries.count {
                let candidate = referenceEntries[referencePosition]
                let order = BorrowedTreeEntry.gitOrder(candidate.name, candidate.rawMode == 0o040000, entry.name, isTree)
                if order < 0 { referencePosition += 1; continue }
                if order == 0 { same = candidate }
                break
            }
            if let same, same.id == entry.id, same.rawMode == entry.rawMode { continue }
            guard let name = String(validating: entry.name, as: UTF8.self) else {
                return "a name that is not UTF-8: '\(Self.escaped(Array(entry.name)))'"
            }
            let path = folder + [name]
            let display = path.joined(separator: "/")
            if let problem = Self.nameProblem(name) { return "'\(Self.escaped(Array(display.utf8)))': \(problem)" }
            do {
                // The reserved folder (the key-value store's files) is docver's own: names in
                // it obey every rule but the one that keeps users out of it. A file named
                // like it is refused.
                let reservedFolder = DocumentPath.isReserved(display) && (display != DocumentPath.reservedArea || isTree)
                let checked = reservedFolder ? "reserved" + display.dropFirst(DocumentPath.reservedArea.count) : display
                _ = try DocumentPath(checked)
            } catch let error as DocverError {
                if case let .invalidDocumentName(_, reason) = error { return "'\(Self.escaped(Array(display.utf8)))': \(reason)" }
                throw error
            }
            guard Self.modes.contains(entry.rawMode) else {
                return "'\(display)': unsupported mode \(String(entry.rawMode, radix: 8))"
            }
            guard display.utf8.count <= Self.maximumPathBytes else { return "a path longer than \(Self.maximumPathBytes) bytes" }
            if isTree {
                guard path.count < Self.maximumDepth else { return "folders nested deeper than \(Self.maximumDepth) levels" }
                // (Its object's kind is checked when it is read, in `treeProblem`: read as a
                // tree, another kind would fail every later read of this tree, and with it the
                // whole sync, "requested type does not match the type in the ODB".)
                let reference = same.flatMap { $0.rawMode == 0o040000 ? $0.id : nil }
                stack.append(Pending(tree: entry.id, reference: reference, path: path))
                continue
            }
            guard let header = try repository.objectHeader(entry.id) else {
                if contentsMayBeMissing { continue }
                return "the contents of '\(display)' did not arrive (missing or damaged on the remote)"
            }
            guard header.kind == "blob" else { return "'\(display)' is not a file object" }
            if let limit = maximumDocumentSize, header.size > limit {
                let document = DocumentPath.document(containingFile: display).path
                return "'\(document)' of device '\(device)' is \(header.size) bytes, above docver.maxDocumentSize (\(limit))"
            }
            if entry.rawMode == 0o120000, let problem = try linkProblem(entry.id, at: path) {
                return "the link '\(display)' \(problem)"
            }
        }
        return nil
    }

    /// Names git refuses to check out: `.`, `..`, `.git` in any case and its NTFS and HFS+
    /// spellings (`git~1`, `.git.`, `.git ` and `.git` with ignorable characters).
    static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "an empty name" }
        if name.contains("/") { return "a name containing '/'" }
        if name == "." || name == ".." { return "'\(name)' is not allowed" }
        let ignorable: Set<UInt32> = [
            0x200C, 0x200D, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
            0x206A, 0x206B, 0x206C, 0x206D, 0x206E, 0x206F, 0xFEFF,
        ]
        let folded = String(String.UnicodeScalarView(name.unicodeScalars.filter { !ignorable.contains($0.value) })).lowercased()
        var trimmed = Substring(folded)
        while let last = trimmed.last, last == "." || last == " " { trimmed = trimmed.dropLast() }
        if trimmed == ".git" || trimmed == "git~1" { return "it is inside .git" }
        return nil
    }

    /// A link is checked out as a link only if its target stays inside the container and out
    /// of `.git`, as a local save requires.
    private func linkProblem(_ id: ObjectID, at path: [String]) throws -> String? {
        let blob = try repository.blob(id)
        guard blob.size <= Int64(Self.maximumLinkBytes) else { return "has a target longer than \(Self.maximumLinkBytes) bytes" }
        let bytes = [UInt8](blob.data)
        guard !bytes.isEmpty, !bytes.contains(0), let target = String(validating: bytes, as: UTF8.self) else {
            return "has an empty or malformed target"
        }
        guard !target.hasPrefix("/") else { return "points outside the container" }
        var resolved = Array(path.dropLast())
        for component in target.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..":
                guard !resolved.isEmpty else { return "points outside the container" }
                resolved.removeLast()
            default:
                resolved.append(String(component))
            }
            if resolved.contains(where: { Self.nameProblem($0) != nil }) { return "points inside .git" }
        }
        return nil
    }

    /// Bytes as git quotes them in a path (printable ASCII as is, the rest escaped).
    static func escaped(_ bytes: [UInt8]) -> String { DocumentPath.escaped(bytes) }
}
