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
