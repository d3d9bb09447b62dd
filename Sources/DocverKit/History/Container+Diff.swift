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
            let before = try contents(of: old, document: document, in: repository)
            let after = try contents(of: new, document: document, in: repository)
            return DocumentDiff(document: document, old: old, new: new,
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
        let (a, b) = (quoted("a/" + path), quoted("b/" + path))
        var text = "diff --git \(a) \(b)\n"
        switch change {
        case .added: text += "new file mode 100644\n"
        case .deleted: text += "deleted file mode 100644\n"
        case .modified: break
        }
        let (from, to) = (old == nil ? "/dev/null" : a, new == nil ? "/dev/null" : b)
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
