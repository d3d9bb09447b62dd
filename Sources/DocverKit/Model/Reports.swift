import Foundation

/// What differs from the last save, and what is in conflict.
public struct ContainerStatus: Sendable, Hashable {
    /// Documents changed in the working tree since the last save.
    public let changed: [DocumentChange]
    /// Documents with unresolved conflict versions, and how many each has.
    public let inConflict: [DocumentConflictCount]
}

/// A document and its number of unresolved conflict versions.
public struct DocumentConflictCount: Sendable, Hashable {
    /// The document in conflict.
    public let document: DocumentPath
    /// How many unresolved conflict versions it has.
    public let conflicts: Int
}

/// One entry of ``Container/log(of:limit:)``: a save, an integration or a resolution.
public struct LogEntry: Sendable, Hashable {
    /// A save of documents, an integration of other devices' saves, or a resolution.
    public enum Kind: String, Sendable, Codable { case save, integration, resolution }
    /// The commit id.
    public let id: String
    /// What kind of entry this is.
    public let kind: Kind
    /// The device that made it (`docver` for integrations).
    public let device: Device
    /// When it was made.
    public let date: Date
    /// The first line of its message.
    public let subject: String
    /// The documents it changed (empty for integrations).
    public let changes: [DocumentChange]
    /// Versions that this integration recorded as conflict versions.
    public let conflicts: Int
}

/// What a sync did.
public struct SyncReport: Sendable, Hashable {
    /// The save made first to record unsaved edits, if any.
    public var savedBeforeSync: SaveResult?
    /// True when other devices' saves were brought in.
    public var integrated = false
    /// Conflict versions this sync recorded, by document.
    public var newConflicts: [DocumentPath: [String]] = [:]
    /// Remotes this device's branch was pushed to.
    public var pushed: [String] = []
    /// Remotes the sync completed with: fetched from, and pushed to when there was anything
    /// to push.
    public var synced: [String] = []
    /// Remotes the sync could not complete with, and why. Always empty in a report that
    /// ``Container/sync(_:savingFirst:progress:)`` returns; filled in the report of
    /// ``DocverError/syncIncomplete(_:)``, which it throws when some remotes failed.
    public var unreachable: [RemoteFailure] = []
    /// Things the user should know that did not stop the sync.
    public var warnings: [String] = []
    /// What changed for this device, document by document: other devices' versions that
    /// became current here, this device's versions that became conflict versions, conflict
    /// versions kept beside this device's, and resolutions made elsewhere. Sorted by document.
    /// On a device that had no saves yet (a clone, or the first sync of a new device), the
    /// documents it received are counted in ``receivedDocuments`` instead of listed as
    /// `updated` one by one, except those that arrived holding conflict markers; their
    /// conflicts are listed here as on any device.
    public var documentChanges: [DocumentSyncChange] = []
    /// How many documents a device that had no saves yet received (a clone, or the first sync
    /// of a new device); 0 on a device that had saves, whose changes ``documentChanges`` lists.
    public var receivedDocuments = 0
    /// Key-value store values of this device that another device's concurrent write replaced
    /// (the store resolves by itself; the losing value stays in `kv history`). Sorted by key.
    public var keyValueChanges: [KeyValueSyncChange] = []
}

/// A key-value store value of this device that a sync replaced by another device's
/// concurrent write (docs/FORMAT.md, "The key-value store").
public struct KeyValueSyncChange: Sendable, Hashable {
    /// The kinds of change: only a replaced value for now.
    public enum Kind: String, Sendable, Codable, Hashable {
        /// This device's value lost to another device's concurrent write (or removal).
        case keyValueReplaced
    }

    /// The key.
    public let key: String
    /// What happened.
    public let kind: Kind
    /// The commit of this device's value that lost.
    public let replacedVersion: String
    /// The commit of the value that won (a removal when ``removed``).
    public let currentVersion: String
    /// The device whose write won.
    public let device: Device
    /// True when the winning write removed the key.
    public let removed: Bool

    /// One line for people: "key bg: your value was replaced by bob's; see 'docver kv history bg'".
    public var summary: String {
        let what = removed ? "removed by \(device.name)" : "replaced by \(device.name)'s"
        return "key \(key): your value was \(what); see 'docver kv history \(key)'"
    }
}

/// A remote a sync could not complete with: it could not be reached, refused the push, or
/// is no repository a sync can use.
public struct RemoteFailure: Sendable, Hashable {
    /// The remote's name.
    public let remote: String
    /// What went wrong (``DocverError/remote(name:message:)``,
    /// ``DocverError/pushRejected(remote:message:)`` or ``DocverError/remoteUnusable(name:problem:)``).
    public let error: DocverError

