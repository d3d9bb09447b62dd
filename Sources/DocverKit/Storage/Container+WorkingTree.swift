import Foundation

extension Container {
    private var pendingCheckoutMarker: String { metadataDirectory + "/checkout-pending" }

    /// Moves this device's branch from `old` to `new` (compare-and-swap) and brings the
    /// working tree along.
    ///
    /// A marker naming the old tree is written first; if the process dies between moving the
    /// branch and finishing the checkout, the next docver command finishes it
    /// (``finishInterruptedCheckout(_:)``) before anything reads the working tree, so a stale
    /// tree is never mistaken for new edits. Files with local edits are left alone.
    func advanceBranch(to new: ObjectID, from old: ObjectID?, message: String, in repository: Repository) throws {
        let oldTree = try old.map { try repository.commit($0).treeID }
        try FileManager.default.createDirectory(atPath: metadataDirectory, withIntermediateDirectories: true)
        try writeAtomically((oldTree?.hex ?? "none") + "\n", to: pendingCheckoutMarker)
        do {
            try repository.updateReference(device.branch, to: new, expected: old, message: message)
        } catch {
            try? FileManager.default.removeItem(atPath: pendingCheckoutMarker)
            throw error
        }
        try repository.checkout(tree: repository.commit(new).treeID, baseline: oldTree)
        try FileManager.default.removeItem(atPath: pendingCheckoutMarker)
    }

    /// Completes a working-tree update that a crash interrupted.
    func finishInterruptedCheckout(_ repository: Repository) throws {
        guard let text = try? String(contentsOfFile: pendingCheckoutMarker, encoding: .utf8) else { return }
        let baseline = ObjectID(hex: text.trimmingCharacters(in: .whitespacesAndNewlines))
        if let head = try repository.referenceTarget(device.branch) {
            try repository.checkout(tree: repository.commit(head).treeID, baseline: baseline)
        }
        try FileManager.default.removeItem(atPath: pendingCheckoutMarker)
    }
}

/// Writes a file so that readers see either the old or the new contents, never a mix.
func writeAtomically(_ text: String, to path: String) throws {
    let temporary = path + ".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else {
        throw GitError(code: .other(-1), message: "cannot write \(temporary)", function: #function)
    }
    guard rename(temporary, path) == 0 else {
        unlink(temporary)
        throw GitError(code: .other(-1), message: "cannot replace \(path): \(String(cString: strerror(errno)))", function: #function)
    }
}
