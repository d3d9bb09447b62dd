import Foundation

/// What a tree holds at a document's path: an object and its mode (a file, an executable, a
/// symbolic link, or a package's folder). A document's absence is `nil` where an
/// `EntryState?` is expected.
struct EntryState: Hashable, Sendable {
    var id: ObjectID
    var mode: FileMode

    init(_ id: ObjectID, _ mode: FileMode) {
        self.id = id
        self.mode = mode
    }

    init(_ entry: TreeEntry) { self.init(entry.id, entry.mode) }

    /// The mode a stored version's entry has when its tree no longer says (a package is a
    /// folder, anything else a plain file).
    static func fallbackMode(for kind: DocumentKind) -> FileMode { kind == .package ? .tree : .blob }
}

extension FileMode: Hashable {
    func hash(into hasher: inout Hasher) { hasher.combine(raw.rawValue) }
}

/// How a document's presence changed between two states: the one rule for added, modified
/// and deleted, used by saves, status and the log.
extension ChangeKind {
    /// nil when the document is absent in both.
    init?(existedBefore: Bool, existsAfter: Bool) {
        switch (existedBefore, existsAfter) {
        case (false, false): return nil
        case (false, true): self = .added
        case (true, true): self = .modified
        case (true, false): self = .deleted
        }
    }
}

// docs/FORMAT.md, "Documents": a plain folder is not a document. A document whose name a
// plain folder holds is absent there, as a document whose folder is a file is.
extension Tree {
    /// The entry holding document `path`, or nil when the document is absent: nothing is
    /// there, a file stands where one of its folders should be, or a plain folder (a
    /// directory whose name has no extension) stands at its name.
    func documentEntry(atPath path: String) throws -> TreeEntry? {
        guard let entry = try entry(atPath: path) else { return nil }
        if entry.mode.isTree, !DocumentPath.isPackageName(entry.name) { return nil }
        return entry
    }
}

extension Repository {
    /// True when document `components` has the same state (entry, or absence) in two trees:
    /// ``sameEntry(_:_:_:)``, except that a plain folder at the document's name is its absence.
    func sameDocumentState(_ components: [String], _ a: ObjectID, _ b: ObjectID) throws -> Bool {
        if try sameEntry(components, a, b) { return true }
        guard let name = components.last, !DocumentPath.isPackageName(name) else { return false }
        let path = components.joined(separator: "/")
        return try tree(a).documentEntry(atPath: path) == nil && tree(b).documentEntry(atPath: path) == nil
    }
}
