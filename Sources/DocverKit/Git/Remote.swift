internal import Clibgit2
internal import Clibgit2Startup
import Foundation

/// A transfer's progress as libgit2 reports it: objects and bytes received (and indexed) by
/// a fetch, or sent by a push.
struct TransferCounts: Equatable {
    var objects: Int
    var totalObjects: Int
    var indexedObjects: Int
    var bytes: Int
}

/// How docver reaches a network remote: time-outs, the ssh key and known hosts, the TLS
/// certificates trusted besides the system's, and where git's credential helpers are asked
/// (docs/FORMAT.md, "Configuration"; docs/SECURITY.md, "Transports").
struct TransferSettings {
    /// Seconds a TCP connection may take to open.
    var connectTimeout: Double = 10
    /// Seconds a transfer may go without any progress before it is abandoned.
    var stallTimeout: Double = 30
    /// The port of an ssh remote (known_hosts names a non-default port `[host]:port`).
    var sshPort: UInt16 = 22
    /// A private key file offered before ssh-agent's keys and the default ones.
    var sshKey: String?
    /// known_hosts files that must list an ssh server's host key.
    var knownHosts: [String] = TransferSettings.defaultKnownHosts()
    /// DER certificates accepted as an HTTPS server's own certificate (pinned), besides
    /// certificates the system's CAs vouch for.
    var trustedCertificates: [Data] = []
    /// The directory `git credential fill` runs in, so the repository's own config applies.
    var credentialDirectory: URL?

    static func defaultKnownHosts() -> [String] {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return ["\(home)/.ssh/known_hosts", "/etc/ssh/ssh_known_hosts"]
    }

    /// The certificates of a PEM file (every `BEGIN CERTIFICATE` block), as DER.
    static func certificates(inPEM text: String) -> [Data] {
        var result: [Data] = []
        var body: String?
        for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line == "-----BEGIN CERTIFICATE-----" {
                body = ""
            } else if line == "-----END CERTIFICATE-----" {
                if let body, let der = Data(base64Encoded: body) { result.append(der) }
                body = nil
            } else if body != nil {
                body! += line
            }
        }
        return result
    }
}

/// What a transfer needs to know between libgit2's callbacks: credential attempts made, the
/// references the remote refused, what the remote said, and where progress goes. Lives on the
/// caller's stack for the call's duration; libgit2 calls the callbacks on the calling thread,
/// during the call, so the state is never shared between threads (the watchdog only reads
/// its own lock-protected clock).
private struct TransferState {
    var credentialAttempts = 0
    var triedAgent = false
    var keyFiles: [String] = []
    var triedHelper = false
    var credentialsExhausted = false
    var rejected: [String: String] = [:]
    var remoteMessages: [String] = []
    var certificateProblem: String?
    var settings = TransferSettings()
    var watchdog: StallWatchdog?
    var progress: ((TransferCounts) -> Void)?
}

