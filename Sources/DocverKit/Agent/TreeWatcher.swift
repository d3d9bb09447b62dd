import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Watches a whole working tree with inotify: every folder gets a watch (inotify is not
/// recursive), folders created or moved in later get theirs as they appear, and `.git` is
/// left out.
///
/// It reports paths, not documents: the agent decides which document a path belongs to and
/// drops ignored ones. Ignored files are watched too, because `docver status` lists them:
/// the status the agent serves must hear of every change.
/// Used from one thread (the agent's loop).
final class TreeWatcher {
    /// Something changed in the working tree.
    enum Change: Equatable {
        /// A file (or a link) at this path was created, written, removed or renamed.
        case file(String)
        /// A folder at this path appeared, vanished or was renamed: everything under it may have changed.
        case folder(String)
        /// The kernel dropped events (its queue overflowed): only a full scan can tell what changed.
        case overflow
    }

    let root: String
    private let inotify: Inotify
    /// Watches and the folders (relative to the root, "" for the root) they stand for.
    private var folders: [Int32: String] = [:]
    /// Keyed by bytes: two spellings of one folder name (NFC and NFD) are two folders.
    private var watches: [ByteString: Int32] = [:]
    /// A lower limit than the kernel's, to exercise the watch-limit path in tests.
    private let maximumWatches: Int?

    /// The number of folders watched.
    var watchCount: Int { watches.count }

    init(root: String, maximumWatches: Int? = nil) throws {
        self.root = root
        self.maximumWatches = maximumWatches
        inotify = try Inotify()
    }

    /// True when events wait to be read (never blocks; safe from any thread while the
    /// watcher lives).
    var hasPendingEvents: Bool { inotify.hasPendingEvents }

    /// The inotify descriptor, for a pending-events check from another thread.
    var descriptor: Int32 { inotify.rawDescriptor }

    /// Watches the root and every folder below it. Throws ``AgentError/watchLimitReached(path:limit:)``
    /// when the kernel (or `maximumWatches`) allows no more watches.
    func start() throws {
        _ = try watchTree("")
    }

    /// Sleeps until something happens in the tree, `timeout` passes or `pipe` is woken.
    /// `others`: more descriptors to wake for (the ``ReferenceWatcher``'s).
    func wait(timeout: Duration?, waking pipe: WakePipe, others: [Int32] = []) {
        inotify.wait(timeout: timeout, waking: pipe, others: others)
    }

    /// The changes since the last call (never blocks). New folders are watched before this
    /// returns, and the files already inside them are reported, so nothing written into a
    /// fresh folder before its watch existed is missed.
    func changes() throws -> [Change] {
        var result: [Change] = []
        for event in inotify.readEvents() {
            if event.has(UInt32(IN_Q_OVERFLOW)) {
                result.append(.overflow)
                // Events were lost, folders created meanwhile too: watch whatever is there now.
                _ = try watchTree("")
                continue
            }
            if event.has(UInt32(IN_IGNORED)) {
                forget(watch: event.watch)
                continue
            }
            guard let folder = folders[event.watch] else { continue }
            if event.name.isEmpty {
                // The watched folder itself was deleted or moved; its parent reports it by name.
                if event.has(UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)), folder.isEmpty {
                    result.append(.folder(""))
                }
                continue
            }
            let path = folder.isEmpty ? event.name : folder + "/" + event.name
            guard !isExcluded(path) else { continue }
            if event.has(UInt32(IN_ISDIR)) {
                if event.has(UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) {
                    result.append(.folder(path))
                    result += try watchTree(path).map { Change.file($0) }
                } else if event.has(UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM)) {
                    forgetTree(path)
                    result.append(.folder(path))
                } else {
                    continue
                }
            } else {
                result.append(.file(path))
            }
        }
        return result
    }

    /// True for paths never watched nor reported: `.git` at the top.
    private func isExcluded(_ path: String) -> Bool {
        path == ".git" || path.bytesHavePrefix(".git/")
    }

    /// Watches the folder at `relative` and every folder below it; returns the files found
    /// (relative paths), which may have been written before the watch existed.
    private func watchTree(_ relative: String) throws -> [String] {
        var files: [String] = []
        var queue = [relative]
        while let folder = queue.popLast() {
            let full = folder.isEmpty ? root : root + "/" + folder
            if watches[ByteString(folder)] == nil {
                if let maximumWatches, watches.count >= maximumWatches {
                    throw AgentError.watchLimitReached(path: full, limit: maximumWatches)
                }
                switch try inotify.addWatch(full) {
                case let .watching(watch):
                    if let previous = folders[watch], !previous.bytesEqual(folder) { watches[ByteString(previous)] = nil }
                    folders[watch] = folder
                    watches[ByteString(folder)] = watch
                case .vanished:
                    continue
                case .limitReached:
                    throw AgentError.watchLimitReached(path: full, limit: Inotify.userWatchLimit)
                }
            }
            guard let names = try? FileSystem.contentsOfDirectory(full) else { continue }
            for name in names {
                let path = folder.isEmpty ? name : folder + "/" + name
                guard !isExcluded(path), let stat = FileStat(path: root + "/" + path) else { continue }
                if stat.isDirectory, !stat.isSymbolicLink { queue.append(path) } else { files.append(path) }
            }
        }
        return files
    }

    private func forget(watch: Int32) {
        guard let folder = folders.removeValue(forKey: watch) else { return }
        if watches[ByteString(folder)] == watch { watches[ByteString(folder)] = nil }
    }

    /// Drops the watches of a folder that was moved away or deleted: a moved folder's watches
    /// would otherwise report its files under the old name.
    private func forgetTree(_ relative: String) {
        for (folder, watch) in watches where folder.string.bytesEqual(relative) || folder.string.bytesHavePrefix(relative + "/") {
            inotify.removeWatch(watch)
            watches[folder] = nil
            folders[watch] = nil
        }
    }
}
