import DocverKit
import Foundation
import Testing

// Real servers on 127.0.0.1 for the transport tests (SyncTransportTests): OpenSSH's sshd with
// throwaway keys, lighttpd running `git http-backend` over HTTPS with basic auth, and a
// listener that accepts and never answers. Each one runs from the test's scratch folder and
// is killed with every process it started.

enum NetworkFixtures {
    static let sshd = "/usr/sbin/sshd"
    static let lighttpd = "/usr/sbin/lighttpd"
    static let httpBackend = "/usr/lib/git-core/git-http-backend"

    /// On CI (CI=true) every transport test runs, and a missing server fails it; elsewhere a
    /// test whose server is not installed is skipped (`.ci/run` installs them).
    static var onCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }
    static var sshdUsable: Bool { onCI || FileManager.default.isExecutableFile(atPath: sshd) }

    /// Why sshd cannot log in the user running the tests, or nil when it can. The server runs
    /// as that user, root or not (run as another user, sshd serves only that user), and logs
    /// it in by its account: sshd looks the account up and runs `git-upload-pack` through its
    /// shell. A container started with a bare user id (`docker run -u 1234`) has no account.
    static var sshLoginProblem: String? {
        let id = getuid()
        guard let account = getpwuid(id) else {
            return "user id \(id) has no account (no entry in the user database), and sshd logs in only accounts"
        }
        let name = String(cString: account.pointee.pw_name)
        let shell = String(cString: account.pointee.pw_shell)
        if shell.hasSuffix("/nologin") || shell.hasSuffix("/false") {
            return "the account '\(name)' has the shell \(shell), through which sshd cannot run git-upload-pack"
        }
        return nil
    }
    static var lighttpdUsable: Bool {
        onCI
            || (FileManager.default.isExecutableFile(atPath: lighttpd)
                && FileManager.default.isExecutableFile(atPath: httpBackend)
                && FileManager.default.fileExists(atPath: "/usr/lib/lighttpd/mod_openssl.so"))
    }
}

/// The pids of `root` and all its descendants (from /proc), children first.
func processTree(_ root: Int32) -> [Int32] {
    var parents: [Int32: Int32] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
        guard let pid = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { continue }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        if fields.count > 1, let parent = Int32(fields[1]) { parents[pid] = parent }
    }
    var result: [Int32] = []
    func visit(_ pid: Int32) {
        for (child, parent) in parents where parent == pid { visit(child) }
        result.append(pid)
    }
    visit(root)
    return result
}

/// A server process, started with posix_spawn rather than Foundation's Process: Foundation
/// keeps a thread blocked in waitpid for each running Process, and long-lived servers would
/// starve the thread pool the tests' own subprocesses need.
final class ServerProcess: @unchecked Sendable {
    let pid: pid_t
    private let lock = NSLock()
    private var reaped = false