/// Offers credentials in the order git users expect: ssh-agent, then the default key files,
/// then git's credential helpers (`git credential fill`) for user and password.
private let credentialCallback: git_credential_acquire_cb = { out, url, usernameFromURL, allowedTypes, payload in
    guard let out, let payload else { return -1 }
    let state = payload.assumingMemoryBound(to: TransferState.self)
    state.pointee.credentialAttempts += 1
    state.pointee.watchdog?.touch()
    let user = usernameFromURL.map { String(cString: $0) } ?? "git"
    if allowedTypes & GIT_CREDENTIAL_SSH_KEY.rawValue != 0 {
        if let key = state.pointee.settings.sshKey {
            state.pointee.settings.sshKey = nil
            if git_credential_ssh_key_new(out, user, nil, key, nil) == 0 { return 0 }
        }
        if !state.pointee.triedAgent {
            state.pointee.triedAgent = true
            // libssh2 fails the whole connection when the agent cannot be reached, so only a
            // socket that exists is tried (an empty or stale SSH_AUTH_SOCK is ignored).
            if let socket = ProcessInfo.processInfo.environment["SSH_AUTH_SOCK"], !socket.isEmpty,
                (try? FileManager.default.attributesOfItem(atPath: socket)[.type] as? FileAttributeType) == .typeSocket,
                git_credential_ssh_key_from_agent(out, user) == 0
            {
                return 0
            }
        }
        while !state.pointee.keyFiles.isEmpty {
            let key = state.pointee.keyFiles.removeFirst()
            if git_credential_ssh_key_new(out, user, nil, key, nil) == 0 { return 0 }
        }
    }
    if allowedTypes & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0, !state.pointee.triedHelper {
        state.pointee.triedHelper = true
        if let url, let (name, password) = Subprocess.gitCredential(for: String(cString: url), in: state.pointee.settings.credentialDirectory),
            git_credential_userpass_plaintext_new(out, name, password) == 0
        {
            return 0
        }
    }
    if allowedTypes & GIT_CREDENTIAL_USERNAME.rawValue != 0, state.pointee.credentialAttempts == 1 {
        return git_credential_username_new(out, user)
    }
    state.pointee.credentialsExhausted = true
    let offered =
        allowedTypes & GIT_CREDENTIAL_SSH_KEY.rawValue != 0
        ? "docver.network.sshKey, ssh-agent, ~/.ssh keys" : "git credential helpers"
    git_error_set_str(Int32(GIT_ERROR_NET.rawValue), "authentication failed: none of the available credentials (\(offered)) was accepted")
    return GIT_EAUTH.rawValue
}

private let pushStatusCallback: git_push_update_reference_cb = { reference, status, payload in
    guard let reference, let status, let payload else { return 0 }
    payload.assumingMemoryBound(to: TransferState.self).pointee.rejected[String(cString: reference)] = String(cString: status)
    return 0
}

/// A fetch's progress: objects received, indexed, and bytes received.
private let fetchProgressCallback: git_indexer_progress_cb = { stats, payload in
    guard let stats, let payload else { return 0 }
    let state = payload.assumingMemoryBound(to: TransferState.self)
    state.pointee.watchdog?.touch()
    state.pointee.progress?(
        TransferCounts(
            objects: Int(stats.pointee.received_objects),
            totalObjects: Int(stats.pointee.total_objects),
            indexedObjects: Int(stats.pointee.indexed_objects),
            bytes: Int(stats.pointee.received_bytes)))
    return 0
}

/// A push's progress: objects written to the remote, and bytes.
private let pushProgressCallback: git_push_transfer_progress_cb = { current, total, bytes, payload in
    guard let payload else { return 0 }
    let state = payload.assumingMemoryBound(to: TransferState.self)
    state.pointee.watchdog?.touch()
    state.pointee.progress?(
        TransferCounts(
            objects: Int(current), totalObjects: Int(total),
            indexedObjects: Int(current), bytes: Int(bytes)))
    return 0
}

/// Text the remote sends on the sideband (git's "remote:" lines: its hooks' output).
private let sidebandCallback: git_transport_message_cb = { text, length, payload in
    guard let text, let payload else { return 0 }
    let state = payload.assumingMemoryBound(to: TransferState.self)
    state.pointee.watchdog?.touch()
    let chunk = String(decoding: UnsafeRawBufferPointer(start: text, count: Int(length)), as: UTF8.self)
    for line in chunk.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty { state.pointee.remoteMessages.append(String(trimmed.prefix(300))) }
    }
    if state.pointee.remoteMessages.count > 50 { state.pointee.remoteMessages.removeFirst(state.pointee.remoteMessages.count - 50) }
    return 0
}

/// Building the pack to push: local work, so the watchdog must not count it as a stall.
private let packProgressCallback: git_packbuilder_progress = { _, _, _, payload in
    payload?.assumingMemoryBound(to: TransferState.self).pointee.watchdog?.touch()
    return 0
}

