import Foundation

/// The key-value store as one commit holds it.
struct KeyValueSnapshot {
    /// Key → value.
    var values: [String: PropertyListValue] = [:]
    /// Key → the size of its file, for the quota.
    var sizes: [String: Int] = [:]
    /// File name → blob id: every file in the store's folder, readable or not.
    var files: [String: ObjectID] = [:]
    /// File name → key, for the files that are key files.
    var keysByFile: [String: String] = [:]

    var usage: KeyValueUsage { KeyValueUsage(keys: values.count, bytes: sizes.values.reduce(0, +)) }

    /// A file in the store's folder that is not in the format (a hand-made file, a name that
    /// does not match its key) is not a key: the store ignores it, git keeps it.
    init(commit: ObjectID?, in repository: Repository) throws {
        guard let commit,
            let folder = try repository.tree(repository.commit(commit).treeID).entry(atPath: KeyValueFiles.folder),
            folder.mode.isTree
        else { return }
        for entry in try repository.tree(folder.id).entries where entry.mode.isBlob {
            files[entry.name] = entry.id
            let data = try repository.blob(entry.id).data
            guard let (key, value) = KeyValueFiles.parse(data), KeyValueFiles.fileName(ofKey: key) == entry.name else { continue }
            values[key] = value
            sizes[key] = data.count
            keysByFile[entry.name] = key
        }
    }

    /// The usage after `changes` (nil: removal) were applied.
    func usage(after changes: [String: PropertyListValue?]) -> KeyValueUsage {
        var sizes = self.sizes
        for (key, value) in changes {
            sizes[key] = value.map { KeyValueFiles.contents(key: key, value: $0).count }
        }
        return KeyValueUsage(keys: sizes.count, bytes: sizes.values.reduce(0, +))
    }

    /// Throws ``DocverError/keyValueQuotaExceeded(_:)`` when `changes` would take the store
    /// past a quota, or further past one it is already over (after a sync brought it there).
    func checkQuota(after changes: [String: PropertyListValue?]) throws {
        try Self.checkQuota(from: usage, to: usage(after: changes))
    }

    /// Throws unless going from `before` to `after` stays within the quotas or adds nothing to
    /// an excess.
    static func checkQuota(from before: KeyValueUsage, to after: KeyValueUsage) throws {
        if after.keys > KeyValueQuota.maximumKeys, after.keys > before.keys {
            throw DocverError.keyValueQuotaExceeded("\(after.keys) keys, at most \(KeyValueQuota.maximumKeys) are allowed")
        }
        if after.bytes > KeyValueQuota.maximumBytes, after.bytes > before.bytes {
            throw DocverError.keyValueQuotaExceeded("\(after.bytes) bytes, at most \(KeyValueQuota.maximumBytes) are allowed")
        }
    }
}

extension Container {
    /// The store's values at this device's head.
    func keyValueSnapshot() throws -> (head: ObjectID?, snapshot: KeyValueSnapshot) {
        try withRepository { repository in
            let head = try headCommit(repository)
            return (head, try KeyValueSnapshot(commit: head, in: repository))
        }
    }

