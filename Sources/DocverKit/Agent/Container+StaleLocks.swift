import Foundation

extension Container {
    /// The lock files a writer killed at the wrong moment leaves behind: libgit2 and git lock
    /// this device's branch (`<ref>.lock`) and the index (`index.lock`) while they update
    /// them, and a SIGKILL in between leaves the file, which then refuses every later update.
    var writerLockFiles: [String] {
        [gitDirectory + "/" + device.branch + ".lock", gitDirectory + "/index.lock"]
    }

    /// What the agent found about a writer's lock file.
    enum StaleLockCheck: Equatable {
        /// No lock file: writers can go ahead.
        case none
        /// A lock file that may belong to a writer at work: wait.
        case held(String)
        /// A lock file old enough to be stale that a process still has open (a writer that
        /// hangs, or another program): wait, as for ``held(_:)``, and let the user know.
        case heldOpen(String)
        /// A lock file nobody could be using, now removed.
        case removed(String)
    }

    /// Removes a branch or index lock file that is older than `age` and that no process holds
    /// open (Linux: `/proc/*/fd`), so an agent killed mid-update cannot block later saves.
    /// A younger lock is reported as held, an old one still open as held open. Call it
    /// holding nothing: a writer of this container that runs now takes the lock files afresh.
    func removeStaleWriterLocks(olderThan age: TimeInterval) -> StaleLockCheck {
        var result = StaleLockCheck.none
        for path in writerLockFiles {
            guard let stat = FileStat(path: path) else { continue }
            let modified = Double(stat.mtimeSeconds) + Double(stat.mtimeNanoseconds) / 1e9
            guard Date().timeIntervalSince1970 - modified >= age else { return .held(path) }
            guard !StaleLock.isOpen(path) else { return .heldOpen(path) }
            guard (try? FileSystem.remove(path)) != nil else { return .held(path) }
            result = .removed(path)
        }
        return result
    }
}
