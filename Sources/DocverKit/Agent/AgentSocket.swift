import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// The agent's Unix socket (.git/docver/agent.sock, mode 0600): a client connects, writes one
// request line, reads the answer, and the agent closes the connection. Requests: `status`
// (answer: ``AgentStatus``, one JSON line), `container-status <head>` (one JSON line),
// `documents <references>` and `conflicts <head>` (tab-separated lines, ``ListingText``), and
// `subscribe`, which keeps the connection: one line `{"subscribed":true}`, then one line per
// event until the agent stops. docs/AGENT.md documents them. A first line that is a JSON
// object is a JSON-RPC request: the connection speaks `docver serve`'s protocol from then on
// (``ProtocolSession``, docs/PROTOCOL.md).

/// What the server does with a request.
enum AgentSocketAnswer {
    /// Answer this line and close.
    case line(Data)
    /// Keep the connection for ``AgentSubscribers``.
    case subscribe
    /// A JSON-RPC request (docs/PROTOCOL.md): the connection becomes a protocol session.
    case session
}

/// The connections of clients that asked to hear of every change (`subscribe`). Lines are
/// sent without blocking: a subscriber too slow to read its socket buffer is dropped (it
/// sees the end of the stream and falls back on polling), never waited for.
/// Sendable: the descriptors live inside a `Mutex`.
final class AgentSubscribers: Sendable {
    /// More subscribers than this are refused (each holds a descriptor of the agent's).
    static let limit = 256
    /// `POLLRDHUP` (Linux; Glibc's module does not export it): the peer closed its end.
    private static let peerHungUp: Int16 = 0x2000
    private let descriptors = Mutex<[Int32]>([])

    /// The subscribers still connected (those that hung up are dropped first).
    var count: Int {
        descriptors.withLock { list in
            list.removeAll { client in
                var entry = pollfd(fd: client, events: Self.peerHungUp, revents: 0)
                guard poll(&entry, 1, 0) > 0, entry.revents & (Self.peerHungUp | Int16(POLLHUP | POLLERR)) != 0 else { return false }
                Glibc.close(client)
                return true
            }
            return list.count
        }
    }

    /// Takes over `client` (answers it, and closes it when refused or dropped).
    func add(_ client: Int32) {
        var accepted = false
        descriptors.withLock { list in
            guard list.count < Self.limit else { return }
            let flags = fcntl(client, F_GETFL)
            _ = fcntl(client, F_SETFL, flags | O_NONBLOCK)
            if Self.send(#"{"subscribed":true}"#, to: client) {
                list.append(client)
                accepted = true
            }
        }
        if !accepted { Glibc.close(client) }
    }

    /// Sends `line` to every subscriber, dropping those that cannot take it.
    func broadcast(_ line: String) {
        descriptors.withLock { list in
            list.removeAll { client in
                guard !Self.send(line, to: client) else { return false }
                Glibc.close(client)
                return true
            }
        }
    }

    /// Ends every subscription (the agent stops).
    func closeAll() {
        descriptors.withLock { list in
            for client in list {
                shutdown(client, Int32(SHUT_RDWR))
                Glibc.close(client)
            }
            list.removeAll()
        }
    }

    private static func send(_ line: String, to client: Int32) -> Bool {
        let bytes = Array((line + "\n").utf8)
        return Glibc.send(client, bytes, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) == bytes.count
    }
}

/// The listening side, served by a thread of its own.
final class AgentSocketServer: Sendable {
    private let descriptor: Int32
    let path: String

