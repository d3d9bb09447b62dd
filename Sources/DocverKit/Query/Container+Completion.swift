import Foundation

// Cheap, read-only answers for shell completion: no lock is taken and nothing under
// .git/docver is written (the conflict cache is only read, and only when it is current), so
// completing a word never changes the container and costs a tree read, a file read or a
// bounded walk.

extension Container {
    /// The documents of the current version of this device's branch, sorted by path.
    public func documentPaths() throws -> [DocumentPath] {
        try withRepository { repository in
            guard let head = try headCommit(repository) else { return [] }
            return try documentEntries(in: repository.commit(head).treeID, repository: repository).map(\.0)
                .sorted()  // by bytes, as git orders names
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

    /// Ids of the unresolved conflict versions of `document`, when docver's conflict cache
    /// holds them for the current head (any listing of conflicts, and every sync, leave it
    /// so); nil when it does not, since computing them would walk history and write the cache.
    public func cachedConflictVersionIDs(of document: DocumentPath) throws -> [String]? {
        try withRepository { repository in
            guard let head = try headCommit(repository) else { return [] }
            guard let state = ConflictCache(files: files, repository: repository).cachedState(at: head) else { return nil }
            return (state.unresolvedByDocument()[document] ?? []).map(\.version)
        }
    }
}
