import Foundation

extension Container {
    /// Adds a remote: any URL libgit2 understands (a path, file://, git://, ssh://, https://).
    ///
    /// A local path that does not exist fails here (``DocverError/noRepositoryAt(_:)``), not
    /// at the first sync; ``addRemote(_:location:creatingRepository:)`` also checks that it is
    /// a bare repository, and can create one.
    public func addRemote(_ name: String, url: String) throws {
        guard Remote.isValidName(name) else { throw DocverError.invalidRemoteName(name) }
        if case let .local(path) = RemoteLocation(url, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)),
            FileStat(path: path) == nil
        {
            throw DocverError.noRepositoryAt(path)
        }
        try withWriteLock { repository in
            guard try Remote.lookup(name, in: repository) == nil else { throw DocverError.remoteExists(name) }
            _ = try Remote.create(name, url: url, fetchSpec: RefName.fetchSpec(name), in: repository)
        }
    }

    /// The configured remotes.
    public func remotes() throws -> [RemoteInfo] {
        try withRepository { repository in
            try Remote.names(in: repository).compactMap { name in
                try Remote.lookup(name, in: repository).map { RemoteInfo(name: name, url: $0.url) }
            }
        }
    }

    /// A new device joins: creates a container at `destination` for `device` from the remote
    /// at `url` (named `origin`) and brings in every device's saves.
    ///
    /// A local `url` must be a bare repository (``checkRemoteRepository(at:)``) and a network
    /// one must have a supported scheme; both are checked before anything is created.
    ///
    /// `progress` receives the transfer's progress (objects and bytes received) while it runs.
    ///
    /// With `onDemand`, the device keeps documents on demand: it receives every version's
    /// commit and folders but only the contents of each device's newest saves, and fetches an
    /// older version's contents from the remote when a command needs them (a partial clone,
    /// with git's `blob:none` filter; docs/ARCHITECTURE.md, "Documents on demand"). git must
    /// be installed; the remote must allow filters (`uploadpack.allowFilter`, which GitHub and
    /// GitLab allow, and which docver turns on for a remote on this machine).
    @discardableResult
    public static func clone(
        from url: String, to destination: URL, device: Device, onDemand: Bool = false,
        progress: TransferProgressHandler? = nil
    ) throws -> (container: Container, report: SyncReport) {
        let path = destination.standardizedFileURL.path
        // What the sync would find wrong with the remote, found before anything is created.
        let location = RemoteLocation(url, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        switch location {
        case let .local(repository): try checkRemoteRepository(at: repository)
        case .network: if !location.isSupported { throw DocverError.unsupportedRemoteURL(url) }
        }
        if let contents = try? FileSystem.contentsOfDirectory(path), !contents.isEmpty {
            throw DocverError.destinationNotEmpty(path)
        }
        // The clone is made in a hidden sibling and renamed into place once it is complete: a
        // clone killed at any moment leaves either nothing at `path` or a whole container, and
        // the next clone removes what a killed one left beside it.
        let parent = (path as NSString).deletingLastPathComponent
        try DocverError.wrapping { try FileSystem.createDirectory(parent) }
        removeAbandonedClones(of: path)
        // A destination that is a mount point cannot be renamed onto: the clone is made in it.
        let inPlace = FileStat(path: path).map { $0.device != FileStat(path: parent)?.device } ?? false
        let temporary = inPlace ? path : parent + "/" + Self.clonePrefix(of: path) + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let container = try DocverError.wrapping(writing: temporary) { () -> Container in
            let repository = try Repository.create(at: temporary, initialHead: device.branch)
            try configure(repository, for: device)
            return try Container(at: URL(fileURLWithPath: temporary, isDirectory: true))
        }
        do {
            try container.addRemote("origin", url: url)
            if onDemand { try container.withWriteLock { try $0.makePromisor("origin") } }
            let report = try container.sync(["origin"], progress: progress)
            // On disk before the name that makes it a container appears.
            AtomicFile.syncFileSystem(containing: temporary)
            // rename(2) replaces an empty folder (clone was given one) and refuses a full one.
            guard inPlace || rename(temporary, path) == 0 else {
                let code = errno
                if code == ENOTEMPTY || code == EEXIST { throw DocverError.destinationNotEmpty(path) }
                throw DocverError.system(SystemError("move the clone to", path, reason: String(cString: strerror(code))))
            }
            return (try Container(at: destination), report)
        } catch {
            // Leave no half-made container behind.
            try? FileSystem.remove(temporary)
            throw error
        }
    }

    /// `.notes.docver-clone-` for a clone into `…/notes`: the start of the name of the hidden
    /// sibling a clone is made in, followed by the cloning process's id and a random number.
    static func clonePrefix(of path: String) -> String {
        "." + (path as NSString).lastPathComponent + ".docver-clone-"
    }

    /// Removes the siblings that clones into `path` killed before they finished left behind
    /// (their process is gone); one whose process still runs is left alone.
    private static func removeAbandonedClones(of path: String) {
        let parent = (path as NSString).deletingLastPathComponent
        let prefix = clonePrefix(of: path)
        for name in (try? FileSystem.contentsOfDirectory(parent)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = name.dropFirst(prefix.count).split(separator: "-").first.flatMap({ Int32($0) }) else { continue }
            if pid != getpid(), kill(pid, 0) != 0, errno == ESRCH { try? FileSystem.remove(parent + "/" + name) }
        }
    }

    /// Saves unsaved edits, fetches every device's branch from the remotes (all when none are
    /// named), integrates them, updates the working tree, and pushes this device's branch.
    ///
    /// Only this device's branch is ever pushed, and never forced: if the remote refuses it,
    /// docver fetches again, integrates and retries.
    ///
    /// A remote that cannot be reached, refuses the push or is no bare repository any more
    /// does not stop the sync with the others. With one remote its error is thrown
    /// (``DocverError/remote(name:message:)``, ``DocverError/pushRejected(remote:message:)``,
    /// ``DocverError/remoteUnusable(name:problem:)``); with several, once every remote was
    /// tried, ``DocverError/syncIncomplete(_:)`` with the report of what was done. Either way
    /// the saves stay here, and what was integrated stays integrated.
    ///
    /// `savingFirst` names the documents saved first (nil: every changed document). The agent
    /// passes the ones it knows to be quiet, so a file still being written is not saved
    /// half-written; files with unsaved edits are never overwritten by the update either way.
    ///
    /// `progress` receives each fetch's and push's progress (objects and bytes) while it runs,
    /// on this thread.
    @discardableResult
    public func sync(
        _ remoteNames: [String]? = nil, savingFirst documents: [DocumentPath]? = nil,
        progress: TransferProgressHandler? = nil
    ) throws -> SyncReport {
        try withWriteLock { repository in
            var report = SyncReport()
            let names = try remoteNames ?? Remote.names(in: repository)
            guard !names.isEmpty else { throw DocverError.noRemotes }
            let remotes = try names.map { name -> (String, Remote) in
                guard let remote = try Remote.lookup(name, in: repository) else { throw DocverError.noSuchRemote(name) }
                return (name, remote)
            }
            if documents != [] { report.savedBeforeSync = try save(documents, message: nil, in: repository) }
            let before = try headCommit(repository)
            // A remote that fails is left out, and the sync goes on with the others: one
            // unreachable remote does not keep this device's saves from the reachable ones.
            let (reachedNames, admitted) = try receive(
                remotes.map(\.0), report: &report, progress: progress,
                collectingFailures: true, in: repository)
            let reached = remotes.filter { reachedNames.contains($0.0) }
            if !reached.isEmpty {
                try integrateFetched(report: &report, admitted: admitted, in: repository)
                for (name, remote) in reached {
                    do {
                        try push(remote, named: name, report: &report, progress: progress, in: repository)
                        report.synced.append(name)
                    } catch let error as DocverError where error.concernsOneRemote {
                        report.unreachable.append(RemoteFailure(remote: name, error: error))
                    }
                }
                if let after = try headCommit(repository) {
                    try describeChanges(from: before, to: after, in: repository, into: &report)
                    try checkClocks(from: before, to: after, in: repository, into: &report)
                }
            }
            if let failure = report.unreachable.first {
                // With one remote its own error says it all, as it did before syncs went on past a failure.
                throw remotes.count == 1 ? failure.error : DocverError.syncIncomplete(report)
            }
            return report
        }
    }

    /// A local remote must still be a bare repository when the sync starts: libgit2 would say
    /// "unsupported URL protocol" for a path that has gone, and refuse to push into a working
    /// tree only after the fetch.
    private func checkLocalRepository(of remote: Remote, named name: String) throws {
        guard case let .local(path) = RemoteLocation(remote.url, relativeTo: root) else { return }
        do {
            try Self.checkRemoteRepository(at: path)
        } catch let problem as DocverError {
            throw DocverError.remoteUnusable(name: name, problem: problem)
        }
    }

    /// Integrates the device branches already fetched (by an earlier sync, or by a plain
    /// `git fetch` with docver's refspec) without contacting any remote. Unsaved edits are
    /// saved first, as in ``sync(_:)``.
    @discardableResult
    public func integrate() throws -> SyncReport {
        try withWriteLock { repository in
            var report = SyncReport()
            report.savedBeforeSync = try save(nil, message: nil, in: repository)
            let before = try headCommit(repository)
            try integrateFetched(report: &report, in: repository)
            if let after = try headCommit(repository) {
                try describeChanges(from: before, to: after, in: repository, into: &report)
                try checkClocks(from: before, to: after, in: repository, into: &report)
            }
            return report
        }
    }

    private func fetch(
        _ remote: Remote, named name: String, report: inout SyncReport,
        progress: TransferProgressHandler? = nil, in repository: Repository
    ) throws {
        let prefix = RefName.trackingPrefix(name)
        let before = Dictionary(uniqueKeysWithValues: try repository.references(matching: prefix + "*").map { ($0.name, $0.target) })
        let reportProgress = progress.map { handler in
            { (counts: TransferCounts) in handler(TransferProgress(remote: name, direction: .fetch, counts)) }
        }
        do {
            // A bare repository on this machine: its packs are indexed here directly (see
            // Repository+LocalFetch.swift), the transport only when that cannot bring everything.
            let fetchedLocally: Bool
            if try repository.promisorRemotes().contains(name) {
                try fetchOnDemand(remote, named: name, before: before, report: &report, in: repository)
                fetchedLocally = true
            } else if case let .local(path) = RemoteLocation(remote.url, relativeTo: root) {
                fetchedLocally = try repository.fetchLocally(
                    from: path, sourcePrefix: String(RefName.allDeviceBranches.dropLast()),
                    destinationPrefix: prefix, message: "docver: fetch", bigSize: try bigBlobSize(repository),
                    progress: reportProgress)
            } else {
                fetchedLocally = false
            }
            if !fetchedLocally {
                try remote.fetch([RefName.fetchSpec(name)], settings: transferSettings(repository), progress: reportProgress)
            }
        } catch let error as GitError where error.isNoSpaceLeft {
            // This device's disk: nothing fetched from any remote could be kept.
            throw DocverError.noSpaceLeft(path: error.quotedPath ?? gitDirectory, remote: nil)
        } catch let error as GitError {
            // A message that quotes the URL must not show a password written into it.
            throw DocverError.remote(name: name, message: RemoteLocation.redacting(error.message, of: remote.url))
        }
        let head = try headCommit(repository)
        for (reference, target) in try repository.references(matching: prefix + "*") {
            guard let old = before[reference], old != target, try !repository.isDescendant(target, of: old) else { continue }
            // The remote's history of this device was rewritten. Keep what we had seen.
            let device = String(reference.dropFirst(prefix.count))
            report.warnings.append("the branch of device '\(device)' on '\(name)' was rewritten; the saves seen before are kept")
            if let head, try repository.isAncestorOrSame(old, of: head) { continue }
            try repository.forceReference(
                RefName.kept(remote: name, device: device, commit: old.hex), to: old,
                message: "docver: keep saves from a rewritten branch")
        }
    }

    /// Fetches from a promisor remote (a device that joined with `clone --on-demand`): every
    /// device's commits and folders, then the contents of each fetched head, never those of
    /// older versions (Repository+OnDemand.swift). Each head's contents are compared with
    /// those of the head this device had from that branch (or with this device's own head),
    /// which are here already.
    private func fetchOnDemand(
        _ remote: Remote, named name: String, before: [String: ObjectID],
        report: inout SyncReport, in repository: Repository
    ) throws {
        let settings = try transferSettings(repository)
        let local = RemoteLocation(remote.url, relativeTo: root).isLocal
        if try repository.fetchLeavingOutContents(RefName.fetchSpec(name), from: name, local: local, settings: settings) != nil {
            report.warnings.append(
                "'\(name)' does not leave out old versions' contents (uploadpack.allowFilter is off there): this device received every version")
        }
        let head = try headCommit(repository)
        var missing: [ObjectID] = []
        var seen = Set<ObjectID>()
        let after = try repository.references(matching: RefName.trackingPrefix(name) + "*")
        for (reference, target) in after where before[reference] != target {
            missing += try repository.missingContents(of: target, comparedWith: before[reference] ?? head, seen: &seen)
        }
        do {
            try repository.fetchObjects(missing, from: name, local: local, settings: settings)
        } catch {
            // The heads go back to what they were: a head stays only with its contents, so
            // the next sync compares with a head whose contents are all here, and fetches
            // what this one could not.
            for (reference, target) in after where before[reference] != target {
                if let old = before[reference] {
                    try? repository.forceReference(reference, to: old, message: "docver: fetch without contents undone")
                } else {
                    try? repository.deleteReference(reference, expected: target)
                }
            }
            throw error
        }
    }

    /// Fetches from the remotes `names` into a quarantine (Repository+Incoming.swift), checks
    /// what arrived (``checkArrivals(trusting:view:report:)``), and moves into the object
    /// database only what the accepted heads need: a refused head leaves nothing behind.
    /// Returns the remotes fetched from and the heads accepted. With `collectingFailures`, a
    /// remote that fails is recorded in the report and the others are fetched; without, its
    /// error is thrown.
    private func receive(
        _ names: [String], report: inout SyncReport, progress: TransferProgressHandler?,
        collectingFailures: Bool, in repository: Repository
    ) throws -> (reached: [String], admitted: Set<ObjectID>) {
        try repairDanglingTrackingBranches(repository)
        let incoming = try DocverError.wrapping { try repository.createIncomingObjects() }
        defer { try? FileManager.default.removeItem(atPath: incoming) }
        let view = try repository.receiving(into: incoming)
        var reached: [String] = []
        for name in names {
            do {
                guard let remote = try Remote.lookup(name, in: view) else { throw DocverError.noSuchRemote(name) }
                try checkLocalRepository(of: remote, named: name)
                try fetch(remote, named: name, report: &report, progress: progress, in: view)
                reached.append(name)
            } catch let error as DocverError where error.concernsOneRemote && collectingFailures {
                report.unreachable.append(RemoteFailure(remote: name, error: error))
            }
        }
        let trusted = try headCommit(repository)
        let checked = try checkArrivals(trusting: trusted, view: view, report: &report)
        try DocverError.wrapping {
            // A device on demand keeps everything git's fetch checked (transfer.fsckObjects): a
            // refused head's objects stay, unreferenced, since a pack without the contents it
            // names cannot be rewritten by libgit2's pack builder.
            if checked.discarded, try repository.promisorRemotes().isEmpty {
                let known =
                    try [trusted].compactMap { $0 } + repository.references(matching: RefName.allTrackingBranches).map(\.target)
                    + repository.references(matching: RefName.allKept).map(\.target)
                try repository.admitIncoming(from: incoming, view: view, heads: Array(checked.admitted), known: known)
            } else {
                try repository.admitAllIncoming(from: incoming)
            }
        }
        return (reached, checked.admitted)
    }

    /// Integrates every fetched device head (and any kept one) into this device's branch.
    /// Heads in `admitted` were checked when they arrived.
    private func integrateFetched(report: inout SyncReport, admitted: Set<ObjectID> = [], in repository: Repository) throws {
        let attempts = 100
        for _ in 0..<attempts {
            let old = try headCommit(repository)
            let heads = try validHeads(trusting: old, admitted: admitted, report: &report, in: repository)
            let integration = try integrate(heads, into: old, in: repository)
            guard let new = integration.head, new != old else { return }
            do {
                try advanceBranch(to: new, from: old, message: "docver: integrate", in: repository)
            } catch let error as GitError where [.modified, .exists].contains(error.code) {
                continue  // a plain git commit landed meanwhile: integrate again
            }
            report.integrated = true
            for record in integration.conflicts {
                report.newConflicts[DocumentPath(trusted: record.path), default: []].append(record.version)
            }
            return
        }
        throw DocverError.branchKeptChanging(attempts: attempts)
    }

    /// Every fetched device head (and kept one) that passes ``ArrivalValidator``. A head that
    /// fails is left out with a warning naming its branch, and its reference is deleted (the
    /// next fetch brings it again, to be checked again): it cannot move this device's branch
    /// or reach the working tree, and the other devices' saves are integrated as usual.
    /// Heads in `admitted` were checked already, when they arrived.
    private func validHeads(
        trusting trusted: ObjectID?, admitted: Set<ObjectID>, report: inout SyncReport,
        in repository: Repository
    ) throws -> [ObjectID] {
        let references =
            try repository.references(matching: RefName.allTrackingBranches)
            + repository.references(matching: RefName.allKept)
        if references.allSatisfy({ admitted.contains($0.target) }) { return references.map(\.target) }
        return try checkArrivals(trusting: trusted, view: repository, report: &report).accepted
    }

    /// Checks every fetched device head (and kept one), reading objects through `view` (the
    /// repository, or the repository with the quarantine of a fetch). A head that fails
    /// ``ArrivalValidator`` or, with `docver.allowedSigners`, holds a save not signed by the
    /// device it claims, is refused: a warning names its branch and its reference is deleted
    /// (the next fetch brings it again, to be checked again). A head refused for a signature
    /// is kept under `refs/docver/refused/` for inspection; its objects are admitted but
    /// never integrated. Returns the heads accepted (to integrate), the heads whose objects
    /// are to be kept, and whether the objects of some head are to be discarded.
    private func checkArrivals(
        trusting trusted: ObjectID?, view repository: Repository,
        report: inout SyncReport
    ) throws -> (accepted: [ObjectID], admitted: Set<ObjectID>, discarded: Bool) {
        let references =
            try repository.references(matching: RefName.allTrackingBranches)
            + repository.references(matching: RefName.allKept)
        var validator = ArrivalValidator(
            repository: repository, maximumDocumentSize: try maximumDocumentSize(repository),
            contentsMayBeMissing: try !repository.promisorRemotes().isEmpty)
        let policy = try SigningPolicy(repository: repository)
        // A head that passed these checks before, under the same settings, is not read again: a
        // check is a fact about immutable objects, and `integrate` after a sync, or a sync that
        // brought one device's saves, would otherwise check every other device's line again.
        // The check read what the head brings beyond this device's head of then, so it holds
        // while that head is in this device's history (a branch moved back, past commits it
        // took without checks, say a `git pull`, has the head checked again).
        let settings = CheckedHeadsFile.settings(
            maximumDocumentSize: validator.maximumDocumentSize, contentsMayBeMissing: validator.contentsMayBeMissing)
        let checkedBefore = CheckedHeadsFile.read(files.checkedHeads, settings: settings)
        func checkedAlready(_ head: ObjectID) throws -> Bool {
            guard let recorded = checkedBefore[head] else { return false }
            guard let against = recorded else { return true }
            guard let trusted else { return false }
            return try repository.isAncestorOrSame(against, of: trusted)
        }
        var checked: [ObjectID: ObjectID?] = [:]
        defer {
            // (Only the heads referenced now: the file stays as small as the list of devices.
            // Best effort: failing to write costs a check next time.)
            if checked != checkedBefore {
                try? AtomicFile.write(CheckedHeadsFile.render(checked, settings: settings), to: files.checkedHeads, flush: false)
            }
        }
        var accepted: [ObjectID] = [], admitted = Set<ObjectID>(), discarded = false
        for (name, target) in references {
            if let trusted, try repository.isAncestorOrSame(target, of: trusted) {
                accepted.append(target)
                admitted.insert(target)
                continue
            }
            let branch = name.hasPrefix("refs/remotes/") ? String(name.dropFirst("refs/remotes/".count)) : name
            let owner = RefName.remoteAndDevice(of: name)
            let checkedThen = try checkedAlready(target)
            if !checkedThen, let problem = validator.problem(in: target, trusting: trusted, device: owner?.device ?? branch) {
                let warning = "refused the saves of '\(branch)': \(problem); nothing from that branch was integrated"
                if !report.warnings.contains(warning) { report.warnings.append(warning) }
                // Forget the refused head: libgit2 reads local references when it negotiates
                // the next fetch, and an unparsable commit there would make every fetch fail.
                try repository.deleteReference(name, expected: target)
                discarded = true
                continue
            }
            checked[target] = checkedThen ? checkedBefore[target] ?? trusted : trusted
            if let policy, let owner,
                let problem = try signatureProblem(
                    in: target, device: owner.device, trusting: trusted,
                    policy: policy, in: repository)
            {
                let kept = RefName.refused(remote: owner.remote, device: owner.device, commit: target.hex)
                try repository.forceReference(kept, to: target, message: "docver: keep a head refused for its signatures")
                let warning =
                    "refused the saves of '\(branch)': \(problem); nothing from that branch was integrated"
                    + " (kept as \(kept) for inspection)"
                if !report.warnings.contains(warning) { report.warnings.append(warning) }
                try repository.deleteReference(name, expected: target)
                admitted.insert(target)
                continue
            }
            accepted.append(target)
            admitted.insert(target)
        }
        return (accepted, admitted, discarded)
    }

    /// With `docver.allowedSigners`: the first commit `head` brings (beyond `trusted`) that is
    /// not signed by a key allowed for the device it belongs to — `device` for the commits on
    /// the branch's own line (first parents), the device a commit names for the commits it
    /// integrated from others. Integration commits are not signed (every device must write
    /// the same one) and are not checked: docs/SECURITY.md, "Signed saves".
    private func signatureProblem(
        in head: ObjectID, device: String, trusting trusted: ObjectID?, policy: SigningPolicy,
        in repository: Repository
    ) throws -> String? {
        let walk = try repository.revwalk(from: [head], hiding: trusted.map { [$0] } ?? [], topological: true)
        var arriving: [ObjectID] = []
        while let id = try walk.next() { arriving.append(id) }
        let arrivingSet = Set(arriving)
        var ownLine = Set<ObjectID>()
        var next: ObjectID? = head
        while let id = next, arrivingSet.contains(id), !ownLine.contains(id) {
            ownLine.insert(id)
            next = try repository.commit(id).parentIDs.first
        }
        for id in arriving.reversed() {
            let commit = try repository.commit(id)
            let trailers = commit.trailers
            // (An "integration" of one parent integrates nothing: a save, to be signed.)
            if commit.parentIDs.count >= 2, trailers.contains(where: { $0.key == Trailer.integration }) { continue }
            let signer = ownLine.contains(id) ? device : trailers.first(where: { $0.key == Trailer.device })?.value
            guard let signer else { return "commit \(id.hex.prefix(12)) names no device and is not signed (docver.allowedSigners)" }
            if try !policy.verifies(commit, as: signer, in: repository) {
                return "commit \(id.hex.prefix(12)) is not signed by device '\(signer)' (docver.allowedSigners)"
            }
        }
        return nil
    }

    /// The size from which a blob moves to or from a repository on this machine in a pack of
    /// whole objects that docver writes or checks itself, a piece at a time: 8 MiB, or git's
    /// `core.bigFileThreshold` when that is lower (docs/FORMAT.md, "Remotes").
    func bigBlobSize(_ repository: Repository) throws -> Int64 {
        let threshold = try ConfigKey.byteSize(ConfigKey.bigFileThreshold, default: ConfigKey.defaultBigFileThreshold, in: repository)
        return max(1, min(Repository.pieceByPieceSize, threshold ?? Repository.pieceByPieceSize))
    }

    /// `docver.maxDocumentSize` in bytes; nil when it is 0 (no limit).
    func maximumDocumentSize(_ repository: Repository) throws -> Int64? {
        try ConfigKey.byteSize(ConfigKey.maximumDocumentSize, default: ConfigKey.defaultMaximumDocumentSize, in: repository)
    }

    private func push(
        _ remote: Remote, named name: String, report: inout SyncReport,
        progress: TransferProgressHandler?, in repository: Repository
    ) throws {
        guard try headCommit(repository) != nil else { return }
        let spec = RefName.pushSpec(device)
        let settings = try transferSettings(repository)
        var lastReason = ""
        for _ in 0..<5 {
            let rejected: [String: String]
            var messages: [String] = []
            do {
                let counts = progress.map { handler in
                    { (counts: TransferCounts) in handler(TransferProgress(remote: name, direction: .push, counts)) }
                }
                // Big documents to a repository on this machine go a piece at a time.
                if let path = remote.localPath,
                    let refusals = try repository.pushStreamingBigBlobs(
                        branch: device.branch, to: path, bigSize: try bigBlobSize(repository), progress: counts)
                {
                    rejected = refusals
                } else {
                    (rejected, messages) = try remote.push([spec], settings: settings, progress: counts)
                }
            } catch let error as GitError where error.isNoSpaceLeft {
                // Most likely the remote's disk (a repository on this machine): named by the
                // path libgit2 gives, else by the remote's.
                let place = error.quotedPath ?? RemoteLocation.redacted(remote.url)
                throw DocverError.noSpaceLeft(path: place, remote: name)
            } catch let error as GitError where error.code != .nonFastForward {
                throw DocverError.remote(name: name, message: RemoteLocation.redacting(error.message, of: remote.url))
            } catch let error as GitError {
                rejected = [device.branch: error.message]
            }
            guard let reason = rejected[device.branch].map({ RemoteLocation.redacting($0, of: remote.url) }) else {
                report.pushed.append(name)
                return
            }
            // A refusal that is not about the branch having moved (a hook, a policy, a full
            // disk) would be refused again: report it, with the remote's last words.
            guard Self.isRetryable(reason) else {
                let said = messages.last.map { " (the remote said: \(RemoteLocation.redacting($0, of: remote.url)))" } ?? ""
                throw DocverError.pushRejected(remote: name, message: Remote.oneLine(reason) + said)
            }
            lastReason = reason
            // A push to a repository on this machine that was killed while it updated this
            // device's branch there left the branch's lock file, and every later push is
            // refused: a lock that no process holds is removed, as the local ones are.
            if reason.lowercased().contains("lock"), let path = remote.localPath,
                StaleLock.removeIfStale(path + "/" + device.branch + ".lock")
            {
                report.warnings.append("removed a stale lock file that no process held on '\(name)': \(device.branch).lock")
                continue
            }
            // Someone else moved this device's branch on the remote: bring it in and retry.
            report.warnings.append("push to '\(name)' was refused (\(reason)); integrating and retrying")
            let (_, admitted) = try receive([name], report: &report, progress: progress, collectingFailures: false, in: repository)
            try integrateFetched(report: &report, admitted: admitted, in: repository)
        }
        throw DocverError.pushRejected(remote: name, message: "the remote kept refusing this device's branch: " + Remote.oneLine(lastReason))
    }
}

