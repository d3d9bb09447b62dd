import Foundation

/// An exclusive advisory lock on a file (flock), released by ``unlock()`` or when the
/// process ends — a killed holder never leaves a stale lock behind.
final class FileLock {
    private let descriptor: Int32

    /// Blocks until the lock on `path` is held; creates the file and its folder if needed.
    init(path: String) throws(SystemError) {
        try FileSystem.createDirectory((path as NSString).deletingLastPathComponent)
        descriptor = FileSystem.openLocalFile(path, O_RDWR | O_CREAT)
        guard descriptor >= 0 else { throw .errno("open the lock file", path) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let error = SystemError.errno("lock", path)
                close(descriptor)
                throw error
            }
        }
    }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// The lock on `path` if no one holds it now; nil when another process does (or the
    /// file cannot be opened). Never blocks.
    static func ifFree(path: String) -> FileLock? {
        guard (try? FileSystem.createDirectory((path as NSString).deletingLastPathComponent)) != nil else { return nil }
        let descriptor = FileSystem.openLocalFile(path, O_RDWR | O_CREAT)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return FileLock(descriptor: descriptor)
    }

    func unlock() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
