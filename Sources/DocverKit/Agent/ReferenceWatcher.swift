import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Watches a container's references with inotify: `.git/refs` and every folder below it
/// (folders created later get their watch as they appear), and `packed-refs` and `HEAD` in
/// `.git` itself. Every docver save, sync and resolution moves a reference, and so does a
/// plain git commit or fetch: the agent tells its subscribers (live queries, editors) when
/// one moved, so they need not poll.
///
/// An instance of its own, apart from the working tree's ``TreeWatcher``: events in `.git`
/// (git rewriting its index, say) must not delay the status the agent serves. Used from one
/// thread (the agent's loop).
final class ReferenceWatcher {
    private let gitDirectory: String
    private let inotify: Inotify
    /// Watches and the folders (absolute) they stand for.
    private var folders: [Int32: String] = [:]
    private var top: Int32 = -1

    init(gitDirectory: String) throws {
        self.gitDirectory = gitDirectory.hasSuffix("/") ? String(gitDirectory.dropLast()) : gitDirectory
        inotify = try DocverError.wrapping { try Inotify() }
    }

    /// The inotify descriptor, for the loop's wait.
    var descriptor: Int32 { inotify.rawDescriptor }

    /// Sleeps until a reference may have moved, `timeout` passes (nil: forever) or `pipe` is
    /// woken (`docver serve`'s observer waits here on a thread of its own).
    func wait(timeout: Duration?, waking pipe: WakePipe) {
        inotify.wait(timeout: timeout, waking: pipe)
    }

    /// Watches `.git` and `.git/refs` with the folders below. A watch the kernel refuses (the
    /// watch limit) is reported by the caller as a warning: subscribers then fall back on
    /// their own polling when the agent says it cannot watch.
    func start() throws {
        switch try DocverError.wrapping({ try inotify.addWatch(gitDirectory) }) {
        case let .watching(watch): top = watch
        case .vanished: break
        case .limitReached: throw AgentError.watchLimitReached(path: gitDirectory, limit: Inotify.userWatchLimit)
        }
        try watchTree(gitDirectory + "/refs")
    }

    /// True when a reference may have moved since the last call (never blocks). Lock files
    /// being written are not moves: the rename that ends an update is.
    func referencesMoved() throws -> Bool {
        var moved = false
        for event in inotify.readEvents() {
            if event.has(UInt32(IN_Q_OVERFLOW)) {
                moved = true  // events were lost: anything may have moved
                try watchTree(gitDirectory + "/refs")
                continue
            }
            if event.has(UInt32(IN_IGNORED)) {
                folders[event.watch] = nil
                continue
            }
            if event.watch == top {
                if event.name == "packed-refs" || event.name == "HEAD" { moved = true }
                continue
            }
            guard let folder = folders[event.watch], !event.name.isEmpty else { continue }
            if event.has(UInt32(IN_ISDIR)) {
                if event.has(UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) {
                    try watchTree(folder + "/" + event.name)
                    moved = true
                } else if event.has(UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM)) {
                    moved = true
                }
            } else if !event.name.hasSuffix(".lock") {
                moved = true
            }
        }
        return moved
    }

    private func watchTree(_ path: String) throws {
        var queue = [path]
        while let folder = queue.popLast() {
            switch try DocverError.wrapping({ try inotify.addWatch(folder) }) {
            case let .watching(watch): folders[watch] = folder
            case .vanished: continue
            case .limitReached: throw AgentError.watchLimitReached(path: folder, limit: Inotify.userWatchLimit)
            }
            guard let names = try? FileSystem.contentsOfDirectory(folder) else { continue }
            for name in names {
                if let stat = FileStat(path: folder + "/" + name), stat.isDirectory, !stat.isSymbolicLink {
                    queue.append(folder + "/" + name)
                }
            }
        }
    }
}
