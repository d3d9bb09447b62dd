import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The running agent's claim on its container: `.git/docver/agent.pid`, holding the agent's
/// process id, with an exclusive `flock` held for as long as the agent runs.
///
/// The kernel drops the lock when the process dies, however it dies, so a pid file nobody
/// holds is stale and is simply taken over; a second agent finds the lock held and learns the
/// running one's pid from the file.
final class AgentLock {
    private let descriptor: Int32
    let path: String

    /// Takes the lock and writes this process's id; throws ``AgentError/alreadyRunning(pid:)``
    /// when another agent holds it.
    init(path: String) throws {
        self.path = path
        try FileSystem.createDirectory((path as NSString).deletingLastPathComponent)
        descriptor = FileSystem.openLocalFile(path, O_RDWR | O_CREAT)
        guard descriptor >= 0 else { throw SystemError.errno("open the agent's pid file", path) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK, let pid = Self.runningPID(path: path, attempts: 50) {
                throw AgentError.alreadyRunning(pid: pid)
            }
            throw SystemError("lock", path, reason: String(cString: strerror(code)))
        }
        let text = "\(getpid())\n"
        guard ftruncate(descriptor, 0) == 0,
            text.withCString({ pwrite(descriptor, $0, strlen($0), 0) }) == text.utf8.count
        else {
            let error = SystemError.errno("write", path)
            close(descriptor)
            throw error
        }
        fsync(descriptor)
    }

    /// Gives the lock up (the file stays: without its lock it is stale).
    func release() { close(descriptor) }

    /// The pid of the agent holding the lock at `path`, or nil when none does (no file, or a
    /// stale one). `attempts` covers the moment between a new agent's lock and its pid write.
    static func runningPID(path: String, attempts: Int = 20) -> Int32? {
        let descriptor = FileSystem.openLocalFile(path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        for attempt in 0..<attempts {
            if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
                flock(descriptor, LOCK_UN)
                return nil
            }
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(descriptor, &buffer, buffer.count, 0)
            if count > 0,
                let pid = Int32(
                    String(decoding: buffer[..<count], as: UTF8.self)
                        .trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
            {
                return pid
            }
            if attempt < attempts - 1 { usleep(2000) }
        }
        return nil
    }
}
