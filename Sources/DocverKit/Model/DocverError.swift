import Foundation

/// Everything that can go wrong in a docver operation, in the user's terms.
///
/// Each case renders as one line (``description``) that says what happened; advice on what to
/// do next is the business of the program in front of the user (the CLI has its own). An
/// operation that throws one of these left the container unchanged, except where the
/// description says what was recorded (``indexLocked``).
public enum DocverError: Error, Sendable, Equatable, CustomStringConvertible {
    case notAContainer(path: String)
    case alreadyAContainer(path: String, device: String)
    case bareRepository(path: String)
    case invalidDeviceID(String)
    case invalidDeviceName(String)
    case invalidDocumentName(String, reason: String)
    /// A file name in the working tree that is not UTF-8, given as git escapes its bytes.
    case nameNotUTF8(escaped: String)
    case noSuchDocument(String)
    case noSuchVersion(String)
    case ambiguousVersion(String)
    case versionOfAnotherDocument(version: String, document: String)
    case versionNeedsDocument(version: String)
    case notInConflict(String)
    case notAConflictVersion(version: String, document: String)
    case invalidMessage(String)
    case documentChangedDuringSave(String)
    case invalidRemoteName(String)
    case remoteExists(String)
    case noSuchRemote(String)
    case noRemotes
    /// A remote's local path or `file://` URL names no git repository.
    case noRepositoryAt(String)
    /// A remote's local path lies inside the container's own working tree.
    case remoteInsideContainer(String)
    /// A remote's local path names a file, not a git repository.
    case fileNotRepository(String)
    /// A remote's local path names a git repository with a working tree: a push cannot
    /// update it (libgit2 pushes only into bare repositories).
    case repositoryHasWorkingTree(String)
    /// A remote URL with a scheme docver does not sync through (`ftp://`, say).
    case unsupportedRemoteURL(String)
    /// A configured remote's local repository cannot be used at sync time: `problem` is
    /// ``noRepositoryAt(_:)``, ``fileNotRepository(_:)`` or ``repositoryHasWorkingTree(_:)``.
    indirect case remoteUnusable(name: String, problem: DocverError)
    /// A sync with several remotes completed with some and not with others. The report says
    /// what it did with the ones it reached (``SyncReport/synced``) and why the others failed
    /// (``SyncReport/unreachable``); what it integrated and pushed stays done.
    indirect case syncIncomplete(SyncReport)
    /// `gc` refused or failed; the reason says which (nothing is pruned when it refuses).
    case garbageCollectionFailed(String)
    case remote(name: String, message: String)
    case pushRejected(remote: String, message: String)
    case destinationNotEmpty(String)
    case mergeFailed(document: String, reasons: [String])
    case notMergeable(document: String, reason: String)
    /// No merge tool is configured, or the one named is unknown; the reason says how to set one.
    case noMergeTool(reason: String)
    case choiceRequired(document: String, versions: [String])
    case cancelled(document: String)
    case conflictChanged(document: String)
    case documentExists(String)
    case documentNotOpen(String)
    case editingDisabled(String)
    case noOtherVersions(document: String)
    /// Writing `document` would need the place of an unsaved edit (`blocking`: a file where
    /// one of its folders goes, or files in a folder where it goes). Nothing was changed.
    case editsInTheWay(document: String, blocking: String)
    /// `evict` refused a document, and changed nothing.
    case cannotEvict(document: String, reason: String)
    /// A document still holds conflict markers, so marking its conflict resolved was refused.
    /// `lines` says where, one entry per file: `lines 3-9` (a package: `text.txt lines 3-9`).
    case conflictMarkersRemain(document: String, lines: [String])
    case branchKeptChanging(attempts: Int)
    case indexLocked
    /// A key-value store key that cannot be used (empty, over 64 bytes, control characters).
    case invalidKey(String, reason: String)
    /// A value the key-value store cannot hold (not a property-list value, not finite).
    case invalidValue(String)
    /// A key-value store write that would pass a quota; nothing was changed.
    case keyValueQuotaExceeded(String)
    /// The key-value store has no value for the key.
    case noSuchKey(String)
    /// A version argument that is none of the accepted forms (docs/CLI.md, "Versions").
    case invalidVersion(String)
    /// `@-N` asked for more older versions than the document has.
    case notThatManyVersions(document: String, back: Int, available: Int)
    /// No version of the document existed at the date (it is older than the first save).
    case noVersionAtDate(document: String, date: Date)
    /// A date argument that is not an ISO 8601 date or date-time.
    case invalidDate(String)
    /// A document docver cannot look at (a folder on its path is unreadable): whether it
    /// changed or was deleted cannot be told, so nothing is recorded for it.
    case unreadable(document: String, reason: String)
    /// The disk (or the user's quota) was full while writing `path`; with `remote`, a
    /// remote's disk (a push into a repository on this machine). Nothing was recorded: a save
    /// or an integration moves its branch only once everything it needs is written.
    case noSpaceLeft(path: String, remote: String?)
    /// The container's `.git/docver` is a symbolic link: docver keeps its lock, caches and
    /// the agent's files there, and opens nothing through a link (docs/SECURITY.md).
    case localFolderIsLink(String)
    case git(GitError)
    case system(SystemError)