/// Checks the server's identity: an HTTPS certificate must be valid for the host by the
/// system's CAs or be one of `docver.network.trustedCertificates`; an ssh host key must be
/// listed for the host in a known_hosts file. (libgit2 1.5.1 checks no known_hosts itself.)
private let certificateCallback: git_transport_certificate_check_cb = { certificate, valid, host, payload in
    guard let certificate, let payload else { return -1 }
    let state = payload.assumingMemoryBound(to: TransferState.self)
    state.pointee.watchdog?.touch()
    let hostName = host.map { String(cString: $0) } ?? "?"
    let problem: String?
    switch certificate.pointee.cert_type {
    case GIT_CERT_X509:
        let x509 = UnsafeRawPointer(certificate).assumingMemoryBound(to: git_cert_x509.self).pointee
        let der = x509.data.map { Data(bytes: $0, count: x509.len) } ?? Data()
        if valid != 0 || state.pointee.settings.trustedCertificates.contains(der) {
            problem = nil
        } else {
            problem =
                "the TLS certificate of \(hostName) is not trusted: no system CA vouches for it for this host, and it is not in docver.network.trustedCertificates"
        }
    case GIT_CERT_HOSTKEY_LIBSSH2:
        let key = UnsafeRawPointer(certificate).assumingMemoryBound(to: git_cert_hostkey.self).pointee
        problem = KnownHosts.problem(
            with: key, host: hostName, port: state.pointee.settings.sshPort,
            files: state.pointee.settings.knownHosts)
    default:
        problem = valid != 0 ? nil : "the identity of \(hostName) could not be checked"
    }
    guard let problem else { return 0 }
    state.pointee.certificateProblem = problem
    git_error_set_str(Int32(GIT_ERROR_SSL.rawValue), problem)
    return GIT_ECERTIFICATE.rawValue
}

/// Looks an ssh server's host key up in known_hosts files (with `ssh-keygen -F`, which also
/// reads hashed entries).
enum KnownHosts {
    static func problem(with key: git_cert_hostkey, host: String, port: UInt16, files: [String]) -> String? {
        let name = port == 22 ? host : "[\(host)]:\(port)"
        var fingerprint = ""
        if key.type.rawValue & GIT_CERT_SSH_SHA256.rawValue != 0 {
            let digest = withUnsafeBytes(of: key.hash_sha256) { Data($0) }
            fingerprint = " (fingerprint SHA256:" + digest.base64EncodedString().replacingOccurrences(of: "=", with: "") + ")"
        }
        guard key.type.rawValue & GIT_CERT_SSH_RAW.rawValue != 0, let raw = key.hostkey, key.hostkey_len > 0 else {
            return "the ssh host key of \(name) could not be read, so it cannot be checked"
        }
        let presented = Data(bytes: raw, count: key.hostkey_len).base64EncodedString()
        var listed = false
        var checked: [String] = []
        for file in files where FileManager.default.fileExists(atPath: file) {
            checked.append(file)
            guard let outcome = try? Subprocess.run(["ssh-keygen", "-F", name, "-f", file]) else {
                return "cannot check the ssh host key of \(name): ssh-keygen (OpenSSH's client) is needed"
            }
            for line in String(decoding: outcome.output, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
                let fields = line.split(separator: " ")
                let marker = fields.first?.hasPrefix("@") == true ? String(fields[0]) : nil
                let rest = marker == nil ? fields : Array(fields.dropFirst())
                guard rest.count >= 3 else { continue }
                if marker == "@cert-authority" { continue }
                let matches = rest[2] == presented
                if marker == "@revoked" {
                    if matches { return "the ssh host key of \(name) is marked revoked in \(file)" }
                    continue
                }
                listed = true
                if matches { return nil }
            }
        }
        let where_ = checked.isEmpty ? files.joined(separator: " or ") : checked.joined(separator: ", ")
        if listed {
            return
                "the ssh host key of \(name)\(fingerprint) does not match the one in \(where_): the connection may be intercepted; if the server's key really changed, update that file"
        }
        return
            "the ssh host key of \(name)\(fingerprint) is unknown: it is not in \(where_) (add it after checking its fingerprint, e.g. with ssh-keyscan)"
    }
}

private func defaultKeyFiles() -> [String] {
    let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
    return ["id_ed25519", "id_ecdsa", "id_rsa"].map { "\(home)/.ssh/\($0)" }
        .filter { FileManager.default.fileExists(atPath: $0) }
}

