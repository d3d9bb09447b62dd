internal import Clibgit2
import Foundation

// Documents on demand: a partial clone, as git makes one (docs/ARCHITECTURE.md, "Documents on
// demand"). libgit2 1.5 has no partial clone: it neither asks a server to leave contents out
// nor fetches an object it lacks. docver therefore
// - transfers from a promisor remote (`remote.<name>.promisor`, set by `clone --on-demand`)
//   with git's own `git fetch --filter=blob:none`, which writes a pack and its `.promisor`
//   file, the mark `git fsck` and `git gc` read to know that the objects such a pack names
//   may be missing;
// - brings the contents of each fetched head with one more `git fetch` of their ids;
// - fetches any other object libgit2 is asked for and lacks through a last object database
//   backend (``fetchMissingObjects()``), one `git fetch` per object.
// Everything else (reading, merging, checking out, pushing) stays libgit2's.

extension Repository {
    /// The remotes marked `remote.<name>.promisor = true`, in the config's order.
    func promisorRemotes() throws -> [String] {
        try configStrings(matching: #"^remote\..+\.promisor$"#).compactMap { entry in
            guard ["true", "yes", "on", "1"].contains(entry.value.lowercased()) else { return nil }
            return String(entry.name.dropFirst("remote.".count).dropLast(".promisor".count))
        }
    }

    /// Marks `remote` as the remote that keeps the contents this repository leaves out, as
    /// `git clone --filter=blob:none` does (repository format 1, which git requires of a
    /// partial clone and libgit2 1.5 opens).
    func makePromisor(_ remote: String) throws {
        try setConfig("core.repositoryformatversion", "1")
        try setConfig("remote.\(remote).promisor", "true")
        try setConfig("remote.\(remote).partialclonefilter", "blob:none")
    }

    /// Fetches `refspec` from the remote `remote` with git, leaving out every file's contents
    /// (trees and commits only), into this repository's quarantine when it has one
    /// (``receiving(into:)``). Returns git's warning when the server does not filter (it then
    /// sent everything). `local`: the remote is a repository on this machine, whose
    /// `git upload-pack` is told to filter whatever its own config says.
    func fetchLeavingOutContents(
        _ refspec: String, from remote: String, local: Bool,
        settings: TransferSettings
    ) throws -> String? {
        var arguments = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--filter=blob:none"]
        if local { arguments.append("--upload-pack=" + Self.filteringUploadPack) }
        arguments += [remote, refspec]
        let errors = try runGit(arguments, input: nil, settings: settings).errors
        return errors.split(separator: "\n").first { $0.contains("filtering not recognized by server") }.map(String.init)
    }

    /// Fetches the objects `ids` (file contents) from the remote `remote` with git, into this
    /// repository's quarantine when it has one. The server must let a client ask for any
    /// object (git's protocol version 2 does, as do GitHub and GitLab).
    func fetchObjects(_ ids: [ObjectID], from remote: String, local: Bool, settings: TransferSettings) throws {
        guard !ids.isEmpty else { return }
        var arguments = [
            "-c", "fetch.negotiationAlgorithm=noop", "fetch", "--quiet", "--no-tags",
            "--no-write-fetch-head", "--filter=blob:none", "--stdin",
        ]
        if local { arguments.append("--upload-pack=" + Self.filteringUploadPack) }
        arguments.append(remote)
        _ = try runGit(arguments, input: Data(ids.map { $0.hex + "\n" }.joined().utf8), settings: settings)
    }

    /// `git upload-pack` with filters and requests for any object allowed, for a remote on
    /// this machine (git runs it in the remote's folder).
    private static let filteringUploadPack = "git -c uploadpack.allowFilter=true -c uploadpack.allowAnySHA1InWant=true upload-pack"

