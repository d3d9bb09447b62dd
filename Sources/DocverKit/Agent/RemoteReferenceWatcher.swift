import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Watches, with inotify, the device branches of the remotes that are repositories on this
/// machine (a bare repository in another folder, one on a mounted share): their
/// `refs/heads/docver/` folder and the folders below it, and `packed-refs`. When another
/// device pushes there, the agent syncs at once instead of at its next poll, so a document
/// reaches the other devices in about a second, not in up to a poll interval.
///
/// Network remotes, and shares whose changes the kernel does not report (NFS, SMB written
/// from another machine), are still found by the poll, which stays for every remote as the
/// fallback. Used from one thread (the agent's loop).
final class RemoteReferenceWatcher {
    private let inotify: Inotify
    /// This device's own branch, relative to a git directory: its own pushes are not news.
    private let ownBranch: String
    /// Watches and the folder they stand for: the git directory, and the folder inside it
    /// ("" for the git directory itself, else "refs/heads" or a folder below).
    private var folders: [Int32: (gitDirectory: String, folder: String)] = [:]
    /// The remotes by git directory (two names may share one repository).
    private var remotes: [String: Set<String>] = [:]

    init(ownBranch: String) throws {
        self.ownBranch = ownBranch
        inotify = try DocverError.wrapping { try Inotify() }
    }

    /// The inotify descriptor, for the loop's wait.
    var descriptor: Int32 { inotify.rawDescriptor }

    /// The remotes watched now.
    var watchedRemotes: Set<String> { remotes.values.reduce(into: []) { $0.formUnion($1) } }

    /// The git directory of the repository at `path` on this machine: `path/.git` for one
    /// with a working tree, `path` for a bare one; nil when neither holds a repository.
    static func gitDirectory(at path: String) -> String? {
        for candidate in [path + "/.git", path] {
            if FileStat(path: candidate + "/refs")?.isDirectory == true, FileStat(path: candidate + "/HEAD") != nil {
                return candidate
            }
        }
        return nil
    }

    /// Watches exactly `gitDirectories` (remote name → git directory), called before each
    /// sync with the remotes read afresh: watches are added for new remotes and for folders
    /// created since (a repository moved back into place, say), and removed for the rest.
    /// Throws ``AgentError/watchLimitReached(path:limit:)`` when the kernel refuses a watch
    /// (the poll still finds the changes).
    func watch(_ gitDirectories: [String: String]) throws {
        var wanted: [String: Set<String>] = [:]
        for (name, directory) in gitDirectories { wanted[directory, default: []].insert(name) }
        var kept: [Int32: (gitDirectory: String, folder: String)] = [:]
        for directory in wanted.keys.sorted() {
            try add(directory, "", to: &kept)
            try add(directory, "refs/heads", to: &kept)
            var queue = ["refs/heads/docver"]
            while let folder = queue.popLast() {
                guard try add(directory, folder, to: &kept),
                    let names = try? FileSystem.contentsOfDirectory(directory + "/" + folder)
                else { continue }
                for name in names {
                    if let stat = FileStat(path: directory + "/" + folder + "/" + name), stat.isDirectory, !stat.isSymbolicLink {
                        queue.append(folder + "/" + name)
                    }
                }
            }
        }
        for watch in folders.keys where kept[watch] == nil { inotify.removeWatch(watch) }
        folders = kept
        remotes = wanted
    }

    /// Adds the watch of `folder` in `directory` to `list`; false when it is not there.
    @discardableResult
    private func add(
        _ directory: String, _ folder: String,
        to list: inout [Int32: (gitDirectory: String, folder: String)]
    ) throws -> Bool {
        let path = folder.isEmpty ? directory : directory + "/" + folder
        switch try DocverError.wrapping({ try inotify.addWatch(path) }) {
        case let .watching(watch):
            list[watch] = (directory, folder)
            return true
        case .vanished: return false
        case .limitReached: throw AgentError.watchLimitReached(path: path, limit: Inotify.userWatchLimit)
        }
    }

    /// The remotes where another device's branch may have moved since the last call (never
    /// blocks). Lock files being written are not moves: the rename that ends an update is.
    func movedRemotes() throws -> Set<String> {
        var moved: Set<String> = []
        var newFolders = false
        for event in inotify.readEvents() {
            if event.has(UInt32(IN_Q_OVERFLOW)) {
                moved = watchedRemotes  // events were lost: anything may have moved
                newFolders = true
                continue
            }
            if event.has(UInt32(IN_IGNORED)) {
                folders[event.watch] = nil
                continue
            }
            guard let (directory, folder) = folders[event.watch], !event.name.isEmpty else { continue }
            let names = remotes[directory] ?? []
            let path = folder.isEmpty ? event.name : folder + "/" + event.name
            if folder.isEmpty {
                if event.name == "packed-refs" { moved.formUnion(names) }
                continue
            }
            guard path.hasPrefix("refs/heads/docver/") || path == "refs/heads/docver" else { continue }
            if event.has(UInt32(IN_ISDIR)) {
                if event.has(UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) { newFolders = true }
                moved.formUnion(names)
            } else if !event.name.hasSuffix(".lock"), path != ownBranch {
                moved.formUnion(names)
            }
        }
        if newFolders {
            // Watch the new folders; a branch written in one before its watch is found by the sync.
            var current: [String: String] = [:]
            for (directory, names) in remotes { for name in names { current[name] = directory } }
            try watch(current)
        }
        return moved
    }
}
