import Foundation

/// The documents waiting to be autosaved, each with the time of its last change: a document
/// is due once it has been quiet for the delay. A file package is one document, so a write
/// to any file inside it restarts the package's quiet period, and the package is saved only
/// when the whole package is quiet.
struct AutosaveQueue {
    typealias Instant = ContinuousClock.Instant

    let quietDelay: Duration
    private(set) var lastChange: [DocumentPath: Instant] = [:]

    init(quietDelay: Duration) { self.quietDelay = quietDelay }

    var isEmpty: Bool { lastChange.isEmpty }
    var count: Int { lastChange.count }

    /// Notes a change to `document` at `time`.
    mutating func touch(_ document: DocumentPath, at time: Instant) {
        lastChange[document] = max(lastChange[document] ?? time, time)
    }

    /// Puts documents whose save could not be made back in the queue, due after `delay`.
    mutating func retry(_ documents: [DocumentPath], after delay: Duration, now: Instant) {
        for document in documents { touch(document, at: now + delay - quietDelay) }
    }

    /// When the next document becomes due (nil: none waits).
    var nextDeadline: Instant? { lastChange.values.min().map { $0 + quietDelay } }

    /// Removes and returns, sorted, the documents quiet for the delay at `now`.
    mutating func takeDue(at now: Instant) -> [DocumentPath] {
        let due = lastChange.filter { now - $0.value >= quietDelay }.keys.sorted()
        for document in due { lastChange[document] = nil }
        return due
    }

    /// The document a changed working-tree path belongs to, or nil when the agent must not
    /// save it: ignored paths, `.git`, docver's reserved area and names docver refuses.
    static func document(forPath path: String, ignore: IgnoreList) -> DocumentPath? {
        guard !path.isEmpty, !ignore.ignores(path), path != ".git", !path.hasPrefix(".git/") else { return nil }
        let document = DocumentPath.document(containingFile: path)
        return try? DocumentPath(document.path)
    }
}