/// A remote, named in the repository's config or anonymous (a URL).
final class Remote {
    let pointer: OpaquePointer
    private let repository: Repository
    /// What a fetch does besides its refspecs, from the remote's config: set by
    /// ``lookup(_:in:)`` for a remote libgit2 holds without its name (it would not read them).
    private var configuredFetch: FetchDefaults?

    /// Which tags a fetch brings (`remote.<name>.tagopt`) and whether it deletes the
    /// remote-tracking branches gone from the remote (`remote.<name>.prune`, `fetch.prune`).
    struct FetchDefaults: Equatable {
        enum Tags: Equatable {
            /// Tags of the commits fetched (git's default).
            case following
            /// `--no-tags`.
            case none
            /// `--tags`.
            case all
        }
        var tags: Tags
        var prune: Bool
    }

    /// This remote's fetch settings.
    var fetchDefaults: FetchDefaults {
        if let configuredFetch { return configuredFetch }
        let tags: FetchDefaults.Tags =
            switch git_remote_autotag(pointer) {
            case GIT_REMOTE_DOWNLOAD_TAGS_NONE: .none
            case GIT_REMOTE_DOWNLOAD_TAGS_ALL: .all
            default: .following
            }
        return FetchDefaults(tags: tags, prune: git_remote_prune_refs(pointer) != 0)
    }

    private init(pointer: OpaquePointer, repository: Repository) {
        self.pointer = pointer
        self.repository = repository
    }

    // Freeing closes a connection libgit2 may have kept (TLS writes its close_notify then).
    deinit { withoutPipeSignal { git_remote_free(pointer) } }

    /// The remote `name` as the repository's config describes it, or nil when there is none.
    ///
    /// The same remote as `git_remote_lookup` gives (URL rewritten by `insteadOf`, push URL,
    /// fetch refspec, tag and prune settings), built from the config read here: libgit2's
    /// lookup matches a regular expression against every config entry, and libgit2 1.5.1
    /// leaks memory at each entry it does not match (``ConfigSnapshot``). libgit2 holds it
    /// without a name, which only changes the wording of `FETCH_HEAD`. A remote with more than
    /// one fetch refspec, or with a push URL and no URL, which a remote that docver made never
    /// has, is still looked up by libgit2.
    static func lookup(_ name: String, in repository: Repository) throws -> Remote? {
        guard isValidName(name) else { return nil }
        let config = try ConfigSnapshot(of: repository)
        let url = try config.string("remote.\(name).url")
        let pushURL = try config.string("remote.\(name).pushurl")
        guard url != nil || pushURL != nil else { return nil }
        let fetchSpecs = try config.strings("remote.\(name).fetch")
        guard let url, !url.isEmpty, fetchSpecs.count <= 1 else { return try lookupByLibgit2(name, in: repository) }
        let rewrites = URLRewrites(entries: try config.entries { $0.hasPrefix("url.") })
        var options = git_remote_create_options()
        try check(git_remote_create_options_init(&options, UInt32(GIT_REMOTE_CREATE_OPTIONS_VERSION)))
        options.repository = repository.pointer
        options.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF.rawValue | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC.rawValue
        var handle: OpaquePointer?
        let fetchSpec = fetchSpecs.first.flatMap { strdup($0) }
        defer { free(fetchSpec) }
        options.fetchspec = UnsafePointer(fetchSpec)
        try check(git_remote_create_with_opts(&handle, rewrites.fetchURL(url), &options))
        let remote = Remote(pointer: handle!, repository: repository)
        if let push = rewrites.pushURL(url: url, pushURL: pushURL) {
            try check(git_remote_set_instance_pushurl(remote.pointer, push))
        }
        let tags: FetchDefaults.Tags =
            switch try config.string("remote.\(name).tagopt") ?? "" {
            case "--no-tags": .none
            case "--tags": .all
            default: .following
            }
        let prune = try config.bool("remote.\(name).prune") ?? config.bool("fetch.prune") ?? false
        remote.configuredFetch = FetchDefaults(tags: tags, prune: prune)
        return remote
    }

