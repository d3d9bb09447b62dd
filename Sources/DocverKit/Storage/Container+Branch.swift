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
            if DocumentPath.isReserved(path) { continue } // the key-value store's files
            if entry.mode.isTree && !DocumentPath.isPackageName(entry.name) {
                result += try documentEntries(in: entry.id, repository: repository, prefix: path + "/")
            } else if entry.mode.isTree || entry.mode.isBlob {
                result.append((DocumentPath(trusted: path), entry))
            }
        }
        return result
    }
}