extension Container {
    /// Whether a push refusal means the branch moved on the remote (integrating and pushing
    /// again can succeed), as git's receive-pack and libgit2 word it.
    static func isRetryable(_ reason: String) -> Bool {
        let lowered = reason.lowercased()
        return ["fast-forward", "fastforward", "fetch first", "stale", "lock"].contains { lowered.contains($0) }
    }

    /// How remotes are reached, from the repository's config (docs/FORMAT.md, "Configuration").
    func transferSettings(_ repository: Repository) throws -> TransferSettings {
        var settings = TransferSettings()
        func seconds(_ key: String) throws -> Double? {
            guard let text = try repository.configString(key) else { return nil }
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value >= 0.1, value <= 86_400 else {
                throw DocverError.invalidValue("'\(text)' for \(key): give seconds from 0.1 to 86400")
            }
            return value
        }
        func path(_ key: String) throws -> String? {
            guard let text = try repository.configString(key), !text.isEmpty else { return nil }
            if text == "~" || text.hasPrefix("~/") {
                let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
                return home + text.dropFirst()
            }
            return text
        }
        if let value = try seconds(ConfigKey.networkConnectTimeout) { settings.connectTimeout = value }
        if let value = try seconds(ConfigKey.networkStallTimeout) { settings.stallTimeout = value }
        settings.sshKey = try path(ConfigKey.networkSSHKey)
        if let file = try path(ConfigKey.networkKnownHosts) { settings.knownHosts = [file] }
        if let file = try path(ConfigKey.networkTrustedCertificates) {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw DocverError.invalidValue("cannot read \(file) (\(ConfigKey.networkTrustedCertificates))")
            }
            settings.trustedCertificates = TransferSettings.certificates(inPEM: text)
        }
        settings.credentialDirectory = root
        return settings
    }
}

extension TransferProgress {
    init(remote: String, direction: Direction, _ counts: TransferCounts) {
        self.init(
            remote: remote, direction: direction, objects: counts.objects, totalObjects: counts.totalObjects,
            indexedObjects: counts.indexedObjects, bytes: counts.bytes)
    }
}
