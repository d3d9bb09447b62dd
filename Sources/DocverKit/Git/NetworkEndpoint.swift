import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The host and port a network remote's URL names (ssh, scp-like ssh, git, http, https); nil
/// for a local path or `file://` URL. libgit2 1.5.1 has no connect or transfer time-outs, so
/// docver needs the endpoint to bound both itself (``probe(timeout:)``, ``StallWatchdog``).
struct NetworkEndpoint: Equatable, CustomStringConvertible {
    var scheme: String
    var host: String
    var port: UInt16

    init?(url: String) {
        let defaults: [String: UInt16] = ["ssh": 22, "git+ssh": 22, "ssh+git": 22, "git": 9418, "http": 80, "https": 443]
        if let schemeEnd = url.range(of: "://") {
            let scheme = url[..<schemeEnd.lowerBound].lowercased()
            guard let defaultPort = defaults[scheme] else { return nil }
            var authority = String(url[schemeEnd.upperBound...].prefix { $0 != "/" })
            if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
            guard let (host, port) = Self.split(authority, defaultPort: defaultPort) else { return nil }
            self.init(scheme: scheme, host: host, port: port)
        } else {
            // scp-like ssh: [user@]host:path or [user@][ipv6]:path, no slash before the colon.
            var rest = Substring(url)
            if let at = rest.firstIndex(of: "@"), !rest[..<at].contains(where: { $0 == "/" || $0 == ":" }) {
                rest = rest[rest.index(after: at)...]
            }
            let host: String
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].hasPrefix(":") else { return nil }
                host = String(rest[rest.index(after: rest.startIndex)..<close])
            } else {
                guard let colon = rest.firstIndex(of: ":"), !rest[..<colon].contains("/") else { return nil }
                host = String(rest[..<colon])
            }
            guard !host.isEmpty, !host.contains("/") else { return nil }
            self.init(scheme: "ssh", host: host, port: 22)
        }
    }

    init(scheme: String, host: String, port: UInt16) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    private static func split(_ authority: String, defaultPort: UInt16) -> (String, UInt16)? {
        var host = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            if rest.hasPrefix(":") { portText = rest.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { return nil }
        guard let portText, !portText.isEmpty else { return (host, defaultPort) }
        guard let port = UInt16(portText), port > 0 else { return nil }
        return (host, port)
    }

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The addresses the host resolves to (TCP), as socket addresses; nil when the lookup has
    /// not ended within `timeout` seconds (the resolver has no time-out of its own to set).
    func addresses(within timeout: Double) -> [sockaddr_storage]? {
        let endpoint = self
        return waitingAtMost(timeout) { endpoint.addresses().map(SocketAddress.init) }?.map(\.storage)
    }

    /// Carries a socket address from the resolving thread (a C struct of bytes, no pointers).
    private struct SocketAddress: @unchecked Sendable { var storage: sockaddr_storage }

    /// The addresses the host resolves to (TCP), as socket addresses. Blocks as long as the
    /// system's resolver does: ``addresses(within:)`` bounds it.
    private func addresses() -> [sockaddr_storage] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var result: [sockaddr_storage] = []
        var entry = list
        while let current = entry {
            var storage = sockaddr_storage()
            if let address = current.pointee.ai_addr {
                withUnsafeMutableBytes(of: &storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen)))
                }
                result.append(storage)
            }
            entry = current.pointee.ai_next
        }
        return result
    }

    /// Why ``probe(timeout:)`` reached no address: one line naming the endpoint.
    struct Unreachable: Error, Equatable {
        var reason: String
    }

    /// Resolves the host and opens and closes one TCP connection to the endpoint, within
    /// `timeout` seconds for both; returns the addresses the host resolved to (for the
    /// ``StallWatchdog``), or throws why none could be reached. Neither the system's resolver
    /// nor libgit2's own connect has a time-out (the kernel gives up after about two minutes).
    func probe(timeout: Double) throws(Unreachable) -> [sockaddr_storage] {
        let deadline = Date().addingTimeInterval(timeout)
        guard let addresses = addresses(within: timeout) else {
            throw Unreachable(
                reason: "cannot resolve host '\(host)': no answer within \(Self.seconds(timeout)) seconds (docver.network.connectTimeout)")
        }
        guard !addresses.isEmpty else { throw Unreachable(reason: "cannot resolve host '\(host)'") }
        var failure = ""
        for var address in addresses {
            let descriptor = socket(Int32(address.ss_family), Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { failure = String(cString: strerror(errno)); continue }
            defer { close(descriptor) }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            let length = socklen_t(address.ss_family == sa_family_t(AF_INET6) ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
            let started = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
            }
            if started == 0 { return addresses }
            guard errno == EINPROGRESS else { failure = String(cString: strerror(errno)); continue }
            let remaining = max(0, deadline.timeIntervalSinceNow)
            var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&poller, 1, Int32((remaining * 1000).rounded(.up)))
            if ready == 0 {
                throw Unreachable(
                    reason: "cannot connect to \(self): no answer within \(Self.seconds(timeout)) seconds (docver.network.connectTimeout)")
            }
            var code: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &size)
            if ready > 0, code == 0 { return addresses }
            failure = String(cString: strerror(code != 0 ? code : errno))
        }
        throw Unreachable(reason: "cannot connect to \(self): \(failure)")
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// Bounds a transfer libgit2 runs on the calling thread: when neither libgit2's callbacks
/// (``touch()``) nor the TCP connections to the remote's endpoint have shown any progress for
/// `limit` seconds, it shuts those connections down, so libgit2's blocked read or write
/// returns and the transfer fails (``fired`` tells why).
///
/// libgit2 1.5.1 neither exposes its sockets nor has a time-out option, so the watchdog finds
/// them in `/proc/self/fd`: TCP sockets whose peer is one of the endpoint's addresses and port
/// (and sockets opened since the transfer began that are still connecting, with no peer yet).
/// Activity is read from the kernel (`TCP_INFO`: milliseconds since data was last sent and
/// received), so a long transfer that keeps moving is never cut. On systems without `/proc`
/// only the callbacks count and stalled sockets cannot be closed.
final class StallWatchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var lastSign = Date()
    private var stopped = false
    private var didFire = false
    private let done = DispatchSemaphore(value: 0)
    private let limit: Double
    private let peers: [sockaddr_storage]
    private let port: UInt16
    private let baseline: Set<String>

    /// `peers`: the addresses the endpoint's host resolved to when it was probed (resolving
    /// again here would be a second lookup without a time-out).
    init(endpoint: NetworkEndpoint, peers: [sockaddr_storage], limit: Double) {
        self.limit = limit
        port = endpoint.port
        self.peers = peers
        baseline = Set(Self.sockets().map(\.inode))
        let thread = Thread { [self] in run() }
        thread.name = "docver transfer watchdog"
        thread.start()
    }

    /// libgit2 reported progress (any callback).
    func touch() { lock.withLock { lastSign = Date() } }

    /// Whether the watchdog cut the transfer.
    var fired: Bool { lock.withLock { didFire } }

    /// Ends the watch; returns once the watchdog thread no longer touches any socket.
    func stop() {
        lock.withLock { stopped = true }
        done.wait()
    }

    private func run() {
        defer { done.signal() }
        let interval = min(0.25, limit / 4)
        while true {
            let (isStopped, sinceSign, hasFired) = lock.withLock { (stopped, -lastSign.timeIntervalSinceNow, didFire) }
            if isStopped { return }
            var matched: [Int32] = []
            var socketIdle = Double.infinity
            for (descriptor, inode) in Self.sockets() {
                guard let info = Self.tcpInfo(descriptor) else { continue }
                if info.state == 2 /* TCP_SYN_SENT: no peer yet */ {
                    guard !baseline.contains(inode) else { continue }
                    matched.append(descriptor)
                    socketIdle = min(socketIdle, sinceSign)
                } else if isPeer(descriptor) {
                    // Also a connection opened before this transfer: libgit2 keeps an HTTP
                    // connection from the fetch alive for the push.
                    matched.append(descriptor)
                    socketIdle = min(socketIdle, Double(min(info.sinceSent, info.sinceReceived)) / 1000)
                }
            }
            let idle = min(sinceSign, socketIdle)
            if hasFired || idle >= limit {
                lock.withLock { didFire = true }
                // Both directions: a blocked recv() returns 0, a blocked send() EPIPE, and a
                // connect still in progress is aborted.
                for descriptor in matched { shutdown(descriptor, Int32(SHUT_RDWR)) }
            }
            Thread.sleep(forTimeInterval: interval)
        }
    }

    private func isPeer(_ descriptor: Int32) -> Bool {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        }
        guard named == 0 else { return false }
        return peers.contains { Self.sameHost($0, storage) } && Self.port(of: storage) == port
    }

    private static func port(of address: sockaddr_storage) -> UInt16? {
        var copy = address
        switch Int32(address.ss_family) {
        case AF_INET: return withUnsafeBytes(of: &copy) { UInt16(bigEndian: $0.load(fromByteOffset: 2, as: UInt16.self)) }
        case AF_INET6: return withUnsafeBytes(of: &copy) { UInt16(bigEndian: $0.load(fromByteOffset: 2, as: UInt16.self)) }
        default: return nil
        }
    }

    private static func sameHost(_ a: sockaddr_storage, _ b: sockaddr_storage) -> Bool {
        func bytes(_ address: sockaddr_storage) -> [UInt8] {
            var copy = address
            return withUnsafeBytes(of: &copy) { raw in
                switch Int32(address.ss_family) {
                case AF_INET: Array(raw[4..<8])
                case AF_INET6: Array(raw[8..<24])
                default: []
                }
            }
        }
        return a.ss_family == b.ss_family && bytes(a) == bytes(b) && !bytes(a).isEmpty
    }

    /// The process's sockets: descriptor and inode (`socket:[N]`).
    private static func sockets() -> [(descriptor: Int32, inode: String)] {
        #if os(Linux)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
            var buffer = [CChar](repeating: 0, count: 64)
            return names.compactMap { name in
                guard let descriptor = Int32(name) else { return nil }
                let count = readlink("/proc/self/fd/\(name)", &buffer, buffer.count - 1)
                guard count > 0 else { return nil }
                let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return target.hasPrefix("socket:") ? (descriptor, target) : nil
            }
        #else
            return []
        #endif
    }

    /// From Linux's `struct tcp_info`: the state, and milliseconds since data was last sent
    /// and received (offsets 44 and 52, stable since Linux 2.6).
    private static func tcpInfo(_ descriptor: Int32) -> (state: UInt8, sinceSent: UInt32, sinceReceived: UInt32)? {
        #if os(Linux)
            var buffer = [UInt8](repeating: 0, count: 104)
            var length = socklen_t(buffer.count)
            guard getsockopt(descriptor, Int32(IPPROTO_TCP), 11 /* TCP_INFO */, &buffer, &length) == 0, length >= 56 else { return nil }
            return buffer.withUnsafeBytes { raw in
                (raw[0], raw.loadUnaligned(fromByteOffset: 44, as: UInt32.self), raw.loadUnaligned(fromByteOffset: 52, as: UInt32.self))
            }
        #else
            return nil
        #endif
    }
}
