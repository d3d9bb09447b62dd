import Foundation

/// Looks up documents' entries in one tree, reading each folder once.
///
/// `git_tree_entry_bypath` reads every folder on the path again for each lookup, and libgit2
/// keeps no tree above 4 KB in its cache: looking up each of a folder's 200,000 documents
/// that way inflated that folder's 7 MB tree 200,000 times. Here each folder read stays, so
/// looking up many documents costs the folders read plus one binary search per document.
final class DocumentEntryReader {
    private let repository: Repository
    private let root: Tree
    /// Folders read, by path relative to the root ("" is the root); nil when no folder is there.
    private var folders: [String: Tree?] = [:]

    init(repository: Repository, tree: ObjectID) throws {
        self.repository = repository
        root = try repository.tree(tree)
        folders[""] = root
    }

    /// The entry holding document `path`, as ``Tree/documentEntry(atPath:)`` finds it.
    func documentEntry(atPath path: String) throws -> TreeEntry? { Self.document(try entry(atPath: path)) }

    /// The entry at `path`, as ``Tree/entry(atPath:)`` finds it.
    func entry(atPath path: String) throws -> TreeEntry? {
        guard let slash = path.lastIndex(of: "/") else { return root.entry(named: path) }
        guard let folder = try folder(String(path[..<slash])) else { return nil }
        return folder.entry(named: String(path[path.index(after: slash)...]))
    }

    private static func document(_ entry: TreeEntry?) -> TreeEntry? {
        guard let entry else { return nil }
        if entry.mode.isTree, !DocumentPath.isPackageName(entry.name) { return nil }
        return entry
    }

    /// The folder at `path`, each folder on the way read once (iterating, not recursing: a
    /// path can be 1,000 folders deep).
    private func folder(_ path: String) throws -> Tree? {
        if let known = folders[path] { return known }
        var current: Tree? = root
        var prefix = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            prefix = prefix.isEmpty ? String(component) : prefix + "/" + component
            if let known = folders[prefix] {
                current = known
            } else {
                var next: Tree?
                if let entry = current?.entry(named: String(component)), entry.mode.isTree { next = try repository.tree(entry.id) }
                folders[prefix] = .some(next)
                current = next
            }
            if current == nil { break }
        }
        folders[path] = .some(current)
        return current
    }
}
