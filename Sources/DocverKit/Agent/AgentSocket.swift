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
    init(
        path: String, subscribers: AgentSubscribers, answer: @escaping @Sendable (String) -> AgentSocketAnswer,
        session: @escaping @Sendable (_ client: Int32, _ first: String, _ rest: Data) -> Void
    ) throws {
        self.path = path
        let folder: ShortPath
        var address: sockaddr_un
        do {
            folder = try ShortPath(path)
            address = try UnixSocket.address(folder.path)
        } catch is SocketPathTooLong {
            throw AgentError.socketPathTooLong(path)
        }
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
                    return  // shut down
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

    private static func serve(
        _ client: Int32, subscribers: AgentSubscribers, answer: (String) -> AgentSocketAnswer,
        session: ((Int32, String, Data) -> Void)?
    ) {
        UnixSocket.setTimeout(client, milliseconds: requestTimeout)
        guard let (request, rest) = UnixSocket.readFirstLine(client) else {
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
        UnixSocket.setTimeout(client, milliseconds: answerTimeout)
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
}
