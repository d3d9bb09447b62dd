import Foundation

/// Remembers which commit introduced a document's state as seen from a commit: the result of
/// ``VersionGraph/introducingCommit(of:from:)``.
///
/// Keys are `(commit, path)` pairs and commits never change, so an entry is a fact about the
/// repository: the memo can be missing entries but never be wrong. A walk that reaches a
/// remembered pair stops there, so after a save or a sync only the new commits are walked.
/// Kept in `.git/docver/versions.json`, written atomically; dropped when it grows too large.
final class VersionMemo {
    private let file: String
    private var entries: [String: String]
    private var changed = false
    private static let limit = 50_000

    init(file: String) {
        self.file = file
        if let data = FileSystem.localContentsIfReadable(file),
           let stored = try? JSONDecoder().decode([String: String].self, from: data), stored.count < Self.limit {
            entries = stored
        } else {
            entries = [:]
        }
    }

    func version(of path: String, at commit: ObjectID) -> ObjectID? {
        entries[commit.hex + " " + path].flatMap(ObjectID.init(hex:))
    }

    func remember(_ version: ObjectID, of path: String, at commit: ObjectID) {
        let key = commit.hex + " " + path
        guard entries[key] != version.hex else { return }
        entries[key] = version.hex
        changed = true
    }

    /// Writes the memo if it learned something; failures only cost speed.
    func save() {
        guard changed, let data = try? JSONEncoder().encode(entries) else { return }
        try? FileSystem.createDirectory((file as NSString).deletingLastPathComponent)
        try? AtomicFile.write(data, to: file)
        changed = false
    }
}
