import Foundation

/// Remembers which commit introduced a document's state as seen from a commit: the result of
/// ``VersionGraph/introducingCommit(of:from:)``.
///
/// Keys are `(commit, path)` pairs and commits never change, so an entry is a fact about the
/// repository: the memo can be missing entries but never be wrong. A walk that reaches a
/// remembered pair stops there, so after a save or a sync only the new commits are walked.
/// Kept in `.git/docver/versions.json`, written atomically; dropped when it grows too large.
/// Keys are bytes, and the file a list of pairs, not a JSON object: an object read into a
/// dictionary of strings takes two spellings of one name (NFC and NFD) for one key.
final class VersionMemo {
    private let file: String
    private var entries: [ByteString: String]
    private var changed = false
    private static let limit = 50_000

    init(file: String) {
        self.file = file
        if let data = FileSystem.localContentsIfReadable(file),
            let stored = try? JSONDecoder().decode([[String]].self, from: data), stored.count < Self.limit,
            stored.allSatisfy({ $0.count == 2 })
        {
            entries = Dictionary(stored.map { (ByteString($0[0]), $0[1]) }) { _, last in last }
        } else {
            entries = [:]
        }
    }

    func version(of path: String, at commit: ObjectID) -> ObjectID? {
        entries[ByteString(commit.hex + " " + path)].flatMap(ObjectID.init(hex:))
    }

    func remember(_ version: ObjectID, of path: String, at commit: ObjectID) {
        let key = ByteString(commit.hex + " " + path)
        guard entries[key] != version.hex else { return }
        entries[key] = version.hex
        changed = true
    }

    /// Writes the memo if it learned something; failures only cost speed.
    func save() {
        let pairs = entries.sorted { $0.key < $1.key }.map { [$0.key.string, $0.value] }
        guard changed, let data = try? JSONEncoder().encode(pairs) else { return }
        try? FileSystem.createDirectory((file as NSString).deletingLastPathComponent)
        try? AtomicFile.write(data, to: file)
        changed = false
    }
}
