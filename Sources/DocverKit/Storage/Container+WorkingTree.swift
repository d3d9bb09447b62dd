import Foundation

extension Container {
    /// Moves this device's branch from `old` to `new` (compare-and-swap) and brings the
    /// working tree along with a checkout (files with local edits are left alone).
    func advanceBranch(to new: ObjectID, from old: ObjectID?, message: String, in repository: Repository) throws {
        try advanceBranch(to: new, from: old, message: message, in: repository) { oldTree in
            try repository.checkout(tree: repository.commit(new).treeID, baseline: oldTree)
        }
    }

    /// Moves this device's branch from `old` to `new` (compare-and-swap), then runs
    /// `updateWorkingTree` with the old head's tree.
    ///
    /// A marker naming the old tree is written first; if the process dies between moving the
    /// branch and finishing the working-tree update, the next docver command finishes it
    /// (``finishInterruptedCheckout(_:)``) before anything reads the working tree, so a stale
    /// tree is never mistaken for new edits.
    func advanceBranch(to new: ObjectID, from old: ObjectID?, message: String, in repository: Repository,
                       updateWorkingTree: (_ oldTree: ObjectID?) throws -> Void) throws {
        let oldTree = try old.map { try repository.commit($0).treeID }
        try FileSystem.createDirectory(files.directory)
        try AtomicFile.write((oldTree?.hex ?? "none") + "\n", to: files.checkoutPending)
        do {
            try repository.updateReference(device.branch, to: new, expected: old, message: message)
        } catch {
            try? FileSystem.remove(files.checkoutPending)
            throw error
        }
        try updateWorkingTree(oldTree)
        try FileSystem.remove(files.checkoutPending)
    }

    /// Completes a working-tree update that a crash interrupted.
    func finishInterruptedCheckout(_ repository: Repository) throws {
        guard let data = FileSystem.contentsIfReadable(files.checkoutPending) else { return }
        let baseline = ObjectID(hex: String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        if let head = try repository.referenceTarget(device.branch) {
            try repository.checkout(tree: repository.commit(head).treeID, baseline: baseline)
        }
        try FileSystem.remove(files.checkoutPending)
    }

    /// True while a working-tree update is unfinished (a crash interrupted it).
    var hasInterruptedCheckout: Bool { FileStat(path: files.checkoutPending) != nil }

    /// Makes the working tree hold `entry` at `fullPath` (nil: nothing there); every file is
    /// replaced atomically. Returns the files written, with their stat data, for the index.
    func materialize(_ entry: TreeEntry?, at fullPath: String, relative: String,
                     in repository: Repository) throws -> [SnapshotFile] {
        var files: [SnapshotFile] = []
        try materialize(entry, at: fullPath, relative: relative, files: &files, in: repository)
        return files
    }

    private func materialize(_ entry: TreeEntry?, at fullPath: String, relative: String,
                             files: inout [SnapshotFile], in repository: Repository) throws {
        guard let entry else {
            try FileSystem.remove(fullPath)
            return
        }
        let existing = FileStat(path: fullPath)
        if entry.mode.isTree {
            if let existing, !existing.isDirectory { try FileSystem.remove(fullPath) }
            try FileSystem.createDirectory(fullPath)
            let children = try repository.tree(entry.id).entries
            let names = Set(children.map(\.name))
            for name in (try? FileSystem.contentsOfDirectory(fullPath)) ?? [] where !names.contains(name) {
                try FileSystem.remove(fullPath + "/" + name)
            }
            for child in children {
                try materialize(child, at: fullPath + "/" + child.name, relative: relative + "/" + child.name,
                                files: &files, in: repository)
            }
            return
        }
        if let existing, existing.isDirectory { try FileSystem.remove(fullPath) }
        try FileSystem.createDirectory((fullPath as NSString).deletingLastPathComponent)
        try AtomicFile.write(repository.blob(entry.id).data, to: fullPath, executable: entry.mode == .executable)
        if let stat = FileStat(path: fullPath) { files.append(SnapshotFile(path: relative, state: EntryState(entry), stat: stat)) }
    }
}
