import Foundation

// `docver du` and `docver gc`: what the history costs, and reclaiming what nothing references.

extension Container {
    /// What each document's and each device's history costs, and what ``collectGarbage(dryRun:)``
    /// would reclaim.
    ///
    /// Cost: one read of every reachable object (to size it), plus, per reachable commit, a
    /// comparison with its first parent that descends only into changed folders: proportional
    /// to the history, never to documents × commits. Reads only; takes no lock. On a device
    /// that keeps documents on demand, contents not on this device cost nothing here: they
    /// count 0 bytes and are not fetched (neither by ``collectGarbage(dryRun:)``).
    public func storageReport() throws -> StorageReport {
        try withRepository { repository in try storageReport(in: repository) }
    }

    /// Prunes the objects nothing references (no reference, no reflog) and repacks the rest,
    /// by running `git gc --prune=now` (libgit2 has no garbage collector): `git` must be on
    /// `PATH`.
    ///
    /// Under the writer lock, after any interrupted write is finished or rolled back, it first
    /// checks that every version docver's records name (conflict versions, their bases,
    /// resolved, removed, replaced and restored versions) is reachable from a reference, and
    /// refuses otherwise; afterwards it checks that every object reachable before is still
    /// stored. So no saved version and no conflict version is ever pruned. With `dryRun`,
    /// it only reports what it would prune.
    @discardableResult
    public func collectGarbage(dryRun: Bool = false) throws -> GarbageCollection {
        try withWriteLock { repository in
            // What is here is what costs space here: a device on demand fetches nothing to size it.
            repository.fetchesMissingObjects = false
            let database = try ObjectDatabase(repository)
            let roots = try repository.referenceRoots()
            let (commits, reachable) = try repository.reachableObjects(from: roots, in: database)
            try refuseUnreachableRecords(of: commits, reachable: reachable, database: database, in: repository)
            let report = try storageReport(commits: commits, reachable: reachable, database: database, in: repository)
            guard !dryRun else { return GarbageCollection(before: report, diskBytesAfter: report.diskBytes, dryRun: true) }

            let outcome: Subprocess.Outcome
            do {
                // Reflog entries are not expired here: the report counted what they reach as
                // kept, and the check below expects it to be.
                outcome = try Subprocess.run(
                    [
                        "git", "-c", "gc.reflogExpire=never", "-c", "gc.reflogExpireUnreachable=never",
                        "gc", "--prune=now", "--quiet",
                    ], directory: root,
                    environment: ["GIT_DIR": gitDirectory])
            } catch {
                throw DocverError.garbageCollectionFailed("cannot run git: \(error)")
            }
            // `env` exits 127 when it finds no such program.
            if outcome.status == 127 { throw DocverError.garbageCollectionFailed("git is not installed (docver gc runs 'git gc')") }
            guard outcome.status == 0 else { throw DocverError.garbageCollectionFailed("'git gc' exited with status \(outcome.status)") }

            // Whatever git did, what was reachable must still be there.
            let after = try ObjectDatabase(repository)
            for id in reachable.keys where try after.header(id) == nil {
                throw DocverError.garbageCollectionFailed("object \(id.hex) was reachable and is missing after 'git gc'")
            }
            return GarbageCollection(before: report, diskBytesAfter: objectStoreBytes(), dryRun: false)
        }
    }

    /// Packs loose objects in the background once there are more than git's `gc.auto`
    /// threshold (default 6,700), or more packs than `gc.autoPackLimit` (default 50), as
    /// `git commit` does: many small saves otherwise leave their loose files, about three
    /// times their packed size, for good, and many large ones a pack each.
    ///
    /// Runs after every command that writes (inside ``withWriteLock``). The count is git's
    /// estimate, the entries of `.git/objects/17` times 256, and the packs: two directory
    /// reads. Over either threshold, it starts `git gc --auto` detached and returns at once;
    /// git re-checks both and takes its own lock (`gc.pid`), so concurrent commands start at
    /// most one.
    /// It only packs: pruning, reflog expiry and packing references are turned off for that
    /// run, so no object is removed that is not in a pack (nothing docver's records name can
    /// go, reachable or not) and the reference files the agent watches stay where they are.
    /// Without `git` on `PATH` nothing happens; the objects stay loose, which costs only space.
    func packLooseObjectsIfNeeded(_ repository: Repository) {
        let threshold = ConfigKey.integer(ConfigKey.gitAutoPackThreshold, default: ConfigKey.gitAutoPackDefault, in: repository)
        let packLimit = ConfigKey.integer(ConfigKey.gitAutoPackLimit, default: ConfigKey.gitAutoPackLimitDefault, in: repository)
        guard threshold > 0,
            Self.looseObjectEstimateExceeds(threshold, objects: gitDirectory + "/objects")
                || Self.packCountExceeds(packLimit, objects: gitDirectory + "/objects")
        else { return }
        Subprocess.startDetached(
            [
                "git", "-c", "gc.pruneExpire=never", "-c", "gc.reflogExpire=never",
                "-c", "gc.reflogExpireUnreachable=never", "-c", "gc.packRefs=false",
                "-c", "gc.autoDetach=false", "gc", "--auto", "--quiet",
            ],
            directory: root, environment: ["GIT_DIR": gitDirectory])
    }

