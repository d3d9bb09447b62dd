import Foundation

extension Container {
    /// The commit this device's branch names; nil before the first save.
    func headCommit(_ repository: Repository) throws -> ObjectID? {
        try repository.referenceTarget(device.branch)
    }

    /// The documents of a tree: files, and directories with an extension (packages), below
    /// plain folders.
    func documentEntries(in tree: ObjectID, repository: Repository, prefix: String = "") throws -> [(DocumentPath, TreeEntry)] {
        var result: [(DocumentPath, TreeEntry)] = []
        try Repository.checkTreeDepth(prefix)
        for entry in try repository.tree(tree).entries {
            let path = prefix + entry.name
            if DocumentPath.isReserved(path) { continue }  // the key-value store's files
            if entry.mode.isTree && !DocumentPath.isPackageName(entry.name) {
                result += try documentEntries(in: entry.id, repository: repository, prefix: path + "/")
            } else if entry.mode.isTree || entry.mode.isBlob {
                result.append((DocumentPath(trusted: path), entry))
            }
        }
        return result
    }

    /// Every docver reference and its target: it changes whenever a save, sync or resolution does.
    func referenceSignature() throws -> String {
        try withRepository { repository in
            let references =
                try repository.references(matching: RefName.allDeviceBranches)
                + repository.references(matching: RefName.allTrackingBranches)
            // An eviction or a download moves no reference: their files' stat data count too.
            let local = [files.evicted, files.downloading].map { path in
                FileStat(path: path).map { "\($0.inode) \($0.size) \($0.mtimeSeconds).\($0.mtimeNanoseconds)" } ?? "-"
            }
            return (references.map { "\($0.name) \($0.target.hex)" }.sorted() + local).joined(separator: "\n")
        }
    }
}
