import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A client's subscription to the running agent's change notices (`subscribe` on its socket):
/// a line arrives each time one of the container's references may have moved, whoever moved
/// it (the agent, a CLI command, plain git). The line's contents do not matter; the reader
/// asks the container what changed.
///
/// Sendable: the descriptor lives inside a `Mutex`; the reading thread closes it, and
/// ``cancel()`` only shuts it down, under the same lock, so a closed descriptor number is
/// never touched again.
final class AgentSubscription: Sendable {
    /// The open descriptor, nil once the reading thread closed it.
    private final class Connection: Sendable {
        let descriptor: Mutex<Int32?>
        init(_ descriptor: Int32) { self.descriptor = Mutex(descriptor) }

        func shutDown() {
            descriptor.withLock { open in if let open { shutdown(open, Int32(SHUT_RDWR)) } }
        }

        func close() {
            descriptor.withLock { open in
                if let open { Glibc.close(open) }
                open = nil
            }
        }
    }

    private let connection: Connection
    /// One element per notice, newest kept: a reader that falls behind sees one, not a backlog.
    let notices: AsyncStream<Void>

    /// Subscribes to the agent of the container whose socket is at `path`; nil when no
    /// agent answers within `timeout` milliseconds. Blocks: call it off the cooperative pool.
    static func open(path: String, timeout milliseconds: Int = 200) -> AgentSubscription? {
        guard FileStat(path: path)?.isSocket == true,
            let short = try? ShortPath(path), var address = try? UnixSocket.address(short.path)
        else { return nil }
        let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard client >= 0 else { return nil }
        UnixSocket.setTimeout(client, milliseconds: milliseconds)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        let request = Array("subscribe\n".utf8)
        guard connected == 0, send(client, request, request.count, Int32(MSG_NOSIGNAL)) == request.count,
            UnixSocket.readLine(client, limit: 256) == #"{"subscribed":true}"#
        else {
            close(client)
            return nil
        }
        UnixSocket.setTimeout(client, milliseconds: 0)  // from now on, wait as long as the agent runs
        return AgentSubscription(client)
    }

    private init(_ client: Int32) {
        let connection = Connection(client)
        self.connection = connection
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        notices = stream
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(client, &buffer, buffer.count, 0)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }  // the agent stopped or died, or the subscription was cancelled
                if buffer[..<count].contains(0x0A) { continuation.yield(()) }
            }
            connection.close()
            continuation.finish()
        }
        thread.name = "docver agent subscription"
        thread.start()
        continuation.onTermination = { _ in connection.shutDown() }
    }

    /// Ends the subscription: ``notices`` finishes.
    func cancel() { connection.shutDown() }
}

extension Container {
    /// Yields each time the container's references may have moved (a save, a sync, a
    /// resolution, here or in another process): at once when the container's agent runs
    /// (through its subscription), else after each `pollInterval` on `clock`. While no
    /// agent runs, each poll also tries to subscribe again. A yield is a prompt to look, not
    /// a promise that something changed. Ends when the consumer stops iterating.
    func referenceChanges(pollInterval: Duration, clock: any Clock<Duration>) -> AsyncStream<Void> {
        let socket = files.agentSocket
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            while !Task.isCancelled {
                let subscription =
                    FileStat(path: socket) == nil
                    ? nil
                    : try? await offCooperativePool { AgentSubscription.open(path: socket) }
                if let subscription {
                    // What moved before the subscription began is looked for once.
                    continuation.yield(())
                    for await _ in subscription.notices { continuation.yield(()) }
                    subscription.cancel()
                    // The agent stopped (or this task was cancelled): look once, then poll.
                    if Task.isCancelled { break }
                    continuation.yield(())
                }
                do { try await clock.sleep(for: pollInterval) } catch { break }
                continuation.yield(())
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
