import DocverKit

/// What the user can do about a failure, in terms of this command line.
///
/// The library's errors describe what went wrong; advice that names commands and flags belongs
/// to the CLI, so it lives here. Printed as the `hint:` line under `docver: error: ...`.
enum Advice {
    /// The hint for a library error. A hint names what the error knows (the remote, the path,
    /// a version) and is otherwise phrased without placeholders: `-C PATH` reads as something
    /// to type.
    static func hint(for error: DocverError) -> String? {
        switch error {
        case .notAContainer: "create one with 'docver init', or name a container's folder with -C"
        case .alreadyAContainer: "run init with the same device id and name to check it, or use the container as it is"
        case .ambiguousVersion: "give more digits of the version id"
        case .unreadable: "make the folder readable (chmod) for the user running docver, or move it out of the container"
        case .noSuchVersion: "'docver versions' with the document's name lists its versions, 'docver log' every save"
        case .versionNeedsDocument: "name the document first, then the version; 'docver log --json' lists the documents each save changed"
        case .noRemotes: "add one with 'docver remote add origin' followed by the path or address of a repository (--create makes one at a path)"
        case .noRepositoryAt: "pass --create to make an empty bare repository there"
        case .remoteInsideContainer: "put the remote repository outside the container, next to it for example"
        case let .repositoryHasWorkingTree(path):
            "sync through a bare repository; 'git clone --bare \(Terminal.shellWord(path)) \(Terminal.shellWord(bareSibling(of: path)))' makes one from it"
        case .noSuchRemote: "list remotes with 'docver remote list'"
        case let .remote(_, message) where message.hasPrefix("authentication failed"):
            "for ssh, name the key file with 'git config docver.network.sshKey' and its path, or load it into ssh-agent; for https, configure a git credential helper (git config credential.helper store)"
        case let .remote(_, message) where message.hasPrefix("the ssh host key of"):
            "compare the fingerprint with the server's ('ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub' there), then add its key to ~/.ssh/known_hosts (or the file docver.network.knownHosts names)"
        case let .remote(_, message) where message.hasPrefix("the ") && message.contains(" certificate of "):
            "if the server uses its own certificate, check it, then name a copy of it (in the text form openssl writes) with 'git config docver.network.trustedCertificates' and the copy's path"
        case let .remote(_, message) where message.contains("(docver.network.stallTimeout)"):
            "the server did not answer in time; saves stay here: sync again later, or allow longer with 'git config docver.network.stallTimeout' and a number of seconds"
        case let .remote(_, message) where message.contains("(docver.network.connectTimeout)"):
            "the server did not answer in time; saves stay here: sync again later, or allow longer with 'git config docver.network.connectTimeout' and a number of seconds"
        case let .remote(name, _):
            "check where it points with 'docver remote list' (change that with 'docver remote set-url \(Terminal.shellWord(name))' and the right address); saves stay here until a sync reaches it"
        case .noSpaceLeft: "free space on that disk, then run the command again"
        case let .remoteUnusable(name, problem): remoteHint(name, problem)
        case let .syncIncomplete(report): incompleteSyncHint(report)
        case let .choiceRequired(document, versions):
            // Each listed version starts with its short id; the first is the current version.
            "pass --keep with the id of the version to keep (docver resolve \(Terminal.shellWord(document)) --keep \(versions.first?.split(separator: " ").first ?? "@")), or run on a terminal to choose interactively"
        case let .mergeFailed(document, reasons) where reasons.first?.hasPrefix("merge tool '") == true:
            "run the tool again with 'docver resolve \(Terminal.shellWord(document)) --tool', or keep a version with --strategy choose"
        case .mergeFailed: "resolve with --strategy choose, or save the merge with --markers"
        case .conflictChanged: "run the command again to see the new versions"
        case let .editsInTheWay(_, blocking):
            "save it with 'docver save \(Terminal.shellWord(blocking))' (or move it away), then run the command again"
        case .noMergeTool: "resolve without a tool with --strategy latest-date, merge or choose"
        case .notInConflict: "list documents in conflict with 'docver conflicts'"
        case .branchKeptChanging: "another program keeps moving this device's branch; run the command again when it is done"
        case .conflictMarkersRemain:
            "edit the document to remove the markers and save it, or pass --force to mark it resolved as it is"
        case .indexLocked: "if no git command is running, remove .git/index.lock; 'docver status' then shows the true state"
        default: nil
        }
    }

