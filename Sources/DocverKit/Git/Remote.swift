import Foundation
internal import Clibgit2

/// A transfer's progress as libgit2 reports it: objects and bytes received (and indexed) by
/// a fetch, or sent by a push.
struct TransferCounts: Equatable {
    var objects: Int
    var totalObjects: Int
    var indexedObjects: Int
    var bytes: Int
}

/// What a transfer needs to know between libgit2's callbacks: credential attempts made, the
/// references the remote refused, and where progress goes. Lives on the caller's stack for
/// the call's duration; libgit2 calls the callbacks on the calling thread, during the call,
/// so the state is never shared between threads.
private struct TransferState {
    var credentialAttempts = 0
    var triedAgent = false
    var keyFiles: [String] = []
    var triedHelper = false
    var credentialsExhausted = false
    var rejected: [String: String] = [:]
    var progress: ((TransferCounts) -> Void)?
}

/// Offers credentials in the order git users expect: ssh-agent, then the default key files,
/// then git's credential helpers (`git credential fill`) for user and password.
private let credentialCallback: git_credential_acquire_cb = { out, url, usernameFromURL, allowedTypes, payload in
    guard let out, let payload else { return -1 }
    let state = payload.assumingMemoryBound(to: TransferState.self)
    state.pointee.credentialAttempts += 1
    let user = usernameFromURL.map { String(cString: $0) } ?? "git"
    if allowedTypes & GIT_CREDENTIAL_SSH_KEY.rawValue != 0 {
        if !state.pointee.triedAgent {
            state.pointee.triedAgent = true
            if getenv("SSH_AUTH_SOCK") != nil, git_credential_ssh_key_from_agent(out, user) == 0 { return 0 }
        }
        while !state.pointee.keyFiles.isEmpty {
            let key = state.pointee.keyFiles.removeFirst()
            if git_credential_ssh_key_new(out, user, nil, key, nil) == 0 { return 0 }
        }
    }
    if allowedTypes & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0, !state.pointee.triedHelper {
        state.pointee.triedHelper = true
        if let url, let (name, password) = Subprocess.gitCredential(for: String(cString: url)),
           git_credential_userpass_plaintext_new(out, name, password) == 0 {
            return 0
        }
    }
    if allowedTypes & GIT_CREDENTIAL_USERNAME.rawValue != 0, state.pointee.credentialAttempts == 1 {
        return git_credential_username_new(out, user)
    }
    state.pointee.credentialsExhausted = true
    git_error_set_str(Int32(GIT_ERROR_NET.rawValue), "authentication failed: none of the available credentials (ssh-agent, ~/.ssh keys, git credential helpers) was accepted")
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
    state.pointee.progress?(TransferCounts(objects: Int(stats.pointee.received_objects),
                                           totalObjects: Int(stats.pointee.total_objects),
                                           indexedObjects: Int(stats.pointee.indexed_objects),
                                           bytes: Int(stats.pointee.received_bytes)))
    return 0
}

/// A push's progress: objects written to the remote, and bytes.
private let pushProgressCallback: git_push_transfer_progress_cb = { current, total, bytes, payload in
    guard let payload else { return 0 }
    let state = payload.assumingMemoryBound(to: TransferState.self)
    state.pointee.progress?(TransferCounts(objects: Int(current), totalObjects: Int(total),
                                           indexedObjects: Int(current), bytes: Int(bytes)))
    return 0
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

    private init(pointer: OpaquePointer, repository: Repository) {
        self.pointer = pointer
        self.repository = repository
    }

    deinit { git_remote_free(pointer) }

    static func lookup(_ name: String, in repository: Repository) throws -> Remote? {
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

    static func names(in repository: Repository) throws -> [String] {
        var list = git_strarray()
        try check(git_remote_list(&list, repository.pointer))
        defer { git_strarray_dispose(&list) }
        return (0..<list.count).compactMap { list.strings[$0].map { String(cString: $0) } }
    }

    var url: String { git_remote_url(pointer).map { String(cString: $0) } ?? "" }

    /// Fetches with explicit refspecs, reporting objects and bytes received to `progress`.
    func fetch(_ refspecs: [String], progress: ((TransferCounts) -> Void)? = nil) throws {
        var options = git_fetch_options()
        try check(git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION)))
        var state = TransferState(keyFiles: defaultKeyFiles(), progress: progress)
        try withUnsafeMutablePointer(to: &state) { statePointer in
            options.callbacks.credentials = credentialCallback
            if progress != nil { options.callbacks.transfer_progress = fetchProgressCallback }
            options.callbacks.payload = UnsafeMutableRawPointer(statePointer)
            try withStrings(refspecs) { array in
                _ = try check(git_remote_fetch(pointer, &array, &options, "docver: fetch"))
            }
        }
    }

    /// Pushes with explicit refspecs, reporting objects and bytes sent to `progress`; returns
    /// the references the remote refused, with reasons.
    ///
    /// To a local repository the byte count is measured here, since libgit2's local transport
    /// does not count bytes (1.5 passes the byte field of indexer statistics that
    /// `git_packbuilder_write` never fills in): the reports carry 0 bytes while the push runs,
    /// and the last one, sent once the push is done, the size of the pack it wrote.
    func push(_ refspecs: [String], progress: ((TransferCounts) -> Void)? = nil) throws -> [String: String] {
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
        var state = TransferState(keyFiles: defaultKeyFiles(), progress: reported)
        try withUnsafeMutablePointer(to: &state) { statePointer in
            options.callbacks.credentials = credentialCallback
            if progress != nil { options.callbacks.push_transfer_progress = pushProgressCallback }
            options.callbacks.push_update_reference = pushStatusCallback
            options.callbacks.payload = UnsafeMutableRawPointer(statePointer)
            try withStrings(refspecs) { array in
                _ = try check(git_remote_push(pointer, &array, &options))
            }
        }
        if let packFolder, var counts = lastReport {
            counts.bytes = Self.packSizes(in: packFolder).filter { packsBefore[$0.key] == nil }.values.reduce(0, +)
            progress?(counts)
        }
        return state.rejected
    }
}

extension Remote {
    /// Where libgit2's local transport writes the pack a push sends: the `objects/pack` folder
    /// of a remote that is a path or `file://` URL (a bare repository); nil for a network remote.
    fileprivate var localPackFolder: String? {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        guard case let .local(path) = RemoteLocation(url, relativeTo: here) else { return nil }
        return path + "/objects/pack"
    }

    /// The pack files in a pack folder, with their sizes in bytes.
    fileprivate static func packSizes(in folder: String) -> [String: Int] {
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