    /// The remote as `git_remote_lookup` gives it (for the remotes ``lookup(_:in:)`` leaves to
    /// libgit2, and to compare with it in tests).
    static func lookupByLibgit2(_ name: String, in repository: Repository) throws -> Remote? {
        var handle: OpaquePointer?
        let result = git_remote_lookup(&handle, repository.pointer, name)
        if result == GIT_ENOTFOUND.rawValue || result == GIT_EINVALIDSPEC.rawValue { return nil }
        try check(result)
        return Remote(pointer: handle!, repository: repository)
    }

    /// Adds a named remote whose default fetch brings every device branch.
    static func create(_ name: String, url: String, fetchSpec: String, in repository: Repository) throws -> Remote {
        var handle: OpaquePointer?
        try check(git_remote_create_with_fetchspec(&handle, repository.pointer, name, url, fetchSpec))
        return Remote(pointer: handle!, repository: repository)
    }

    static func isValidName(_ name: String) -> Bool {
        var valid: Int32 = 0
        return git_remote_name_is_valid(&valid, name) == 0 && valid == 1
    }

    /// The names of the remotes with a URL or a push URL, sorted: what `git_remote_list`
    /// returns, without its leak (``ConfigSnapshot``).
    static func names(in repository: Repository) throws -> [String] {
        var names: Set<String> = []
        for (key, _) in try ConfigSnapshot(of: repository).entries(where: { $0.hasPrefix("remote.") }) {
            let rest = key.dropFirst("remote.".count)
            if rest.hasSuffix(".pushurl") {
                names.insert(String(rest.dropLast(".pushurl".count)))
            } else if rest.hasSuffix(".url") {
                names.insert(String(rest.dropLast(".url".count)))
            }
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    var url: String { git_remote_url(pointer).map { String(cString: $0) } ?? "" }

    /// The URL pushed to when it is not ``url``.
    var pushURL: String? { git_remote_pushurl(pointer).map { String(cString: $0) } }

    /// The fetch refspecs, as configured.
    var fetchRefspecs: [String] {
        var list = git_strarray()
        guard git_remote_get_fetch_refspecs(&list, pointer) == 0 else { return [] }
        defer { git_strarray_dispose(&list) }
        return (0..<list.count).compactMap { list.strings[$0].map { String(cString: $0) } }
    }

    /// Fetches with explicit refspecs, reporting objects and bytes received to `progress`.
    func fetch(
        _ refspecs: [String], settings: TransferSettings = TransferSettings(),
        progress: ((TransferCounts) -> Void)? = nil
    ) throws {
        var options = git_fetch_options()
        try check(git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION)))
        let defaults = fetchDefaults
        options.download_tags =
            switch defaults.tags {
            case .following: GIT_REMOTE_DOWNLOAD_TAGS_AUTO
            case .none: GIT_REMOTE_DOWNLOAD_TAGS_NONE
            case .all: GIT_REMOTE_DOWNLOAD_TAGS_ALL
            }
        options.prune = defaults.prune ? GIT_FETCH_PRUNE : GIT_FETCH_NO_PRUNE
        var state = TransferState(keyFiles: defaultKeyFiles(), settings: settings, progress: progress)
        try withUnsafeMutablePointer(to: &state) { statePointer in
            Self.setCallbacks(&options.callbacks, state: statePointer)
            options.callbacks.transfer_progress = fetchProgressCallback
            try bounded(statePointer) {
                try withStrings(refspecs) { array in
                    _ = try check(git_remote_fetch(pointer, &array, &options, "docver: fetch"))
                }
            }
        }
    }