    /// A configured remote whose local repository went missing, or is no bare repository.
    private static func remoteHint(_ name: String, _ problem: DocverError) -> String? {
        let remote = Terminal.shellWord(name)
        switch problem {
        case let .noRepositoryAt(path):
            return "if it moved, point '\(name)' at it with 'docver remote set-url \(remote)' and its new path; "
                + "to start again with an empty one: docver remote set-url \(remote) \(Terminal.shellWord(path)) --create"
        case let .repositoryHasWorkingTree(path):
            let bare = bareSibling(of: path)
            return "sync through a bare repository: git clone --bare \(Terminal.shellWord(path)) \(Terminal.shellWord(bare))"
                + " && docver remote set-url \(remote) \(Terminal.shellWord(bare))"
        case .fileNotRepository:
            return
                "point '\(name)' at a bare git repository with 'docver remote set-url \(remote)', or remove it with 'docver remote remove \(remote)'"
        default:
            return hint(for: problem)
        }
    }

    /// After a sync that reached some remotes and not others.
    private static func incompleteSyncHint(_ report: SyncReport) -> String? {
        if report.unreachable.count == 1, let failure = report.unreachable.first {
            switch failure.error {
            case .remoteUnusable: return hint(for: failure.error)
            default: break
            }
        }
        let names = report.unreachable.map { Terminal.shellWord($0.remote) }
        let they = names.count == 1 ? "it" : "they"
        return "check where \(they) point\(names.count == 1 ? "s" : "") with 'docver remote list'; saves stay here until a sync reaches "
            + (names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1])
    }

    /// Where a bare copy of a repository with a working tree would go: beside it, with `.git`
    /// (`/home/alice/notes` → `/home/alice/notes.git`; its `.git` folder counts as it).
    static func bareSibling(of path: String) -> String {
        let worktree = path.hasSuffix("/.git") ? String(path.dropLast("/.git".count)) : path
        return worktree + ".git"
    }

    /// The next step when documents are in conflict: how to resolve them, naming the document
    /// when there is one.
    static func afterConflicts(_ documents: [DocumentPath]) -> String {
        // Runnable as written: one strategy in the command, the others named after it.
        let strategy = "--strategy merge"
        let others = " (or --strategy latest-date, or choose)"
        if documents.count == 1, let document = documents.first {
            return "resolve with: docver resolve \(Terminal.shellWord(document.path)) \(strategy)\(others)"
        }
        guard let first = documents.first.map({ Terminal.shellWord($0.path) }) else {
            return "resolve with: docver resolve --all \(strategy)\(others)"
        }
        return "resolve each with: docver resolve \(first) \(strategy), or all at once: docver resolve --all \(strategy)\(others)"
    }

    /// The next step after a sync, integration or clone brought conflicts.
    static func afterArrivedConflicts(_ documents: [DocumentPath]) -> String {
        let names = documents.count == 1 ? Terminal.shellWord(documents[0].path) : ""
        return "see the versions with 'docver conflicts\(names.isEmpty ? "" : " " + names)', then " + afterConflicts(documents)
    }

    /// The next steps after `resolve --strategy merge --markers` saved a merge with conflict
    /// markers: the conflict stays open until the user edits the markers away, saves and
    /// marks it resolved (mark-resolved refuses while markers remain).
    static func afterMarkers(in document: DocumentPath) -> String {
        let name = Terminal.shellWord(document.path)
        return "edit \(document.path) to remove the conflict markers, then run: docver save \(name) && docver mark-resolved \(name)"
    }
}
