import Foundation

extension Container {
    /// A unified diff from version `old` to version `new` of a document, in git's patch format
    /// (``DocumentDiff/patch``). Package components are compared one by one; binary contents
    /// are noted, not dumped.
    public func diff(from old: DocumentVersion, to new: DocumentVersion) throws -> String {
        try diff(old.document, from: .version(old), to: .version(new)).patch
    }

    /// How `document` differs from side `old` to side `new`: versions, the working tree's
    /// copy (unsaved edits included) or nothing.
    public func diff(_ document: DocumentPath, from old: DiffSide, to new: DiffSide) throws -> DocumentDiff {
        try withRepository { repository in
            if let big = try bigFileDiff(document, from: old, to: new, in: repository) { return big }
            let before = try contents(of: old, document: document, in: repository)
            let after = try contents(of: new, document: document, in: repository)
            return DocumentDiff(
                document: document, old: old, new: new,
                files: try Self.patches(document, before, after))
        }
    }

    /// The unsaved edits: for every document changed since the last save (as ``status()``
    /// lists them), the diff from its current version to the working tree.
    public func unsavedEdits() throws -> [DocumentDiff] {
        let changed = try status().changed
        return try changed.map { change in
            let current = try currentVersion(of: change.document)
            return try diff(change.document, from: current.map(DiffSide.version) ?? .absent, to: .workingTree)
        }.filter { !$0.isEmpty }
    }

    /// git's rule for big files (`core.bigFileThreshold`, 512 MiB by default): a flat file at
    /// least that big is binary, and is compared by its id, so neither side is read (a film
    /// was read whole, twice; issue 29). nil when no flat side is that big.
    private func bigFileDiff(
        _ document: DocumentPath, from old: DiffSide, to new: DiffSide,
        in repository: Repository
    ) throws -> DocumentDiff? {
        let threshold =
            try ConfigKey.byteSize(ConfigKey.bigFileThreshold, default: ConfigKey.defaultBigFileThreshold, in: repository)
            ?? Int64.max
        // Each side: its size and how to get its id, or nil for an absent side; a package is
        // not flat and leaves the diff to the usual path.
        func flat(_ side: DiffSide) throws -> (size: Int64, id: () throws -> ObjectID)?? {
            switch side {
            case .absent: return .some(nil)
            case let .version(version):
                if version.isDeletion { return .some(nil) }
                guard version.kind == .flat, let id = version.entryID else { return nil }
                return (try VersionGraph(repository: repository, index: nil).size(of: version), { id })
            case .workingTree:
                try checkInsideContainer(document)
                guard let stat = try workingTreeStat(of: document) else { return .some(nil) }
                guard stat.isRegularFile else { return nil }
                return (stat.size, { try repository.hashFile(at: self.root.path + "/" + document.path) })
            }
        }
        guard case let .some(before) = try flat(old), case let .some(after) = try flat(new),
            [before, after].contains(where: { ($0?.size ?? 0) >= threshold })
        else { return nil }
        let change: FilePatch.Change = before == nil ? .added : after == nil ? .deleted : .modified
        if change == .modified, try before!.id() == after!.id() {
            return DocumentDiff(document: document, old: old, new: new, files: [])
        }
        return DocumentDiff(
            document: document, old: old, new: new,
            files: [Self.binaryPatch(document.path, change: change)])
    }

    private func contents(of side: DiffSide, document: DocumentPath, in repository: Repository) throws -> DocumentContents {
        switch side {
        case let .version(version): return try contents(of: version, in: repository)
        case .workingTree:
            try checkInsideContainer(document)
            return try workingTreeContents(of: document)
        case .absent: return .deleted
        }
    }

    /// The patches that turn `before` into `after`, file by file in path order.
    static func patches(_ document: DocumentPath, _ before: DocumentContents, _ after: DocumentContents) throws -> [FilePatch] {
        func files(_ contents: DocumentContents) -> [String: Data] {
            switch contents {
            case let .flat(data): return [document.path: data]
            case let .package(package):
                return Dictionary(uniqueKeysWithValues: package.files.map { (document.path + "/" + $0.key, $0.value) })
            case .deleted: return [:]
            }
        }
        let old = files(before), new = files(after)
        return try Set(old.keys).union(new.keys).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.compactMap { path in
            try filePatch(path, old: old[path], new: new[path])
        }
    }

    /// One file's patch as `git diff` writes it, nil when the contents are the same. Every file
    /// is written with mode 100644: a version records contents, and the working tree's
    /// executable bits are not part of a document.
    static func filePatch(_ path: String, old: Data?, new: Data?) throws -> FilePatch? {
        guard old != new else { return nil }
        let change: FilePatch.Change = old == nil ? .added : new == nil ? .deleted : .modified
        var (text, from, to) = patchHeader(path, change: change)
        // Text is UTF-8 without NUL bytes; anything else is not printed (a patch is text, and
        // one re-encoded would not apply).
        var isBinary = [old, new].contains { data in data.map { $0.contains(0) || String(bytes: $0, encoding: .utf8) == nil } ?? false }
        if !isBinary {
            let hunks = try hunks(old: old ?? Data(), new: new ?? Data())
            if let hunks {
                // An empty file added or deleted has no hunks; git writes no ---/+++ lines then.
                if !hunks.isEmpty { text += "--- \(from)\n+++ \(to)\n" + hunks }
            } else {
                isBinary = true
            }
        }
        if isBinary { text += "Binary files \(from) and \(to) differ\n" }
        return FilePatch(path: path, change: change, isBinary: isBinary, text: text)
    }

    /// A patch's first lines (`diff --git`, the mode of a file added or deleted) and the names
    /// its `---`/`+++` lines give the two sides.
    private static func patchHeader(_ path: String, change: FilePatch.Change) -> (text: String, from: String, to: String) {
        let (a, b) = (quoted("a/" + path), quoted("b/" + path))
        var text = "diff --git \(a) \(b)\n"
        switch change {
        case .added: text += "new file mode 100644\n"
        case .deleted: text += "deleted file mode 100644\n"
        case .modified: break
        }
        return (text, change == .added ? "/dev/null" : a, change == .deleted ? "/dev/null" : b)
    }

    /// The patch of a file compared by its id only: `Binary files … differ`.
    static func binaryPatch(_ path: String, change: FilePatch.Change) -> FilePatch {
        let (text, from, to) = patchHeader(path, change: change)
        return FilePatch(path: path, change: change, isBinary: true, text: text + "Binary files \(from) and \(to) differ\n")
    }

    /// The hunks of libgit2's diff (the same xdiff git uses, with 3 lines of context): its
    /// patch from the first `@@` line on. nil when libgit2 found the contents binary.
    private static func hunks(old: Data, new: Data) throws -> String? {
        let patch = try TextMerge.unifiedDiff(old: old, oldPath: "x", new: new, newPath: "x")
        if patch.hasPrefix("@@") { return patch }
        guard let start = patch.range(of: "\n@@") else { return patch.contains("Binary files") ? nil : "" }
        return String(patch[patch.index(after: start.lowerBound)...])
    }

    /// A path as git writes it in a patch header: in double quotes, with C escapes, when it
    /// holds a control character, `"` or `\`.
    static func quoted(_ path: String) -> String {
        DocumentPath.quoted(path)
    }
}
