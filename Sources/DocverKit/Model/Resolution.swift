import Foundation

/// What a strategy decided for one document in conflict.
public enum Resolution: Sendable, Hashable {
    /// Make this version (the current one or a conflict version) current.
    case keep(DocumentVersion)
    /// Save these contents (a merge of the versions) as the current version.
    case merged(DocumentContents)
    /// Save these contents, which still hold conflict markers, and leave the conflict open.
    /// ``Container/markResolved(_:versions:force:)`` refuses the document until the markers
    /// are edited away (or it is forced).
    case mergedWithMarkers(DocumentContents)
}

/// What resolving one document did, or would do with a dry run.
public struct ResolutionOutcome: Sendable, Hashable {
    /// The document resolved.
    public let document: DocumentPath
    /// The strategy's name.
    public let strategy: String
    /// What the strategy decided.
    public let resolution: Resolution
    /// Conflict versions marked resolved.
    public let resolved: [String]
    /// Conflict versions removed from the version store.
    public let removed: [String]
    /// The save that recorded it; nil for a dry run.
    public let save: String?
    /// One line saying what happened (`kept version …`, `saved the merge …`), or with a dry
    /// run what would happen (`would keep version …`), for people.
    public var summary: String {
        let done = save != nil
        switch resolution {
        case let .keep(version):
            return "\(document): \(done ? "kept" : "would keep") version \(version.shortID) from \(version.device.name) as current"
        case .merged:
            return "\(document): \(done ? "saved" : "would save") the merge of \(resolved.count + 1) versions as current"
        case .mergedWithMarkers:
            return "\(document): \(done ? "saved" : "would save") the merge with conflict markers as current; the conflict stays open"
        }
    }
}