    /// Pushes with explicit refspecs, reporting objects and bytes sent to `progress`; returns
    /// the references the remote refused, with reasons, and the lines the remote printed
    /// (its hooks' output).
    ///
    /// To a local repository the byte count is measured here, since libgit2's local transport
    /// does not count bytes (1.5 passes the byte field of indexer statistics that
    /// `git_packbuilder_write` never fills in): the reports carry 0 bytes while the push runs,
    /// and the last one, sent once the push is done, the size of the pack it wrote.
    func push(
        _ refspecs: [String], settings: TransferSettings = TransferSettings(),
        progress: ((TransferCounts) -> Void)? = nil
    ) throws -> (rejected: [String: String], messages: [String]) {
        var options = git_push_options()
        try check(git_push_options_init(&options, UInt32(GIT_PUSH_OPTIONS_VERSION)))
        let packFolder = progress == nil ? nil : localPackFolder
        let packsBefore = packFolder.map { Self.packSizes(in: $0) } ?? [:]
        var lastReport: TransferCounts?
        var reported = progress
        if packFolder != nil, let progress {
            reported = { counts in
                var counts = counts
                counts.bytes = 0
                // The report of the whole push waits for the size of the pack.
                if counts.totalObjects > 0 && counts.objects >= counts.totalObjects { lastReport = counts } else { progress(counts) }
            }
        }
        var state = TransferState(keyFiles: defaultKeyFiles(), settings: settings, progress: reported)
        try withUnsafeMutablePointer(to: &state) { statePointer in
            Self.setCallbacks(&options.callbacks, state: statePointer)
            options.callbacks.push_transfer_progress = pushProgressCallback
            options.callbacks.pack_progress = packProgressCallback
            options.callbacks.push_update_reference = pushStatusCallback
            try bounded(statePointer) {
                try withStrings(refspecs) { array in
                    _ = try check(git_remote_push(pointer, &array, &options))
                }
            }
        }
        if let packFolder, var counts = lastReport {
            counts.bytes = Self.packSizes(in: packFolder).filter { packsBefore[$0.key] == nil }.values.reduce(0, +)
            progress?(counts)
        }
        return (state.rejected, state.remoteMessages)
    }

    private static func setCallbacks(_ callbacks: inout git_remote_callbacks, state: UnsafeMutablePointer<TransferState>) {
        callbacks.credentials = credentialCallback
        callbacks.certificate_check = certificateCallback
        callbacks.sideband_progress = sidebandCallback
        callbacks.payload = UnsafeMutableRawPointer(state)
    }

    /// Runs a transfer within docver's bounds: for a network URL, the endpoint must accept a
    /// connection within the connect time-out, and a ``StallWatchdog`` cuts the transfer when
    /// nothing moves for the stall time-out. Errors become one line.
    private func bounded(_ state: UnsafeMutablePointer<TransferState>, _ body: () throws -> Void) throws {
        let settings = state.pointee.settings
        // A server that goes away mid-push makes libgit2's next write raise SIGPIPE, which
        // would kill the whole process: the write must fail with EPIPE instead.
        try withoutPipeSignal { try transfer(state, settings: settings, body) }
    }

    private func transfer(
        _ state: UnsafeMutablePointer<TransferState>, settings: TransferSettings,
        _ body: () throws -> Void
    ) throws {
        // The system CAs, whose parse start-up deferred (libgit2_startup.h): any transfer over
        // a network may speak HTTPS, if only after a redirect; one on this machine never does.
        // A bundle that cannot be read leaves the pinned certificates only, as libgit2's own
        // parse would.
        if localPackFolder == nil { _ = docver_load_deferred_certificates() }
        let endpoint = NetworkEndpoint(url: url)
        var peers: [sockaddr_storage] = []
        if let endpoint {
            do {
                peers = try endpoint.probe(timeout: settings.connectTimeout)
            } catch {
                throw GitError(code: .other(-1), message: error.reason, function: "connect")
            }
        }
        if let endpoint { state.pointee.settings.sshPort = endpoint.port }
        let watchdog = endpoint.map { StallWatchdog(endpoint: $0, peers: peers, limit: settings.stallTimeout) }
        state.pointee.watchdog = watchdog
        defer {
            // Close the connection while the watchdog still guards it.
            git_remote_disconnect(pointer)
            watchdog?.stop()
            state.pointee.watchdog = nil
        }
        do {
            try body()
        } catch let error as GitError {
            if let endpoint, watchdog?.fired == true {
                throw GitError(
                    code: error.code,
                    message:
                        "no progress from \(endpoint) for \(NetworkEndpoint.seconds(settings.stallTimeout)) seconds (docver.network.stallTimeout): the transfer was abandoned",
                    function: error.function)
            }
            let message = state.pointee.certificateProblem ?? error.message
            throw GitError(code: error.code, message: Self.oneLine(message), function: error.function)
        }
    }

