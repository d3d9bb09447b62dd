import Foundation

/// An exclusive advisory lock on a file (flock), released by ``unlock()`` or when the
/// process ends — a killed holder never leaves a stale lock behind.
final class FileLock {
    private let descriptor: Int32

    /// Blocks until the lock on `path` is held; creates the file and its folder if needed.
    init(path: String) throws(SystemError) {
        try FileSystem.createDirectory((path as NSString).deletingLastPathComponent)
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .errno("open the lock file", path) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let error = SystemError.errno("lock", path)
                close(descriptor)
                throw error
            }
        }
    }

    func unlock() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