    /// git's `too_many_loose_objects`: more than `threshold / 256` (rounded up) loose objects
    /// in the folder `17`.
    static func looseObjectEstimateExceeds(_ threshold: Int, objects: String) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: objects + "/17") else { return false }
        let limit = (threshold + 255) / 256
        var count = 0
        for name in names where name.utf8.count == 38 && name.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) {
            count += 1
            if count > limit { return true }
        }
        return false
    }

    /// git's `too_many_packs`: more than `limit` packs (0: no limit). A save of many
    /// documents writes a pack of its own (``ConfigKey/saveUnpackLimit``), so packs add up
    /// as loose objects do, and `git gc --auto` puts them together past git's limit.
    static func packCountExceeds(_ limit: Int, objects: String) -> Bool {
        guard limit > 0, let names = try? FileManager.default.contentsOfDirectory(atPath: objects + "/pack") else { return false }
        return names.lazy.filter { $0.hasSuffix(".idx") }.count > limit
    }

    private func storageReport(in repository: Repository) throws -> StorageReport {
        // What is here is what costs space here: a device on demand fetches nothing to size it.
        repository.fetchesMissingObjects = false
        let database = try ObjectDatabase(repository)
        let (commits, reachable) = try repository.reachableObjects(from: repository.referenceRoots(), in: database)
        return try storageReport(commits: commits, reachable: reachable, database: database, in: repository)
    }

    private func storageReport(
        commits: [ObjectID], reachable: [ObjectID: StoredObjectHeader], database: ObjectDatabase,
        in repository: Repository
    ) throws -> StorageReport {
        var documents: [String: Set<ObjectID>] = [:]
        var devices: [String: (name: String, contents: Set<ObjectID>)] = [:]
        for id in commits {
            let commit = try repository.commit(id)
            let tree = commit.treeID
            let parentTree = try commit.parentIDs.first.flatMap { parent in
                try reachable[parent] == nil ? nil : repository.commit(parent).treeID
            }
            let device = commit.device
            let isIntegration = device == CommitIdentity.integrationDevice
            let root = try repository.tree(tree)
            for path in try repository.changedPaths(from: parentTree, to: tree) {
                guard let entry = try root.entry(atPath: path), entry.mode.isBlob else { continue }
                // The key-value store's files count as one entry, its folder.
                let name = DocumentPath.isReserved(path) ? DocumentPath.reservedArea : DocumentPath.document(containingFile: path).path
                documents[name, default: []].insert(entry.id)
                if !isIntegration {
                    devices[device.id, default: (device.name, [])].contents.insert(entry.id)
                }
            }
        }
        func size(_ contents: Set<ObjectID>) -> Int64 { contents.reduce(0) { $0 + (reachable[$1]?.size ?? 0) } }
        func sorted(_ usages: [StorageReport.Usage]) -> [StorageReport.Usage] {
            usages.sorted { ($0.bytes, $1.name) > ($1.bytes, $0.name) }
        }
        let stored = try database.allObjectIDs()
        var unreachableObjects = 0
        var unreachableBytes: Int64 = 0
        for id in stored where reachable[id] == nil {
            unreachableObjects += 1
            unreachableBytes += try database.header(id)?.size ?? 0
        }
        return StorageReport(
            documents: sorted(documents.map { .init(name: $0.key, displayName: nil, objects: $0.value.count, bytes: size($0.value)) }),
            devices: sorted(
                devices.map { .init(name: $0.key, displayName: $0.value.name, objects: $0.value.contents.count, bytes: size($0.value.contents)) }),
            commits: commits.count,
            reachableObjects: reachable.count,
            reachableBytes: reachable.values.reduce(0) { $0 + $1.size },
            unreachableObjects: unreachableObjects,
            unreachableBytes: unreachableBytes,
            diskBytes: objectStoreBytes())
    }

    /// Refuses when a version named by a record docver honours is stored but no reference
    /// reaches it: `git gc` would prune it.
    private func refuseUnreachableRecords(
        of commits: [ObjectID], reachable: [ObjectID: StoredObjectHeader],
        database: ObjectDatabase, in repository: Repository
    ) throws {
        for id in commits {
            let trailers = try repository.commit(id).trailers
            let trust = RecordTrust(trailers)
            var named: [String] = []
            for trailer in trailers where trust.honours(trailer.key) {
                if trailer.key == Trailer.conflict, let record = ConflictRecord(trailerValue: trailer.value) {
                    named += [record.version] + [record.base].compactMap { $0 }
                } else if trailer.key == Trailer.restored, let record = VersionRecord(trailerValue: trailer.value) {
                    named.append(record.version)
                }
            }
            named += Decision(trailers: trailers).records.map(\.version.version)
            for hex in named {
                guard let version = ObjectID(hex: hex), reachable[version] == nil, try database.header(version) != nil else { continue }
                throw DocverError.garbageCollectionFailed(
                    "version \(hex.prefix(12)) named by commit \(id.hex.prefix(12)) is reachable from no reference; nothing was pruned")
            }
        }
    }

    /// Bytes of the files under `.git/objects`.
    private func objectStoreBytes() -> Int64 {
        let objects = URL(fileURLWithPath: gitDirectory).appendingPathComponent("objects")
        guard let files = FileManager.default.enumerator(at: objects, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey]) else { return 0 }
        var total: Int64 = 0
        for case let file as URL in files {
            guard let values = try? file.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey]), values.isRegularFile == true else { continue }
            total += Int64(values.fileSize ?? 0)
        }
        return total
    }
}