    public init(remote: String, error: DocverError) {
        self.remote = remote
        self.error = error
    }

    /// Why, without the remote's name: `failed to connect to 127.0.0.1: Connection refused`.
    public var reason: String {
        switch error {
        case let .remote(_, message): DocverError.printable(message)
        case let .remoteUnusable(_, problem): problem.description
        case let .pushRejected(_, message): "the push was rejected: " + DocverError.printable(message)
        default: error.description
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(remote)
        hasher.combine(error.description)
    }
}

/// What a sync changed about one document, as seen from this device.
public struct DocumentSyncChange: Sendable, Hashable {
    /// The kinds of change, from this device's point of view.
    public enum Kind: String, Sendable, Codable, Hashable {
        /// Another device's version became current here (its edit, creation or deletion).
        case updated
        /// This device's version lost to another and is now a conflict version.
        case yoursIsConflictVersion
        /// Another device's version lost and is kept as a conflict version beside the current one.
        case conflictVersionKept
        /// A conflict version was resolved or removed on another device.
        case resolvedElsewhere
        /// A merge made with plain git kept another version and set this one aside: it is
        /// recorded as a resolved conflict version (`versions --all` lists it).
        case setAsideByPlainMerge
        /// Another device renamed the document this device renamed, to another name: both
        /// names are kept (``renamedFrom`` is the name before, ``renamedHere`` this device's).
        case renamedDifferently
    }

    /// The document.
    public let document: DocumentPath
    /// What happened.
    public let kind: Kind
    /// The current version after the sync (a deletion version when the document was deleted;
    /// nil when the document is absent because a folder of its name won over it).
    public let current: DocumentVersion?
    /// The conflict version concerned, for the conflict kinds.
    public let version: DocumentVersion?
    /// For `updated`: the new current version holds conflict markers (`<<<<<<<` … `>>>>>>>`),
    /// as a plain commit of an unfinished merge would.
    public internal(set) var containsConflictMarkers = false
    /// For `renamedDifferently`: the name both devices renamed.
    public internal(set) var renamedFrom: DocumentPath?
    /// For `renamedDifferently`: the name this device gave it (``document`` is the other's).
    public internal(set) var renamedHere: DocumentPath?

    /// One line for people, such as "notes.txt: your edit is now a conflict version; current
    /// is Bob's Phone's (version 1a2b3c4d5e6f)".
    public var summary: String {
        // (No current version: the document is absent here, a folder of its name standing in
        // its place, docs/FORMAT.md "File against folder".)
        let currentText = current.map { "\($0.device.name)'s (version \($0.shortID))" } ?? "none (a folder of that name stays)"
        switch kind {
        case .updated:
            if current?.isDeletion == true { return "\(document): deleted by \(current!.device.name)" }
            if containsConflictMarkers { return "\(document): updated to \(currentText), which contains conflict markers" }
            return "\(document): updated to \(currentText)"
        case .yoursIsConflictVersion:
            let what = version?.isDeletion == true ? "deletion" : "edit"
            return "\(document): your \(what) is now a conflict version; current is \(currentText)"
        case .conflictVersionKept:
            return
                "\(document): \(version?.device.name ?? "another device")'s version \(version?.shortID ?? "") is kept as a conflict version; current is \(currentText)"
        case .setAsideByPlainMerge:
            return "\(document): \(version?.device.name ?? "another device")'s version \(version?.shortID ?? "") was set aside by a plain git merge "
                + "(listed by 'versions --all'); current is \(currentText)"
                + (containsConflictMarkers ? ", which contains conflict markers" : "")
        case .renamedDifferently:
            return "\(renamedFrom?.path ?? "?") was renamed to \(renamedHere?.path ?? "?") here and to \(document) on "
                + "\(current?.device.name ?? "another device")'s device; both names kept"
        case .resolvedElsewhere:
            return "\(document): conflict version \(version?.shortID ?? "") was resolved on another device; current is \(currentText)"
        }
    }
}

/// A configured remote.
public struct RemoteInfo: Sendable, Hashable, Codable {
    /// The remote's name.
    public let name: String
    /// The remote's URL, as configured (with any password written into it).
    public let url: String

    /// The URL to show: any password in it replaced by `***` (``RemoteLocation/redacted(_:)``).
    public var redactedURL: String { RemoteLocation.redacted(url) }
}