    /// Binds the socket at `path` (a stale socket file there is replaced: the caller holds the
    /// agent lock, so no live agent owns it) and starts answering with `answer`.
    init(path: String, subscribers: AgentSubscribers, answer: @escaping @Sendable (String) -> AgentSocketAnswer,
         session: @escaping @Sendable (_ client: Int32, _ first: String, _ rest: Data) -> Void) throws {
        self.path = path
        let folder = try ShortPath(path)
        var address = try Self.address(folder.path)
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemError.errno("create a socket", path) }
        unlink(folder.path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        // The default umask already keeps others from connecting (no write permission); chmod
        // closes the socket to everyone but its owner before it listens.
        guard bound == 0, chmod(folder.path, 0o600) == 0, listen(descriptor, 16) == 0 else {
            let error = SystemError.errno("listen on", path)
            Glibc.close(descriptor)
            unlink(folder.path)
            throw error
        }
        let listening = descriptor
        // Each client is served on a thread of its own (a dispatch queue would run only as
        // many at once as there are cores): one that sends nothing, or reads a large answer
        // slowly, holds up nobody else. Beyond `maximumClients` at once, clients wait their turn.
        let serving = Atomic<Int>(0)
        let thread = Thread {
            while true {
                let client = accept(listening, nil, nil)
                if client < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return // shut down
                }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                guard serving.add(1, ordering: .sequentiallyConsistent).newValue <= Self.maximumClients else {
                    // Answered here, on the listening thread: a session, which lasts, is refused.
                    Self.serve(client, subscribers: subscribers, answer: answer, session: nil)
                    serving.subtract(1, ordering: .sequentiallyConsistent)
                    continue
                }
                let worker = Thread {
                    Self.serve(client, subscribers: subscribers, answer: answer, session: session)
                    serving.subtract(1, ordering: .sequentiallyConsistent)
                }
                worker.name = "docver agent client"
                worker.start()
            }
        }
        thread.name = "docver agent socket"
        thread.start()
    }

    /// Closes a client's connection unanswered.
    static func close(_ client: Int32) {
        Glibc.close(client)
    }

    /// Stops answering and removes the socket file.
    func close() {
        unlink(path)
        shutdown(descriptor, Int32(SHUT_RDWR))
        Glibc.close(descriptor)
    }

    /// Clients served at once, each on its thread.
    static let maximumClients = 32
    /// How long a client has to send its request line (clients send it at once).
    static let requestTimeout = 100
    /// How long a client may pause while reading its answer before the agent gives up on it.
    static let answerTimeout = 1000

    private static func serve(_ client: Int32, subscribers: AgentSubscribers, answer: (String) -> AgentSocketAnswer,
                              session: ((Int32, String, Data) -> Void)?) {
        setTimeout(client, milliseconds: requestTimeout)
        guard let (request, rest) = readFirstLine(client) else {
            Glibc.close(client)
            return
        }
        var data: Data
        switch answer(request) {
        case .subscribe:
            subscribers.add(client)
            return
        case .session:
            if let session { return session(client, request, rest) }
            data = Data(#"{"error":{"code":-32603,"message":"the agent serves too many clients at once; try again"},"id":null,"jsonrpc":"2.0"}"#.utf8)
        case let .line(line):
            data = line
        }
        defer { Glibc.close(client) }
        setTimeout(client, milliseconds: answerTimeout)
        data.append(0x0A)
        // Large answers (the documents of a big container) take several sends.
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = send(client, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return }
                offset += sent
            }
        }
    }

    static func address(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw AgentError.socketPathTooLong(path) }
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

/// The client side: one request, one answer.
enum AgentSocketClient {
    /// How long a process takes an agent that did not answer for gone: its later requests
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
    static func request(_ request: String, path: String, timeout milliseconds: Int, limit: Int? = nil,
                        rememberingSilence: Bool = false) -> String? {
        if rememberingSilence, isRememberedSilent(path) { return nil }
        // connect(2) follows links: only the agent's own socket is asked, never a link in its place.
        guard FileStat(path: path)?.isSocket == true else { return nil }
        guard let short = try? ShortPath(path), var address = try? AgentSocketServer.address(short.path) else { return nil }
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
        AgentSocketServer.setTimeout(descriptor, milliseconds: milliseconds)
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
        guard data.last == 0x0A else { return nil } // cut short
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
        guard self.path.utf8.count < 100 else { throw AgentError.socketPathTooLong(path) }
    }

    deinit { if folder >= 0 { close(folder) } }
}
