import Foundation

/// A document container: an ordinary git repository whose working tree holds the documents,
/// seen from one device.
///
/// `Container` is a value holding the container's location and this device's identity; every
/// operation opens the repository afresh, so containers can be shared across tasks and several
/// processes can use the same container at once.
public struct Container: Sendable {
    /// The root of the working tree.
    public let root: URL
    /// This device: every save is a commit on its own branch.
    public let device: Device
    /// The repository's git directory (usually `root/.git`; elsewhere for worktrees).
    let gitDirectory: String
    /// Receives one line each time docver repairs what a killed process left behind (a stale
    /// lock file, an interrupted write it finished or rolled back). nil: repairs are silent.
    public var onRepair: (@Sendable (String) -> Void)?
    /// False for the agent's own container: it never asks itself over its socket.
    var asksAgent = true
    /// The date of this device's saves (a test's own sequence replays a session exactly).
    var commitClock = CommitClock.system

    /// Opens the container at `url`, or the nearest one above it (like git).
    public init(at url: URL) throws {
        let repository: Repository
        do {
            repository = try Repository(opening: url.path, search: true)
        } catch let error as GitError where error.code == .notFound {
            throw DocverError.notAContainer(path: url.path)
        } catch let error as GitError { throw DocverError.git(error) }
        guard let workdir = repository.workdir else { throw DocverError.bareRepository(path: url.path) }
        guard let id = try DocverError.wrapping({ try repository.configString(ConfigKey.device) }),
            Device.isValidID(id)
        else { throw DocverError.notAContainer(path: String(workdir.dropLast())) }
        let name = (try? repository.configString(ConfigKey.deviceName)) ?? nil
        self.root = URL(fileURLWithPath: String(workdir.dropLast()), isDirectory: true)
        self.device = Device(unchecked: id, name: name ?? id)
        self.gitDirectory = String(repository.gitDirectory.dropLast())
        // Every file docver opens there is opened without following a link; the folder
        // itself is checked once here, before any command uses it.
        if FileStat(path: files.directory)?.isSymbolicLink == true { throw DocverError.localFolderIsLink(files.directory) }
    }

    /// Creates a container at `url` for `device`, or adopts the git repository already there
    /// (its history is kept and the device's branch starts from its current commit).
    ///
    /// Running it again on a container is allowed only when it would change nothing.
    @discardableResult
    public static func create(at url: URL, device: Device) throws -> Container {
        try DocverError.wrapping {
            let path = url.standardizedFileURL.path
            let repository: Repository
            if let existing = try? Repository(opening: path, search: false) {
                guard !existing.isBare else { throw DocverError.bareRepository(path: path) }
                if let current = try existing.configString(ConfigKey.device) {
                    let currentName = try existing.configString(ConfigKey.deviceName) ?? current
                    guard current == device.id, currentName == device.name else {
                        throw DocverError.alreadyAContainer(path: path, device: current)
                    }
                    return try Container(at: url)
                }
                repository = existing
                try adopt(repository, for: device)
            } else {
                repository = try Repository.create(at: path, initialHead: device.branch)
            }
            try configure(repository, for: device)
            return try Container(at: url)
        }
    }

    /// Points HEAD of an existing repository at the device's branch, starting it at the
    /// current commit, without touching the working tree.
    private static func adopt(_ repository: Repository, for device: Device) throws {
        if let current = try repository.referenceTarget("HEAD"),
            try repository.referenceTarget(device.branch) == nil
        {
            try repository.updateReference(
                device.branch, to: current, expected: nil,
                message: "docver: adopt repository for device \(device.id)")
        }
        try repository.setHead(device.branch)
    }

    static func configure(_ repository: Repository, for device: Device) throws {
        try repository.setConfig(ConfigKey.device, device.id)
        try repository.setConfig(ConfigKey.deviceName, device.name)
        try repository.setConfig(ConfigKey.formatVersion, ConfigKey.currentFormatVersion)
        try installCommitHook(in: repository.gitDirectory)
        try FileSystem.createDirectory(MetadataFiles(gitDirectory: String(repository.gitDirectory.dropLast())).directory)
    }

    /// Installs ``CommitHook``; a hook the user wrote is left alone, one an earlier docver
    /// installed is brought up to date.
    static func installCommitHook(in gitDirectory: String) throws {
        let hook = gitDirectory + "hooks/" + CommitHook.name
        if FileStat(path: hook) != nil {
            guard let existing = FileSystem.contentsIfReadable(hook), let text = String(data: existing, encoding: .utf8),
                text.split(separator: "\n").dropFirst().first.map(String.init) == CommitHook.marker,
                text != CommitHook.script
            else { return }
        }
        try FileSystem.createDirectory(gitDirectory + "hooks")
        try AtomicFile.write(Data(CommitHook.script.utf8), to: hook, executable: true)
    }

