import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension Agent {
    /// Lets editors speak `docver serve`'s protocol on the agent's socket (docs/PROTOCOL.md,
    /// "On the agent's socket"), several at once, each connection a session of its own;
    /// `initialize` tells them `version`. `docver agent` calls it before ``run(onEvent:)``;
    /// without it, such connections are closed.
    public func serveEditors(version: String) {
        let container = container
        sessionHandler.withLock {
            $0 = { client, first, rest in
                ProtocolSession.run(client: client, first: first, rest: rest, container: container, serverVersion: version)
            }
        }
    }
}

/// `docver serve`'s protocol on a connection of the agent's socket (docs/PROTOCOL.md, "On the
/// agent's socket"): the same messages, one JSON object per line, for as long as the client
/// keeps the connection, so several editors share one agent instead of each running a server.
enum ProtocolSession {
    /// How long a line to the client may wait to go out before the client is dropped (as a
    /// subscriber too slow to read is): a client that stops reading holds up nobody.
    static let sendTimeout = 1000

    /// Serves the connection `client` on the calling thread (the connection's own) until the
    /// client hangs up or is answered `shutdown`, then closes it. `first` is the line already
    /// read, `rest` what came after it.
    static func run(client: Int32, first: String, rest: Data, container: Container, serverVersion: String) {
        let connection = Connection(descriptor: client)
        defer { connection.close() }
        // Reads wait as long as the client is quiet; sends give up after `sendTimeout`.
        var noTimeout = timeval(tv_sec: 0, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &noTimeout, socklen_t(MemoryLayout<timeval>.size))
        var sendLimit = timeval(tv_sec: sendTimeout / 1000, tv_usec: (sendTimeout % 1000) * 1000)
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &sendLimit, socklen_t(MemoryLayout<timeval>.size))
        let server = ProtocolServer(
            container: container, serverVersion: serverVersion, output: { connection.send($0 + "\n") },
            outputPart: { connection.send($0) })
        defer { server.stop() }
        var reader = LineReader(descriptor: client, pending: rest)
        var line: String? = first
        while let current = line {
            if current.contains(where: { !$0.isWhitespace }) {
                let data = Data(current.utf8)
                guard waiting({ await server.handle(data) }) else { return }
            }
            line = reader.next()
        }
    }

    /// Runs `body` on the cooperative pool and waits for it on this thread, which is the
    /// connection's own (never a thread of the pool).
    private static func waiting(_ body: @escaping @Sendable () async -> Bool) -> Bool {
        final class Outcome: Sendable {
            let value = Mutex(false)
            let done = DispatchSemaphore(value: 0)
        }
        let outcome = Outcome()
        Task {
            let value = await body()
            outcome.value.withLock { $0 = value }
            outcome.done.signal()
        }
        outcome.done.wait()
        return outcome.value.withLock { $0 }
    }

    /// The client's socket. Sendable: the descriptor never changes, and `send` on a socket is
    /// safe from any thread; the server writes one line at a time.
    final class Connection: Sendable {
        let descriptor: Int32
        private let closed = Atomic<Bool>(false)

        init(descriptor: Int32) { self.descriptor = descriptor }

        /// Writes `text` whole (a line, or a part of one, with its newline when it ends one).
        func send(_ text: String) {
            let data = Array(text.utf8)
            var offset = 0
            while offset < data.count, !closed.load(ordering: .sequentiallyConsistent) {
                let sent = data.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else {
                    // Gone, or not reading: drop it; its reads end at once.
                    shutdown(descriptor, Int32(SHUT_RDWR))
                    return
                }
                offset += sent
            }
        }

        func close() {
            guard !closed.exchange(true, ordering: .sequentiallyConsistent) else { return }
            Glibc.close(descriptor)
        }
    }

    /// The lines a client sends, read as they come.
    struct LineReader {
        let descriptor: Int32
        var pending: Data
        /// A line longer than this ends the session (64 MiB: far beyond any request).
        static let limit = 64 << 20

        /// The next line without its newline; nil when the client hung up.
        mutating func next() -> String? {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                if let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = Data(pending[(newline + 1)...])
                    return line
                }
                guard pending.count < Self.limit else { return nil }
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return nil }
                pending.append(contentsOf: buffer[..<count])
            }
        }
    }
}
