import Foundation

// Cheap, read-only answers for shell completion: no lock is taken and no cache under
// .git/docver is read or written, so completing a word never changes the container and
// costs a tree read or a bounded walk.

extension Container {
    /// The documents of the current version of this device's branch, sorted by path.
    public func documentPaths() throws -> [DocumentPath] {
        try withRepository { repository in
            guard let head = try headCommit(repository) else { return [] }
            return try documentEntries(in: repository.commit(head).treeID, repository: repository).map(\.0)
                .sorted { $0.path < $1.path }
        }
    }

    /// Ids of the most recent commits (this device's branch, the fetched and kept branches,
    /// newest first) that changed `document`, or of any commit when `document` is nil: the
    /// versions a user is likely to name. Examines at most `searchLimit` commits.
    public func recentVersionIDs(of document: DocumentPath?, limit: Int = 50, searchLimit: Int = 2_000) throws -> [String] {
        try withRepository { repository in
            var tips = try repository.references(matching: RefName.allTrackingBranches).map(\.target)
            tips += try repository.references(matching: RefName.allKept).map(\.target)
            if let head = try headCommit(repository) { tips.append(head) }
            guard !tips.isEmpty else { return [] }
            let walk = try repository.revwalk(from: tips, topological: true)
            let components = document.map { $0.path.split(separator: "/").map(String.init) }
            var result: [String] = []
            var examined = 0
            while result.count < limit, examined < searchLimit, let id = try walk.next() {
                examined += 1
                guard let components else { result.append(id.hex); continue }
                let commit = try repository.commit(id)
                let parents = commit.parentIDs
                let tree = commit.treeID
                // A commit that introduced the document's state: differs from its first parent
                // there (or the root commit holding it).
                if let parent = parents.first {
                    if try !repository.sameEntry(components, tree, repository.commit(parent).treeID) { result.append(id.hex) }
                } else if try repository.tree(tree).entry(atPath: components.joined(separator: "/")) != nil {
                    result.append(id.hex)
                }
            }
            return result
        }
    }
}