    /// Saves `changes` (key → value, nil: remove) as one commit on this device's branch and
    /// brings the keys' files in the working tree and the index along (a checkout). Returns the save's id,
    /// or nil when every value was already stored. A write past a quota throws and changes
    /// nothing.
    func saveKeyValues(_ changes: [String: PropertyListValue?]) throws -> String? {
        for key in changes.keys { try KeyValueQuota.validate(key: key) }
        for case let (_, value?) in changes {
            if let problem = value.storageProblem { throw DocverError.invalidValue(problem) }
        }
        return try withWriteLock { repository in
            let attempts = 1000
            for attempt in 0..<attempts {
                let head = try headCommit(repository)
                let headTree = try head.map { try repository.commit($0).treeID }
                let snapshot = try KeyValueSnapshot(commit: head, in: repository)
                let tree = try headTree.map { try repository.tree($0) }
                var replacements: [TreeReplacement] = []
                var sets: [String] = [], removals: [String] = []
                for key in changes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                    let path = KeyValueFiles.path(ofKey: key)
                    let old = try tree?.entry(atPath: path).map(EntryState.init)
                    let new = try changes[key]!.map { EntryState(try repository.writeBlob(KeyValueFiles.contents(key: key, value: $0)), .blob) }
                    guard old != new else { continue }
                    replacements.append(TreeReplacement(path: path, old: old, new: new))
                    if new == nil { removals.append(key) } else { sets.append(key) }
                }
                guard !replacements.isEmpty else { return nil }
                try snapshot.checkQuota(after: changes)
                let newTree = try repository.writeTree(base: headTree ?? ObjectID.emptyTree, replacing: replacements)
                let message = CommitMessage.keyValueSave(sets: sets, removals: removals, device: device).render()
                let identity = try CommitIdentity.device(device, at: commitClock.now(), after: head.map { [$0] } ?? [], in: repository)
                let commit = try repository.createCommit(
                    tree: newTree, parents: head.map { [$0] } ?? [],
                    author: identity.author, committer: identity.committer, message: message,
                    sign: commitSigner(in: repository))
                do {
                    // A checkout from the old tree touches only the keys' files and updates the index,
                    // so `git status` stays clean (one checkout, not a durable write per file: the
                    // values are safe in the commit, and an interrupted checkout is finished later).
                    try advanceBranch(to: commit, from: head, message: "docver: key-value store", in: repository)
                } catch let error as GitError where [.modified, .exists, .locked].contains(error.code) {
                    // Another writer (a plain git commit) moved the branch: rebuild on the new tip.
                    usleep(UInt32(min(attempt, 20)) * 500)
                    continue
                }
                return commit.hex
            }
            throw DocverError.branchKeptChanging(attempts: attempts)
        }
    }

    /// The values of other devices that moving the head from `old` to `new` brought into the
    /// store, with Apple's reason; nil when none did (no key changed, or only this device's
    /// own writes).
    func keyValueChange(from old: ObjectID?, to new: ObjectID?) throws -> KeyValueStoreChange? {
        guard old != new, let new else { return nil }
        return try withRepository { repository in
            let before = try KeyValueSnapshot(commit: old, in: repository)
            let after = try KeyValueSnapshot(commit: new, in: repository)
            let graph = VersionGraph(repository: repository)
            var keys: Set<String> = []
            for name in Set(before.files.keys).union(after.files.keys) where before.files[name] != after.files[name] {
                guard let key = after.keysByFile[name] ?? before.keysByFile[name] else { continue }
                // The save that introduced the key's new state (its value, or its removal).
                let introducing = try graph.introducingCommit(of: KeyValueFiles.folder + "/" + name, from: new)
                if try repository.commit(introducing).device.id != device.id { keys.insert(key) }
            }
            guard !keys.isEmpty else { return nil }
            let reason: KeyValueStoreChange.Reason =
                after.usage.exceedsQuota
                ? .quotaViolation
                : before.files.isEmpty ? .initialSync : .serverChange
            return KeyValueStoreChange(keys: keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, reason: reason)
        }
    }

    /// Every saved state of `key` reachable from this device's head: the current one first,
    /// then the ones later writes replaced and the ones that lost to concurrent writes under
    /// the per-key rule, in git's topological order (a state before the ones it replaced).
    ///
    /// Cost: one look at the key's tree entry per commit in the history.
    public func keyValueHistory(of key: String) throws -> [KeyValueVersion] {
        try KeyValueQuota.validate(key: key)
        return try withRepository { repository in
            guard let head = try headCommit(repository) else { return [] }
            let path = KeyValueFiles.path(ofKey: key)
            let components = path.split(separator: "/").map(String.init)
            let current = try VersionGraph(repository: repository).introducingCommit(of: path, from: head)
            let walk = try repository.revwalk(from: [head], topological: true)
            var result: [KeyValueVersion] = []
            while let id = try walk.next() {
                let commit = try repository.commit(id)
                let entry = try repository.tree(commit.treeID).entry(atPath: path)
                let parents = commit.parentIDs
                // A state is introduced where it differs from every parent (a root: where it exists).
                let introduced =
                    parents.isEmpty
                    ? entry != nil
                    : try parents.allSatisfy { try !repository.sameEntry(components, commit.treeID, repository.commit($0).treeID) }
                guard introduced else { continue }
                var value: PropertyListValue?
                if let entry {
                    guard let parsed = KeyValueFiles.parse(try repository.blob(entry.id).data), parsed.key == key else { continue }
                    value = parsed.value
                }
                let role: KeyValueVersion.Role =
                    id == current
                    ? .current
                    : try repository.isAncestorOrSame(id, of: current) ? .superseded : .lost
                result.append(
                    KeyValueVersion(
                        id: id.hex, key: key, value: value, modified: commit.author.time,
                        device: commit.device, role: role))
            }
            // The current state first, then git's topological order (a state before the ones it
            // replaced), which is the same on every device holding the same head.
            return result.filter { $0.role == .current } + result.filter { $0.role != .current }
        }
    }
}