    /// libgit2's messages may span lines (mbedTLS lists every verification failure).
    /// (libgit2 ends some messages with ": " and an empty system error: that colon goes.)
    static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline).map { line in
            var line = line.trimmingCharacters(in: .whitespaces)
            while line.hasSuffix(":") { line = String(line.dropLast()).trimmingCharacters(in: .whitespaces) }
            return line
        }.filter { !$0.isEmpty }.joined(separator: "; ")
    }
}

/// Runs `body` with SIGPIPE blocked on this thread, so that writing to a connection the peer
/// closed fails with EPIPE rather than killing the process; a SIGPIPE left pending is
/// discarded before the thread's mask is restored.
func withoutPipeSignal<T>(_ body: () throws -> T) rethrows -> T {
    var pipeSignal = sigset_t()
    sigemptyset(&pipeSignal)
    sigaddset(&pipeSignal, SIGPIPE)
    var previousMask = sigset_t()
    pthread_sigmask(SIG_BLOCK, &pipeSignal, &previousMask)
    defer {
        var pending = sigset_t()
        sigpending(&pending)
        if sigismember(&pending, SIGPIPE) == 1 {
            var immediately = timespec()
            _ = sigtimedwait(&pipeSignal, nil, &immediately)
        }
        pthread_sigmask(SIG_SETMASK, &previousMask, nil)
    }
    return try body()
}

extension Remote {
    /// Where libgit2's local transport writes the pack a push sends: the `objects/pack` folder
    /// of a remote that is a path or `file://` URL (a bare repository); nil for a network remote.
    fileprivate var localPackFolder: String? { localPath.map { $0 + "/objects/pack" } }

    /// The path of a remote that is a repository on this machine (a path or `file://` URL);
    /// nil for a network remote.
    var localPath: String? {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        guard case let .local(path) = RemoteLocation(url, relativeTo: here) else { return nil }
        return path
    }

    /// The pack files in a pack folder, with their sizes in bytes.
    static func packSizes(in folder: String) -> [String: Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var sizes: [String: Int] = [:]
        for name in names where name.hasSuffix(".pack") {
            let size = (try? FileManager.default.attributesOfItem(atPath: folder + "/" + name))?[.size] as? Int
            sizes[name] = size ?? 0
        }
        return sizes
    }
}

/// Lends a `git_strarray` view of Swift strings for the duration of `body`.
func withStrings<T>(_ strings: [String], _ body: (inout git_strarray) throws -> T) rethrows -> T {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    var pointers: [UnsafeMutablePointer<CChar>?] = copies
    return try pointers.withUnsafeMutableBufferPointer { buffer in
        var array = git_strarray(strings: buffer.baseAddress, count: buffer.count)
        return try body(&array)
    }
}

// MARK: Changing the configured remotes

extension Remote {
    /// Removes the remote's configuration and the remote-tracking references its fetch
    /// refspecs wrote (libgit2's `git_remote_delete`, git's `remote remove`).
    static func delete(_ name: String, in repository: Repository) throws {
        try check(git_remote_delete(repository.pointer, name))
    }

    /// Renames the remote's configuration section, and replaces its fetch refspecs by
    /// `fetchSpec` (libgit2 rewrites only git's default refspec, docver's is not one).
    static func rename(_ name: String, to newName: String, fetchSpec: String, in repository: Repository) throws {
        var problems = git_strarray()
        try check(git_remote_rename(&problems, repository.pointer, name, newName))
        git_strarray_dispose(&problems)
        var config: OpaquePointer?
        try check(git_repository_config(&config, repository.pointer))
        defer { git_config_free(config) }
        let result = git_config_delete_multivar(config, "remote.\(newName).fetch", ".*")
        if result != GIT_ENOTFOUND.rawValue { try check(result) }
        try check(git_remote_add_fetch(repository.pointer, newName, fetchSpec))
    }

    /// Changes the URL the remote fetches from and pushes to.
    static func setURL(_ name: String, to url: String, in repository: Repository) throws {
        try check(git_remote_set_url(repository.pointer, name, url))
    }
}
