import Foundation

/// One side of a comparison: a saved version, the working tree's copy of the document, or
/// nothing (a document not saved yet).
public enum DiffSide: Hashable, Sendable {
    case version(DocumentVersion)
    case workingTree
    case absent
}

/// How one document differs between two sides, as a patch in git's format: `git apply`
/// accepts it (docs/CLI.md, "diff").
public struct DocumentDiff: Hashable, Sendable {
    public let document: DocumentPath
    public let old: DiffSide
    public let new: DiffSide
    /// One patch per file that differs: the document itself, or a package's components, in
    /// path order.
    public let files: [FilePatch]

    /// The patch text of every file.
    public var patch: String { files.map(\.text).joined() }

    /// True when the two sides have the same contents.
    public var isEmpty: Bool { files.isEmpty }
}

/// The patch of one file, as `git diff` writes it.
public struct FilePatch: Hashable, Sendable {
    public enum Change: String, Hashable, Sendable { case added, deleted, modified }

    /// The file's path in the container (for a package's component, `package/component`).
    public let path: String
    public let change: Change
    /// True for contents with a NUL byte or that are not UTF-8: the patch says `Binary files
    /// ... differ`.
    public let isBinary: Bool
    /// `diff --git a/<path> b/<path>`, the new or deleted file mode, `--- a/<path>` (or
    /// `/dev/null`), `+++ b/<path>` and the hunks.
    public let text: String
}