    // MARK: Plumbing shared by the operations

    /// Opens the repository for one operation, turning libgit2 and system failures into
    /// ``DocverError``.
    func withRepository<T>(_ body: (Repository) throws -> T) throws -> T {
        // A full disk without a path in libgit2's message is named by the git directory.
        try DocverError.wrapping(writing: gitDirectory) {
            let repository = try Repository(opening: root.path, search: false)
            return try body(repository)
        }
    }

    /// Runs `body` holding the container's writer lock, so docver processes that change the
    /// container (save, sync, resolve) take turns. Plain git writers are handled by the
    /// compare-and-swap update of the branch instead.
    ///
    /// Blocks while another process holds the lock: from `async` code, call it through
    /// ``offCooperativePool(_:)``.
    func withWriteLock<T>(_ body: (Repository) throws -> T) throws -> T {
        try withRepository { repository in
            let lock = try FileLock(path: files.lock)
            defer { lock.unlock() }
            repairStaleLocks()
            // (An earlier docver's commit hook did not mark plain commits: bring it up to date.)
            try? Self.installCommitHook(in: repository.gitDirectory)
            try repairEmptyIndex(repository)
            if let repair = try finishInterruptedWrite(repository) { onRepair?(repair) }
            // Evictions the working tree no longer shows (a file back at the name, a deleted
            // placeholder, what a killed evict left) are forgotten before anything reads it.
            try forgetFinishedEvictions(in: repository)
            let result = try body(repository)
            packLooseObjectsIfNeeded(repository)
            return result
        }
    }

    /// Removes git lock files that a killed process left behind (no process holds them), so
    /// that a stale `index.lock` or branch lock cannot make every later write fail or wait.
    /// Runs under the writer lock: no docver process is writing meanwhile.
    private func repairStaleLocks() {
        var candidates = ["index.lock", device.branch + ".lock", "HEAD.lock", "packed-refs.lock"]
        // A fetch killed while it updated the remote-tracking branches leaves their locks, and
        // every later fetch then fails with "failed to lock file": those are looked for too
        // (a walk of the remote-tracking and docver refs, a few files per device).
        for folder in ["refs/remotes", "refs/docver"] {
            guard let names = FileManager.default.enumerator(atPath: gitDirectory + "/" + folder) else { continue }
            while let name = names.nextObject() as? String {
                if name.hasSuffix(".lock") { candidates.append(folder + "/" + name) }
            }
        }
        for name in candidates where StaleLock.removeIfStale(gitDirectory + "/" + name) {
            onRepair?("removed a stale lock file that no process held: .git/\(name)")
        }
    }

    /// Removes the remote-tracking branches whose commit is missing: a sync killed after its
    /// fetch named them and before it moved their objects in from the quarantine
    /// (Repository+Incoming.swift) leaves them, and `git fsck` and `git log --all` then fail.
    /// Nothing is lost: those objects were never admitted, and the next fetch brings them again.
    func repairDanglingTrackingBranches(_ repository: Repository) throws {
        for (name, target) in try repository.references(matching: RefName.allTrackingBranches) where try !repository.objectExists(target) {
            try repository.deleteReference(name, expected: target)
            onRepair?("removed \(name), which named a commit a killed sync never received (the next sync fetches it again)")
        }
    }

    /// An index file of zero bytes (a crash of some other tool, a full disk) makes libgit2
    /// fail with "failed to read index … no longer exists"; it is rebuilt from this device's
    /// head, with a message.
    private func repairEmptyIndex(_ repository: Repository) throws {
        guard hasEmptyIndex else { return }
        try FileSystem.remove(gitDirectory + "/index")
        let head = try headCommit(repository)
        try repository.resetIndex(to: head.map { try repository.commit($0).treeID })
        onRepair?("rebuilt an empty .git/index from the last save")
    }

    /// True when `.git/index` exists and is empty.
    var hasEmptyIndex: Bool { FileStat(path: gitDirectory + "/index").map { $0.size == 0 } ?? false }

    /// docver's local files (lock, caches, markers), never shared: `.git/docver`.
    var files: MetadataFiles { MetadataFiles(gitDirectory: gitDirectory) }
}
