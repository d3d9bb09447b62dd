import Foundation

/// git's lock files (`index.lock`, `refs/heads/….lock`) record no owner: a process killed while
/// holding one leaves it behind, and every later writer then fails or waits in vain.
///
/// A lock file is taken as stale when no process has it open and it is still there, still
/// unopened, after a grace period: git and libgit2 keep a lock file open while they write it and
/// rename it a moment after closing it, so a live holder is either seen in `/proc` or gone
/// before the grace period ends.
enum StaleLock {
    /// How long a lock file must stay unopened to be taken as stale.
    static let gracePeriod: Duration = .milliseconds(800)

    /// Removes `path` if it is a stale lock file. Returns true when it removed one.
    static func removeIfStale(_ path: String) -> Bool {
        guard FileStat(path: path) != nil else { return false }
        let clock = ContinuousClock()
        let deadline = clock.now + gracePeriod
        while true {
            guard FileStat(path: path) != nil else { return false }  // its holder finished
            if isOpen(path) { return false }
            if clock.now >= deadline { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return unlink(path) == 0
    }

    /// True when some process (as far as this user can see) has the file open.
    ///
    /// Processes of other users are not visible; a lock file in a repository is written by the
    /// repository's owner, whose processes are.
    static func isOpen(_ path: String) -> Bool {
        let target = FileSystem.realPath(path) ?? path
        guard let processes = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return false }
        for process in processes where process.first?.isNumber == true {
            let folder = "/proc/" + process + "/fd"
            guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for descriptor in descriptors {
                if let linked = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + descriptor),
                    linked == target || linked == path
                {
                    return true
                }
            }
        }
        return false
    }
}