    /// The one-line message, with control characters made visible.
    public var description: String { Self.printable(rawDescription) }

    /// The description before control characters are made visible.
    private var rawDescription: String {
        switch self {
        case let .notAContainer(path): "not a docver container: \(path)"
        case let .alreadyAContainer(path, device): "\(path) is already a docver container for device '\(device)'"
        case let .bareRepository(path): "\(path) is a bare git repository; a container needs a working tree"
        case let .invalidDeviceID(id):
            "invalid device id '\(id)': use 1 to 64 letters, digits, '-' or '_'"
        case let .invalidDeviceName(name): "invalid device name '\(name)': it must be one line of at most 200 characters"
        case let .invalidDocumentName(name, reason): "invalid document name '\(DocumentPath.quoted(name))': \(reason)"
        case let .nameNotUTF8(escaped): "invalid document name \"\(escaped)\": the name is not UTF-8; rename it to save it"
        case let .noSuchDocument(name): "no such document: \(DocumentPath.quoted(name))"
        case let .noSuchVersion(id): "no such version: \(id)"
        case let .ambiguousVersion(id): "version id '\(id)' is ambiguous"
        case let .versionOfAnotherDocument(version, document): "version \(version) is not a version of \(document)"
        case let .versionNeedsDocument(version): "version \(version) saved several documents; name the document"
        case let .notInConflict(document): "\(document) is not in conflict"
        case let .notAConflictVersion(version, document): "version \(version) is not an unresolved conflict version of \(document)"
        case let .invalidMessage(reason): "invalid message: \(reason)"
        case let .documentChangedDuringSave(document): "\(document) changed while it was being saved"
        case let .invalidRemoteName(name): "invalid remote name '\(name)'"
        case let .remoteExists(name): "remote '\(name)' already exists"
        case let .noSuchRemote(name): "no such remote: \(name)"
        case .noRemotes: "no remotes configured"
        case let .noRepositoryAt(path): "no git repository at \(path)"
        case let .garbageCollectionFailed(reason): "gc failed: \(reason)"
        case let .remoteInsideContainer(path): "\(path) is inside the container's working tree, where it would be saved as a document"
        case let .fileNotRepository(path): "\(path) is a file, not a git repository"
        case let .repositoryHasWorkingTree(path):
            "\(path) is a git repository with a working tree; a remote must be a bare repository, which a sync can push to"
        case let .unsupportedRemoteURL(url):
            "unsupported remote URL '\(RemoteLocation.redacted(url))': use a local path, user@host:path, or a file://, ssh://, git://, http:// or https:// URL"
        case let .remoteUnusable(name, problem): "remote '\(name)': \(problem.rawDescription)"
        case let .syncIncomplete(report): Self.incompleteSync(report)
        case let .remote(name, message): "remote '\(name)': \(message)"
        case let .pushRejected(remote, message): "push to '\(remote)' was rejected: \(message)"
        case let .destinationNotEmpty(path): "destination \(path) exists and is not empty"
        case let .mergeFailed(document, reasons): "cannot merge \(document): " + reasons.joined(separator: "; ")
        case let .notMergeable(document, reason): "cannot merge \(document): \(reason)"
        case let .noMergeTool(reason): reason
        case let .choiceRequired(document, versions):
            "\(document) needs a choice of version: " + versions.joined(separator: ", ")
        case let .cancelled(document): "resolution of \(document) was cancelled"
        case let .documentExists(document): "\(document) already exists"
        case let .documentNotOpen(document): "\(document) is not open"
        case let .editingDisabled(document): "\(document) is reloading a newer version; try the edit again"
        case let .conflictChanged(document): "the conflict in \(document) changed while it was being resolved; nothing was changed"
        case let .noOtherVersions(document): "\(document) has no other versions to remove"
        case let .editsInTheWay(document, blocking):
            "cannot write \(DocumentPath.quoted(document)): \(DocumentPath.quoted(blocking)) has unsaved changes where it goes; nothing was changed"
        case let .cannotEvict(document, reason):
            "cannot evict \(DocumentPath.quoted(document)): \(reason); nothing was changed"
        case let .conflictMarkersRemain(document, lines):
            "\(document) still contains conflict markers (\(lines.joined(separator: "; ")))"
        case let .branchKeptChanging(attempts):
            "the device branch kept changing under other writers; gave up after \(attempts) attempts, nothing was changed"
        case .indexLocked:
            "the save is recorded, but git's index stayed locked by another git command (.git/index.lock), so it was not updated"
        case let .invalidKey(key, reason): "invalid key '\(key)': \(reason)"
        case let .invalidValue(reason): "invalid value: \(reason)"
        case let .keyValueQuotaExceeded(reason): "the key-value store's quota would be exceeded: \(reason); nothing was changed"
        case let .noSuchKey(key): "no such key: \(key)"
        case let .invalidVersion(text):
            "invalid version '\(text)': expected a version id (4 or more hexadecimal digits), @, @-N or @{DATE}"
        case let .notThatManyVersions(document, back, available):
            "\(DocumentPath.quoted(document)) has \(available) older version\(available == 1 ? "" : "s"); @-\(back) goes further back"
        case let .noVersionAtDate(document, date):
            "\(DocumentPath.quoted(document)) had no version at \(DateInput.iso8601(date)) (its first save is later)"
        case let .invalidDate(text):
            "invalid date '\(text)': expected an ISO 8601 date such as 2026-11-01, 2026-11-01T09:30 or 2026-11-01T09:30:00+01:00"
        case let .unreadable(document, reason):
            "cannot look at \(DocumentPath.quoted(document)) (\(reason)): docver cannot tell whether it changed or was deleted, and records neither"
        case let .noSpaceLeft(path, remote):
            (remote.map { "remote '\($0)': " } ?? "") + "no space left on device (while writing \(path))"
        case let .localFolderIsLink(path):
            "\(path) is a symbolic link, not a folder: docver keeps its local files there and follows no link to them"
        case let .git(error): error.message
        case let .system(error): error.description
        }
    }
}

