import Foundation
import Glibc
import Synchronization

/// A Unix socket path too long for an address (108 bytes), even through `/proc/self/fd`.
struct SocketPathTooLong: Error {
    let path: String
}

/// Unix stream sockets: addresses, timeouts, reading a line.
enum UnixSocket {
    static func address(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw SocketPathTooLong(path: path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    static func setTimeout(_ descriptor: Int32, milliseconds: Int) {
        var value = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads up to the first newline (or the end); nil on a timeout or error before any line.
    static func readLine(_ descriptor: Int32, limit: Int = 1 << 20) -> String? {
        readFirstLine(descriptor, limit: limit)?.line
    }

    /// The first line and what was read after it (a protocol session's next requests).
    static func readFirstLine(_ descriptor: Int32, limit: Int = 1 << 20) -> (line: String, rest: Data)? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.count < limit {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            data.append(contentsOf: buffer[..<count])
            if let newline = data.firstIndex(of: 0x0A) {
                return (String(decoding: data[..<newline], as: UTF8.self), Data(data[(newline + 1)...]))
            }
        }
        return data.isEmpty ? nil : (String(decoding: data, as: UTF8.self), Data())
    }
}

/// The client side of a Unix socket serving one answer per request line (the agent's).
enum SocketClient {
    /// How long a process takes a server (an agent) that did not answer for gone: its later requests
    /// for served answers do not ask it again meanwhile (one wait per command, not one per
    /// question).
    static let silenceMemory: Duration = .seconds(5)
    /// Sockets whose agent did not answer in time, and when.
    private static let silent = Mutex<[String: ContinuousClock.Instant]>([:])
    /// Connection attempts by socket path (tests count them).
    static let attempts = Mutex<[String: Int]>([:])

    /// True when the agent at `path` did not answer a request of this process lately.
    static func isRememberedSilent(_ path: String) -> Bool {
        silent.withLock { list in
            guard let since = list[path] else { return false }
            if ContinuousClock.now - since < silenceMemory { return true }
            list[path] = nil
            return false
        }
    }

    /// Sends `request` and returns the answer line, or nil when nobody listens at `path` (no
    /// socket, a stale one, or no answer within `timeout`).
    ///
    /// `timeout` bounds connecting, sending and the answer's first bytes together; a long
    /// answer may then take longer while it keeps coming (each pause at most `timeout`).
    /// With `rememberingSilence`, an agent that does not answer in time is remembered
    /// (``silenceMemory``) and not asked again meanwhile: nil at once.
    /// With `limit`, the answer may span lines: everything up to the end of the connection
    /// (at most `limit` bytes, else nil), without its final newline.
    static func request(
        _ request: String, path: String, timeout milliseconds: Int, limit: Int? = nil,
        rememberingSilence: Bool = false
    ) -> String? {
        if rememberingSilence, isRememberedSilent(path) { return nil }
        // connect(2) follows links: only the agent's own socket is asked, never a link in its place.
        guard FileStat(path: path)?.isSocket == true else { return nil }
        guard let short = try? ShortPath(path), var address = try? UnixSocket.address(short.path) else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        attempts.withLock { $0[path, default: 0] += 1 }
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(milliseconds)
        func timedOut() -> String? {
            if rememberingSilence { silent.withLock { $0[path] = clock.now } }
            return nil
        }
        // Connecting waits only when the agent's backlog is full (it does not accept).
        UnixSocket.setTimeout(descriptor, milliseconds: milliseconds)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { return errno == EAGAIN || errno == EWOULDBLOCK ? timedOut() : nil }
        let line = Array((request + "\n").utf8)
        guard send(descriptor, line, line.count, Int32(MSG_NOSIGNAL)) == line.count else { return nil }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            // Until the first bytes: what is left of the budget; then a whole budget per pause.
            let wait = data.isEmpty ? deadline - clock.now : .milliseconds(milliseconds)
            let waitMilliseconds = max(0, Int(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000))
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(waitMilliseconds))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return data.isEmpty ? timedOut() : nil }
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            data.append(contentsOf: buffer[..<count])
            if limit == nil, let newline = data.firstIndex(of: 0x0A) {
                return String(decoding: data[..<newline], as: UTF8.self)
            }
            if let limit, data.count > limit { return nil }
        }
        guard limit != nil else { return data.isEmpty ? nil : String(decoding: data, as: UTF8.self) }
        guard data.last == 0x0A else { return nil }  // cut short
        return String(decoding: data.dropLast(), as: UTF8.self)
    }
}

/// A path short enough for a Unix socket address (108 bytes): the path itself when it fits,
/// else its file name under `/proc/self/fd/N`, N being a descriptor of its folder held open
/// for as long as this value lives (Linux resolves the link in bind and connect).
final class ShortPath {
    let path: String
    private let folder: Int32

    init(_ path: String) throws {
        guard path.utf8.count >= 100 else {
            self.path = path
            folder = -1
            return
        }
        let directory = (path as NSString).deletingLastPathComponent
        folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw SystemError.errno("open", directory) }
        self.path = "/proc/self/fd/\(folder)/" + (path as NSString).lastPathComponent
        guard self.path.utf8.count < 100 else { throw SocketPathTooLong(path: path) }
    }

    deinit { if folder >= 0 { close(folder) } }
}
