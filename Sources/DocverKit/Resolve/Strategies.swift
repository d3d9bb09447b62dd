import Foundation

/// A way to resolve a conflict: latest date, merge, user choice, or an editor's own.
public protocol ResolutionStrategy: Sendable {
    /// The name recorded in history (`Docver-Strategy`).
    var name: String { get }
    /// Decides the resolution of one conflict. Throwing leaves the container unchanged.
    func resolve(_ conflict: Conflict, in container: Container) async throws -> Resolution
}

/// The version with the latest modification date becomes current (then the greater device
/// id, then the greater version id, the same order integration uses). As in integration, a
/// modification beats a deletion: a deletion wins only when every version is one.
/// (docs/MODEL.md: R1.)
public struct LatestDateStrategy: ResolutionStrategy {
    /// The latest-date strategy.
    public init() {}
    /// Recorded as `latest-date`.
    public var name: String { "latest-date" }

    /// Decides the resolution of `conflict`.
    public func resolve(_ conflict: Conflict, in container: Container) async throws -> Resolution {
        let all = [conflict.current] + conflict.conflicts
        let candidates = all.contains { !$0.isDeletion } ? all.filter { !$0.isDeletion } : all
        return .keep(candidates.sorted(by: Container.newestFirst)[0])
    }
}

/// Three-way merge of the competing versions against their common base, folded pairwise:
/// line-based for text, key by key for JSON, component by component for packages, and the
/// git way (`.gitattributes` `merge=NAME` + `merge.NAME.driver`) for custom types.
public struct MergeStrategy: ResolutionStrategy {
    /// Save overlapping text edits with diff3-style conflict markers instead of failing.
    public var markers: Bool

    /// A merge strategy; with `markers`, overlapping text edits are saved with conflict markers.
    public init(markers: Bool = false) { self.markers = markers }
    /// Recorded as `merge`.
    public var name: String { "merge" }

    /// Decides the resolution of `conflict`.
    public func resolve(_ conflict: Conflict, in container: Container) async throws -> Resolution {
        try container.merge(conflict, markers: markers)
    }
}

/// The user picks a version, through whatever interface the caller provides (the
/// ConflictResolverViewController role): the closure receives the conflict and returns the
/// chosen version, or nil to cancel.
public struct UserChoiceStrategy: ResolutionStrategy {
    /// Shows the versions to the user and returns the chosen one, or nil to cancel.
    public typealias Chooser = @Sendable (Conflict) async throws -> DocumentVersion?
    private let choose: Chooser

    /// A strategy that asks `choose`.
    public init(_ choose: @escaping Chooser) { self.choose = choose }
    /// Recorded as `choose`.
    public var name: String { "choose" }

    /// A strategy that picks the version whose id starts with `id` (current or unresolved).
    public static func version(_ id: String) -> UserChoiceStrategy {
        UserChoiceStrategy { conflict in
            let candidates = ([conflict.current] + conflict.conflicts).filter { $0.id.hasPrefix(id.lowercased()) }
            guard id.count >= 4, !candidates.isEmpty else {
                throw DocverError.notAConflictVersion(version: id, document: conflict.document.path)
            }
            guard candidates.count == 1 else { throw DocverError.ambiguousVersion(id) }
            return candidates[0]
        }
    }

    /// Decides the resolution of `conflict`.
    public func resolve(_ conflict: Conflict, in container: Container) async throws -> Resolution {
        guard let version = try await choose(conflict) else { throw DocverError.cancelled(document: conflict.document.path) }
        guard ([conflict.current] + conflict.conflicts).contains(version) else {
            throw DocverError.notAConflictVersion(version: version.id, document: conflict.document.path)
        }
        return .keep(version)
    }
}