    init(_ executable: String, _ arguments: [String], log: URL) throws {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Servers get a clean signal mask (the test runner's threads block some signals).
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        guard result == 0 else { throw POSIXFailure(call: "posix_spawn \(executable)", code: result) }
        pid = child
    }

    var isRunning: Bool {
        lock.withLock {
            guard !reaped else { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { reaped = true }
            return !reaped
        }
    }

    /// Stops the server and everything it started (SIGSTOP): connections stay open and silent.
    /// Several passes catch a child forked while the tree was read.
    func pause() {
        for _ in 0..<3 {
            for member in processTree(pid) { Glibc.kill(member, SIGSTOP) }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Kills the server and everything it started (SIGKILL), and reaps it.
    func kill() {
        guard isRunning else { return }
        let tree = processTree(pid)
        for member in tree { Glibc.kill(member, SIGSTOP) }
        for member in tree { Glibc.kill(member, SIGKILL) }
        lock.withLock {
            guard !reaped else { return }
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            reaped = true
        }
    }
}

/// Kills a server and waits until its port is closed.
func killServer(_ process: ServerProcess, port: UInt16?) {
    process.kill()
    let deadline = Date().addingTimeInterval(10)
    while let port, Date() < deadline, portAcceptsConnections(port) { Thread.sleep(forTimeInterval: 0.05) }
}

/// Starts `make(port)` (executable and arguments) on free ports until one listens (another
/// process may take a port between probing and listening).
private func startListening(log: URL, _ make: (UInt16) throws -> (String, [String])) throws -> (ServerProcess, UInt16) {
    for _ in 0..<5 {
        let port = try freeLocalPort()
        let (executable, arguments) = try make(port)
        let process = try ServerProcess(executable, arguments, log: log)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, process.isRunning, !portAcceptsConnections(port) { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning, portAcceptsConnections(port) { return (process, port) }
        killServer(process, port: nil)
    }
    throw ServerDidNotStart(log: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
}

struct ServerDidNotStart: Error, CustomStringConvertible {
    var log: String
    var description: String { "the test server did not start listening: \(log)" }
}

@discardableResult
private func run(_ executable: String, _ arguments: [String]) throws -> String {
    let result = try runProcess(executable, arguments)
    guard result.status == 0 else {
        throw GitCommandFailed(arguments: [executable] + arguments, status: result.status, stderr: result.stderr)
    }
    return result.stdout
}

/// OpenSSH's sshd on 127.0.0.1 with a throwaway host key, accepting one throwaway user key
/// (public key only) for the current user; repositories are served by absolute path.
final class SSHServer {
    let directory: URL
    let port: UInt16
    /// The private key the server accepts, and one it does not.
    let userKey: URL
    let wrongKey: URL
    /// A known_hosts file listing this server's host key.
    let knownHosts: URL
    private let process: ServerProcess

    init(in directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let hostKey = directory.appendingPathComponent("host_key")
        userKey = directory.appendingPathComponent("user_key")
        wrongKey = directory.appendingPathComponent("wrong_key")
        for key in [hostKey, userKey, wrongKey] {
            try run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "docver-test", "-f", key.path])
        }
        let authorized = directory.appendingPathComponent("authorized_keys")
        try FileManager.default.copyItem(at: userKey.appendingPathExtension("pub"), to: authorized)
        // Run by root, sshd's privilege separation needs this root-owned directory; run by
        // another user it has no privileges to separate and neither needs nor can make it.
        if getuid() == 0 {
            try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        }
        let config = directory.appendingPathComponent("sshd_config")
        let directory = directory
        (process, port) = try startListening(log: directory.appendingPathComponent("sshd.log")) { port in
            try """
            ListenAddress 127.0.0.1
            Port \(port)
            HostKey \(hostKey.path)
            AuthorizedKeysFile \(authorized.path)
            PidFile \(directory.appendingPathComponent("sshd.pid").path)
            PubkeyAuthentication yes
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PermitRootLogin prohibit-password
            StrictModes no
            UsePAM no
            MaxStartups 100
            LogLevel VERBOSE

            """.write(to: config, atomically: true, encoding: .utf8)
            return (NetworkFixtures.sshd, ["-D", "-e", "-f", config.path])
        }
        knownHosts = directory.appendingPathComponent("known_hosts")
        let publicHostKey = try String(contentsOf: hostKey.appendingPathExtension("pub"), encoding: .utf8)
        let fields = publicHostKey.split(separator: " ")
        try "[127.0.0.1]:\(port) \(fields[0]) \(fields[1])\n".write(to: knownHosts, atomically: true, encoding: .utf8)
    }

    /// The ssh URL of a repository at an absolute path, as the current user.
    func url(_ repository: URL) -> String {
        "ssh://\(NSUserName())@127.0.0.1:\(port)\(repository.path)"
    }

    /// Makes `container` use this server's throwaway key and known host (or `key`).
    func configure(_ container: Container, key: URL? = nil) throws {
        try container.git(["config", "docver.network.sshKey", (key ?? userKey).path])
        try container.git(["config", "docver.network.knownHosts", knownHosts.path])
    }

    var log: String { (try? String(contentsOf: directory.appendingPathComponent("sshd.log"), encoding: .utf8)) ?? "" }

    func stop() { killServer(process, port: port) }

    func pause() { process.pause() }

    deinit { stop() }
}

/// lighttpd on 127.0.0.1 serving the bare repositories under `served` through git's
/// `git http-backend` (CGI) at `/git/`, over HTTPS with a throwaway self-signed certificate,
/// and only to user `alice` with ``password`` (basic auth, an htpasswd file).
final class HTTPGitServer {
    let directory: URL
    let served: URL
    let port: UInt16
    let user = "alice"
    let password = "pw-\(UUID().uuidString.prefix(8))"
    /// The server's certificate (PEM), which clients must be told to trust.
    let certificate: URL
    private let process: ServerProcess

    init(in directory: URL, serving served: URL) throws {
        self.served = served
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = directory.appendingPathComponent("tls.key")
        certificate = directory.appendingPathComponent("tls.crt")
        try run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key.path, "-out", certificate.path, "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1",
            ])
        let pem = directory.appendingPathComponent("tls.pem")
        try (String(contentsOf: certificate, encoding: .utf8) + String(contentsOf: key, encoding: .utf8))
            .write(to: pem, atomically: true, encoding: .utf8)
        let hash = try run("/usr/bin/openssl", ["passwd", "-apr1", password]).trimmingCharacters(in: .whitespacesAndNewlines)
        let users = directory.appendingPathComponent("htpasswd")
        try "\(user):\(hash)\n".write(to: users, atomically: true, encoding: .utf8)
        let config = directory.appendingPathComponent("lighttpd.conf")
        let directory = directory
        (process, port) = try startListening(log: directory.appendingPathComponent("lighttpd.out")) { port in
            try """
            server.modules = ("mod_access", "mod_alias", "mod_auth", "mod_authn_file", "mod_cgi", "mod_setenv", "mod_openssl")
            server.document-root = "\(served.path)"
            server.bind = "127.0.0.1"
            server.port = \(port)
            server.errorlog = "\(directory.appendingPathComponent("error.log").path)"
            server.pid-file = "\(directory.appendingPathComponent("lighttpd.pid").path)"
            server.max-request-size = 0
            ssl.engine = "enable"
            ssl.pemfile = "\(pem.path)"
            auth.backend = "htpasswd"
            auth.backend.htpasswd.userfile = "\(users.path)"
            auth.require = ( "" => ( "method" => "basic", "realm" => "docver tests", "require" => "valid-user" ) )
            alias.url = ( "/git/" => "\(NetworkFixtures.httpBackend)/" )
            cgi.assign = ( "" => "" )
            setenv.add-environment = ( "GIT_PROJECT_ROOT" => "\(served.path)", "GIT_HTTP_EXPORT_ALL" => "1" )

            """.write(to: config, atomically: true, encoding: .utf8)
            return (NetworkFixtures.lighttpd, ["-D", "-f", config.path])
        }
    }

    func url(_ repository: String) -> String { "https://127.0.0.1:\(port)/git/\(repository)" }

    /// Makes `container` trust this server's certificate and answer its password through
    /// git's `store` credential helper (with `password`, or the right one).
    func configure(_ container: Container, password: String? = nil) throws {
        let store = container.root.deletingLastPathComponent()
            .appendingPathComponent("credentials-\(container.device.id)")
        try "https://\(user):\(password ?? self.password)@127.0.0.1:\(port)\n".write(to: store, atomically: true, encoding: .utf8)
        try container.git(["config", "credential.helper", "store --file=\(store.path)"])
        try container.git(["config", "docver.network.trustedCertificates", certificate.path])
    }

    var log: String { (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? "" }

    func stop() { killServer(process, port: port) }

    func pause() { process.pause() }

    deinit { stop() }
}

/// `git daemon` on 127.0.0.1 serving the repositories under `served`, pushes enabled; unlike
/// ``GitDaemon`` it is killed with the processes serving each connection, so a transfer in
/// progress is cut too.
final class GitDaemonServer {
    let port: UInt16
    let directory: URL
    private let process: ServerProcess

    init(in directory: URL, serving served: URL) throws {
        self.directory = directory
        (process, port) = try startListening(log: directory.appendingPathComponent("git-daemon.log")) { port in
            (
                "/usr/bin/git",
                [
                    "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack", "--base-path=\(served.path)",
                    "--listen=127.0.0.1", "--port=\(port)", served.path,
                ]
            )
        }
    }

    func url(_ repository: String) -> String { "git://127.0.0.1:\(port)/\(repository)" }

    func stop() { killServer(process, port: port) }

    func pause() { process.pause() }

    deinit { stop() }
}

/// A TCP listener on 127.0.0.1 that accepts connections and never says anything: a server
/// that hangs. With `acceptingNothing`, it never accepts either and its queue is kept full,
/// so a new connection is never even established (a host that does not answer).
final class SilentListener: @unchecked Sendable {
    let port: UInt16
    private let descriptor: Int32
    private let lock = NSLock()
    private var accepted: [Int32] = []
    private var filler: Int32 = -1
    private var stopped = false

    init(acceptingNothing: Bool = false) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        guard descriptor >= 0 else { throw POSIXFailure(call: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, acceptingNothing ? 0 : 16) == 0 else { throw POSIXFailure(call: "bind/listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        if acceptingNothing {
            // One connection fills a backlog of 0: the kernel drops the next handshakes.
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var target = address
            _ = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            self.filler = filler
        } else {
            let thread = Thread { [self] in
                while true {
                    let client = accept(descriptor, nil, nil)
                    let keep = lock.withLock { () -> Bool in
                        if stopped { return false }
                        if client >= 0 { accepted.append(client) }
                        return true
                    }
                    if !keep { if client >= 0 { close(client) }; return }
                    if client < 0 { Thread.sleep(forTimeInterval: 0.01) }
                }
            }
            thread.start()
        }
    }

    var url: String { "git://127.0.0.1:\(port)/remote.git" }

    func stop() {
        let open = lock.withLock { () -> [Int32] in
            guard !stopped else { return [] }
            stopped = true
            return accepted + [filler]
        }
        guard !open.isEmpty else { return }
        shutdown(descriptor, Int32(SHUT_RDWR))  // wakes the accepting thread
        for client in open where client >= 0 { close(client) }
    }

    deinit {
        stop()
        close(descriptor)
    }
}