    /// The ids of the files in the tree of commit `head` that this repository lacks, reading
    /// only the folders whose ids differ from those at the same place in `reference`'s tree
    /// (a commit whose files are all here, or nil).
    /// `seen`: the folders and files already looked at (for other heads): not read again.
    func missingContents(of head: ObjectID, comparedWith reference: ObjectID?, seen: inout Set<ObjectID>) throws -> [ObjectID] {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer))
        defer { git_odb_free(odb) }
        // Without looking for new packs at each miss (libgit2 does by default): nothing
        // arrives while this runs, and a clone misses every file.
        func isHere(_ id: ObjectID) -> Bool {
            var raw = id.raw
            return git_odb_exists_ext(odb, &raw, UInt32(GIT_ODB_LOOKUP_NO_REFRESH.rawValue)) == 1
        }
        var missing: [ObjectID] = []
        var pending: [(tree: ObjectID, reference: ObjectID?)] = [(try commit(head).treeID, try reference.map { try commit($0).treeID })]
        while let (treeID, referenceID) = pending.popLast() {
            guard treeID != referenceID, seen.insert(treeID).inserted else { continue }
            let known =
                try referenceID.map { id in
                    Dictionary(try rawTreeEntries(id).map { ($0.name, $0.id) }, uniquingKeysWith: { first, _ in first })
                } ?? [:]
            for entry in try rawTreeEntries(treeID) {
                let before = known[entry.name]
                if before == entry.id || entry.rawMode == 0o160000 { continue }
                if entry.rawMode == 0o040000 {
                    pending.append((entry.id, before))
                } else if seen.insert(entry.id).inserted, !isHere(entry.id) {
                    missing.append(entry.id)
                }
            }
        }
        return missing
    }

    /// The files (blobs) under the entry `id`, `id` itself for a file, every file in it for a
    /// folder (whose folders are all here), split by whether their contents are here; each one
    /// here with the folder that names it (nil for `id` itself). `seen`: entries already looked
    /// at, not looked at again. Fetches nothing.
    func contents(
        under id: ObjectID, isFolder: Bool,
        seen: inout Set<ObjectID>
    ) throws -> (here: [(file: ObjectID, folder: ObjectID?)], missing: [ObjectID]) {
        var here: [(file: ObjectID, folder: ObjectID?)] = [], missing: [ObjectID] = []
        func visit(_ id: ObjectID, isFolder: Bool, in folder: ObjectID?) throws {
            guard seen.insert(id).inserted else { return }
            guard isFolder else {
                if try objectExists(id) { here.append((id, folder)) } else { missing.append(id) }
                return
            }
            for entry in try rawTreeEntries(id) where entry.rawMode != 0o160000 {
                try visit(entry.id, isFolder: entry.rawMode == 0o040000, in: id)
            }
        }
        try visit(id, isFolder: isFolder, in: nil)
        return (here, missing)
    }

    /// Every file (blob) that a commit or folder here names and this repository lacks, as
    /// git lists them (`git rev-list --objects --all --missing=print`, which fetches nothing).
    func allMissingFiles() throws -> [ObjectID] {
        let listing = try runGit(["rev-list", "--objects", "--all", "--missing=print"], input: nil, settings: TransferSettings()).output
        return String(decoding: listing, as: UTF8.self).split(separator: "\n").compactMap { line in
            line.first == "?" ? ObjectID(hex: String(line.dropFirst())) : nil
        }
    }

    /// A blob's size when its contents are here; nil when they are not (a device on demand),
    /// without fetching them.
    func blobSizeIfHere(_ id: ObjectID) throws -> Int64? {
        let fetching = fetchesMissingObjects
        fetchesMissingObjects = false
        defer { fetchesMissingObjects = fetching }
        return try objectHeader(id)?.size
    }

    /// Runs git on this repository (its quarantine in front when it has one) and returns what
    /// it wrote on standard error; a failure throws its last line, the URL's password hidden.
    /// `function`: the git command, named in the error.
    func runGit(
        _ arguments: [String], input: Data?, settings: TransferSettings,
        function: String = "git fetch"
    ) throws -> (output: Data, errors: String) {
        var environment = [
            "GIT_DIR": String(gitDirectory.dropLast()),
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_ASKPASS": "", "SSH_ASKPASS": "",
            "LC_ALL": "C",
        ]
        if let incomingObjects {
            environment["GIT_OBJECT_DIRECTORY"] = incomingObjects
            environment["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = gitDirectory + "objects"
        }
        if ProcessInfo.processInfo.environment["GIT_SSH_COMMAND"] == nil {
            // No prompt, and a server that goes quiet is left, as docver's own transport does.
            let alive = max(1, Int(settings.stallTimeout / 3))
            environment["GIT_SSH_COMMAND"] =
                "ssh -o BatchMode=yes -o ConnectTimeout=\(Int(settings.connectTimeout.rounded(.up)))"
                + " -o ServerAliveInterval=\(alive) -o ServerAliveCountMax=3"
        }
        let options = [
            // Every object is checked as it arrives, as docver's own fetch checks what it reads.
            "-c", "transfer.fsckObjects=true",
            // A pack, never loose objects: libgit2 finds a new pack when it looks again
            // after a miss, and a loose object only in its next read.
            "-c", "fetch.unpackLimit=1", "-c", "transfer.unpackLimit=1",
            "-c", "gc.auto=0", "-c", "maintenance.auto=false",
            "-c", "http.lowSpeedLimit=1", "-c", "http.lowSpeedTime=\(max(1, Int(settings.stallTimeout.rounded(.up))))",
        ]
        let outcome: Subprocess.Outcome
        do {
            // In the working tree, where git reads a relative remote path from, as libgit2 does.
            outcome = try Subprocess.run(
                ["git"] + options + arguments, input: input,
                directory: URL(fileURLWithPath: workdir ?? gitDirectory, isDirectory: true),
                environment: environment, collectingErrors: true)
        } catch {
            throw GitError(code: .other(-1), message: "cannot run git, which documents on demand need: \(error)", function: function)
        }
        let errors = String(decoding: outcome.errors, as: UTF8.self)
        guard outcome.status == 0 else {
            let lines = errors.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let last = lines.last { $0.hasPrefix("fatal:") || $0.hasPrefix("error:") } ?? lines.last ?? "git exited with status \(outcome.status)"
            var message = last
            for prefix in ["fatal: ", "error: "] where message.hasPrefix(prefix) { message = String(message.dropFirst(prefix.count)) }
            throw GitError(code: .other(-1), message: message, function: function)
        }
        return (outcome.output, errors)
    }

    /// Puts a last backend in this repository's object database that fetches, from the
    /// promisor remotes, an object no other backend has (``fetchMissing(_:)``). Called once,
    /// when the repository is opened; the backend holds this repository unretained, and the
    /// object database it belongs to is freed with the repository.
    func fetchMissingObjects() {
        var odb: OpaquePointer?
        guard git_repository_odb(&odb, pointer) == 0 else { return }
        defer { git_odb_free(odb) }
        _ = docver_add_promisor_backend(
            odb,
            { payload, id in
                guard let payload, let id else { return 0 }
                let repository = Unmanaged<Repository>.fromOpaque(payload).takeUnretainedValue()
                do {
                    try repository.fetchMissing(ObjectID(id.pointee))
                    return 0
                } catch {
                    git_error_set_str(Int32(GIT_ERROR_ODB.rawValue), "\(error)")
                    return -1
                }
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Fetches the object `id` that this repository lacks from its promisor remotes, the first
    /// that has it. Does nothing (the read then fails as "not found") in a repository with no
    /// promisor remote, in a quarantine view (a fetch's arrivals are checked with what is
    /// here, never by fetching more), or while ``fetchesMissingObjects`` is off.
    private func fetchMissing(_ id: ObjectID) throws {
        guard fetchesMissingObjects, incomingObjects == nil else { return }
        try fetchFromPromisors([id])
    }

    /// Brings the files under the entry `id` (a file, or a folder's files) that this
    /// repository lacks from its promisor remotes, in one fetch, before a caller writes the
    /// entry into a tree: libgit2 checks that a tree's objects exist without reading them, so
    /// without this a restore of a version whose contents are not here would fail as "invalid
    /// object specified". Nothing to do on a device that has every version's contents.
    func fetchMissingContents(under id: ObjectID, isFolder: Bool) throws {
        guard incomingObjects == nil else { return }
        if promisors == nil { promisors = (try? promisorRemotes()) ?? [] }
        guard promisors?.isEmpty == false else { return }
        var seen = Set<ObjectID>()
        let missing = try contents(under: id, isFolder: isFolder, seen: &seen).missing
        guard !missing.isEmpty else { return }
        try fetchFromPromisors(missing)
        refreshObjects()
    }

    /// Fetches `ids` from the first promisor remote that has them; throws one line naming
    /// each remote tried when none could.
    private func fetchFromPromisors(_ ids: [ObjectID]) throws {
        let fetch = try fetchFromPromisors(ids, settings: TransferSettings())
        guard fetch.remote == nil, !fetch.failures.isEmpty else { return }
        let what = ids.count == 1 ? "the contents \(ids[0].hex.prefix(12)) are" : "the contents of \(ids.count) files are"
        throw GitError(
            code: .notFound,
            message: "\(what) not on this device (it keeps documents on demand)"
                + " and could not be fetched from " + fetch.failures.map { "'\($0.remote)': \($0.reason)" }.joined(separator: "; "),
            function: "git fetch")
    }

    /// What ``fetchFromPromisors(_:settings:)`` did: the remote that sent the objects (nil when
    /// none did), and why each remote tried before it could not (its URL's password hidden).
    struct PromisorFetch {
        var remote: String?
        var failures: [(remote: String, reason: String)] = []
    }

    /// Fetches `ids` from the promisor remotes in the config's order, until one has sent them.
    func fetchFromPromisors(_ ids: [ObjectID], settings: TransferSettings) throws -> PromisorFetch {
        if promisors == nil { promisors = (try? promisorRemotes()) ?? [] }
        var fetch = PromisorFetch()
        for name in promisors ?? [] {
            guard let url = try configString("remote.\(name).url") else { continue }
            let local = RemoteLocation(url, relativeTo: URL(fileURLWithPath: workdir ?? gitDirectory)).isLocal
            do {
                try fetchObjects(ids, from: name, local: local, settings: settings)
                fetch.remote = name
                return fetch
            } catch let error as GitError {
                fetch.failures.append((name, RemoteLocation.redacting(error.message, of: url)))
            }
        }
        return fetch
    }
}