extension DocverError {
    /// `could not sync with remote 'far' (failed to connect ...); synced with 'origin'`.
    private static func incompleteSync(_ report: SyncReport) -> String {
        let failures = report.unreachable.map { "'\($0.remote)' (\($0.reason))" }
        let failed = "could not sync with remote\(failures.count == 1 ? "" : "s") " + listed(failures)
        guard !report.synced.isEmpty else { return failed + "; no remote was synced" }
        return failed + "; synced with " + listed(report.synced.map { "'\($0)'" })
    }

    /// `a`, `a and b`, `a, b and c`.
    private static func listed(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }

    /// Whether the error concerns one remote only (it could not be reached, refused the push,
    /// or is no repository a sync can use): a sync with several remotes goes on with the others.
    var concernsOneRemote: Bool {
        switch self {
        case .remote, .pushRejected, .remoteUnusable: true
        case let .noSpaceLeft(_, remote): remote != nil
        default: false
        }
    }

    /// Escapes control characters (names may contain them), so a description stays one line
    /// and cannot drive the terminal.
    public static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where isControl(scalar): result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Runs a body of the core, turning a ``GitError`` into ``DocverError/git(_:)`` and a
    /// ``SystemError`` into ``DocverError/system(_:)``.
    static func wrapping<T>(writing place: String? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as GitError {
            if error.isNoSpaceLeft, let path = error.quotedPath ?? place { throw DocverError.noSpaceLeft(path: path, remote: nil) }
            throw DocverError.git(error)
        } catch let error as SystemError {
            if error.isNoSpaceLeft { throw DocverError.noSpaceLeft(path: error.path, remote: nil) }
            throw DocverError.system(error)
        }
    }
}

extension DocverError {
    /// The error's kind as a stable name: the case's name (`noSuchDocument`, `remote`, ...).
    /// Programs reading the CLI's `--json` errors (docs/CLI.md, "Errors under --json") match on
    /// it; a case is never renamed, so neither is its code.
    public var code: String {
        if let label = Mirror(reflecting: self).children.first?.label { return label }
        switch self {
        case .noRemotes: return "noRemotes"
        case .indexLocked: return "indexLocked"
        default: return "failed"
        }
    }
}
