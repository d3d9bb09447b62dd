import DocverKit
import DocverTestSupport
import Foundation
import Testing

// Helpers shared by the sync and conflict tests (SyncConflictTests, SyncPropertyTests,
// SyncNetworkTests). Everything goes through the public DocverKit API or the git CLI.

extension Container {
    /// This device's branch tip as plain git sees it (nil before the first save).
    func headID() throws -> String? {
        let result = try runProcess("/usr/bin/git", ["rev-parse", "--verify", "-q", "refs/heads/docver/\(device.id)"], in: root)
        guard result.status == 0 else { return nil }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Unresolved conflict versions by document: the ids, devices and dates every device must agree on.
    func conflictSummary() throws -> [String: [ConflictVersionSummary]] {
        var result: [String: [ConflictVersionSummary]] = [:]
        for conflict in try conflicts() {
            result[conflict.document.path] = conflict.conflicts.map(ConflictVersionSummary.init)
        }
        return result
    }

    /// Every saved document's current contents, read through the library.
    func currentContents() throws -> [String: DocumentContents] {
        var result: [String: DocumentContents] = [:]
        for info in try documents() {
            result[info.document.path] = try contents(of: info.current)
        }
        return result
    }

    /// The working tree as flat files (relative path → bytes), `.git` excluded.
    func workingTreeFiles() throws -> [String: Data] {
        var result: [String: Data] = [:]
        let base = root.standardizedFileURL.path
        guard let enumerator = FileManager.default.enumerator(atPath: base) else { return [:] }
        while let relative = enumerator.nextObject() as? String {
            if relative == ".git" || relative.hasPrefix(".git/") {
                enumerator.skipDescendants()
                continue
            }
            var isDirectory: ObjCBool = false
            let full = base + "/" + relative
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[relative] = try Data(contentsOf: URL(fileURLWithPath: full))
            }
        }
        return result
    }

    /// The files the current versions stand for, as they should be in the working tree.
    func expectedFiles() throws -> [String: Data] {
        var result: [String: Data] = [:]
        for (path, contents) in try currentContents() {
            switch contents {
            case let .flat(data): result[path] = data
            case let .package(package): for (file, data) in package.files { result[path + "/" + file] = data }
            case .deleted: break
            }
        }
        return result
    }

    /// ``currentContents()``, ``workingTreeFiles()`` and ``expectedFiles()`` keyed by the names'
    /// bytes: a `[String: …]` takes two spellings of `café.txt` (NFC and NFD) for one key.
    func currentContentsByBytes() throws -> [[UInt8]: DocumentContents] {
        var result: [[UInt8]: DocumentContents] = [:]
        for info in try documents() { result[Array(info.document.path.utf8)] = try contents(of: info.current) }
        return result
    }

    func workingTreeFilesByBytes() throws -> [[UInt8]: Data] {
        var result: [[UInt8]: Data] = [:]
        let base = root.standardizedFileURL.path
        guard let enumerator = FileManager.default.enumerator(atPath: base) else { return [:] }
        while let relative = enumerator.nextObject() as? String {
            if relative == ".git" || relative.hasPrefix(".git/") {
                enumerator.skipDescendants()
                continue
            }
            var isDirectory: ObjCBool = false
            let full = base + "/" + relative
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[Array(relative.utf8)] = try Data(contentsOf: URL(fileURLWithPath: full))
            }
        }
        return result
    }

    func expectedFilesByBytes() throws -> [[UInt8]: Data] {
        var result: [[UInt8]: Data] = [:]
        for (path, contents) in try currentContentsByBytes() {
            switch contents {
            case let .flat(data): result[path] = data
            case let .package(package): for (file, data) in package.files { result[path + Array(("/" + file).utf8)] = data }
            case .deleted: break
            }
        }
        return result
    }

    /// True when `commit` is `head` or one of its ancestors (plain git decides).
    func isReachable(_ commit: String, from head: String? = nil) throws -> Bool {
        guard let tip = try head ?? headID() else { return false }
        let result = try runProcess("/usr/bin/git", ["merge-base", "--is-ancestor", commit, tip], in: root)
        return result.status == 0
    }

    /// A save recording whatever changed in the working tree (nil when nothing did).
    @discardableResult
    func saveAll(message: String? = nil) throws -> String? {
        try save(nil, message: message)?.id
    }

    /// Deletes a document from the working tree and saves the deletion; returns the save id.
    @discardableResult
    func deleteAndSave(_ document: String) throws -> String {
        try remove(document)
        let result = try #require(try save([DocumentPath(document)]))
        return result.id
    }
}

/// What every device must agree on about one conflict version.
struct ConflictVersionSummary: Hashable, CustomStringConvertible {
    var id: String
    var device: String
    var modified: Date
    var isDeletion: Bool

    init(_ version: DocumentVersion) {
        id = version.id
        device = version.device.id
        modified = version.modified
        isDeletion = version.isDeletion
    }

    var description: String { "\(id.prefix(12))@\(device)\(isDeletion ? "(deleted)" : "")" }
}

/// The order docver ranks competing versions: a modification before any deletion, then latest
/// modification date, then greater device id, then greater version id. The first element is
/// the one that must be current.
func rankedByConflictRule(_ versions: [DocumentVersion]) -> [DocumentVersion] {
    versions.sorted {
        ($0.isDeletion ? 0 : 1, $0.modified, $0.device.id, $0.id) > ($1.isDeletion ? 0 : 1, $1.modified, $1.device.id, $1.id)
    }
}

/// Asserts that several devices converged: same head commit, same current contents, same
/// unresolved conflict versions, a working tree matching the current versions with nothing
/// unsaved, and a clean `git fsck --strict`.
func expectConverged(
    _ devices: [Container], context: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    guard let first = devices.first else { return }
    let head = try first.headID()
    let contents = try first.currentContentsByBytes()
    let conflicts = try first.conflictSummary()
    for device in devices {
        let id = device.device.id
        #expect(try device.headID() == head, "\(context) head of \(id) differs from \(first.device.id)", sourceLocation: sourceLocation)
        #expect(try device.currentContentsByBytes() == contents, "\(context) current contents of \(id) differ", sourceLocation: sourceLocation)
        let theirs = try device.conflictSummary()
        #expect(theirs == conflicts, "\(context) conflicts of \(id) differ: \(theirs) vs \(conflicts)", sourceLocation: sourceLocation)
        #expect(
            try device.workingTreeFilesByBytes() == device.expectedFilesByBytes(),
            "\(context) working tree of \(id) does not match its current versions", sourceLocation: sourceLocation)
        #expect(try device.status().changed.isEmpty, "\(context) \(id) has unsaved changes after sync", sourceLocation: sourceLocation)
        try expectFsckClean(device.root, sourceLocation: sourceLocation)
    }
}

/// Parses a CLI `--json` output.
func parseCLIJSON(_ result: ProcessResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
    #expect(result.status == 0, "docver failed: \(result.stderr)", sourceLocation: sourceLocation)
    return try JSONSerialization.jsonObject(with: result.stdoutData)
}

/// A free TCP port on 127.0.0.1 (bound to port 0, then released).
func freeLocalPort() throws -> UInt16 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXFailure(call: "socket") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw POSIXFailure(call: "bind") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard named == 0 else { throw POSIXFailure(call: "getsockname") }
    return UInt16(bigEndian: address.sin_port)
}

/// True when something accepts TCP connections on 127.0.0.1:`port`.
func portAcceptsConnections(_ port: UInt16) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
}

struct POSIXFailure: Error, CustomStringConvertible {
    var call: String
    var code = errno
    var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
}

/// A `git daemon` serving `base` on 127.0.0.1, with pushes enabled; stop it with ``stop()``.
///
/// Processes started from the test runner's threads inherit a signal mask that blocks
/// SIGTERM, so the daemon is stopped with SIGKILL, by the pid it writes itself (`git daemon`
/// runs `git-daemon` as a child).
final class GitDaemon {
    let port: UInt16
    let log: URL
    private let wrapper: Process
    private let pidFile: URL

    /// A daemon serving one empty bare repository, `remote.git`, from the scratch folder;
    /// its URL is `daemon.url("remote.git")`. The caller stops it.
    static func servingEmptyRemote(in scratch: Scratch) throws -> GitDaemon {
        let served = scratch.path("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        try runGit(["init", "-q", "--bare", served.appendingPathComponent("remote.git").path], in: scratch.url)
        return try GitDaemon(serving: served, logDirectory: scratch.url)
    }

    init(serving base: URL, logDirectory: URL) throws {
        log = logDirectory.appendingPathComponent("git-daemon.log")
        pidFile = logDirectory.appendingPathComponent("git-daemon.pid")
        var lastError: Error?
        // Another process may grab the port between probing and listening: try a few.
        for _ in 0..<5 {
            let port = try freeLocalPort()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
            process.arguments = [
                "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack",
                "--pid-file=\(pidFile.path)", "--base-path=\(base.path)",
                "--listen=127.0.0.1", "--port=\(port)", base.path,
            ]
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            try? FileManager.default.removeItem(at: pidFile)
            try process.run()
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, process.isRunning, !portAcceptsConnections(port) {
                Thread.sleep(forTimeInterval: 0.05)
            }
            if process.isRunning, portAcceptsConnections(port) {
                self.port = port
                self.wrapper = process
                return
            }
            Self.kill(process, pidFile: pidFile)
            lastError = DaemonDidNotStart(log: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
        }
        throw lastError ?? DaemonDidNotStart(log: "")
    }

    func url(_ repository: String) -> String { "git://127.0.0.1:\(port)/\(repository)" }

    /// Stops the daemon and waits until it is gone and its port is closed.
    func stop() {
        Self.kill(wrapper, pidFile: pidFile)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, portAcceptsConnections(port) { Thread.sleep(forTimeInterval: 0.05) }
    }

    private static func kill(_ wrapper: Process, pidFile: URL) {
        guard wrapper.isRunning else { return }
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline, !FileManager.default.fileExists(atPath: pidFile.path) {
            Thread.sleep(forTimeInterval: 0.02)
        }
        if let text = try? String(contentsOf: pidFile, encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1
        {
            Glibc.kill(pid, SIGKILL)
        }
        Glibc.kill(wrapper.processIdentifier, SIGKILL)
        wrapper.waitUntilExit()
    }

    deinit { stop() }

    struct DaemonDidNotStart: Error, CustomStringConvertible {
        var log: String
        var description: String { "git daemon did not start listening: \(log)" }
    }
}

/// The seeded generator of the property tests (named for its algorithm).
typealias SplitMix64 = SeededRandom

/// Alice and Bob share a remote. Alice saves `notes.txt` as `base`; both sync; Alice saves
/// `alice`, then a second later Bob saves `bob`, and they sync: Bob's edit is current and
/// Alice's a conflict version. With `bothSeeIt` false, Alice has not synced since Bob's
/// integration (she has not seen the conflict record yet).
func twoDevicesInConflict(
    _ scratch: Scratch, base: String = "base\n", alice aliceText: String = "alice\n",
    bob bobText: String = "bob\n", file: String = "notes.txt", bothSeeIt: Bool = true
) throws
    -> (alice: Container, bob: Container, notes: DocumentPath)
{
    let remote = try scratch.bareRemote()
    let alice = try scratch.device("alice", remote: remote)
    let bob = try scratch.device("bob", remote: remote)
    // One second apart, in the past (dated instead of waiting for the clock): a save the
    // test makes afterwards is the newest.
    try alice.datedBeforeNow(3).saveText(base, to: file)
    try alice.sync(); try bob.sync()
    try alice.datedBeforeNow(2).saveText(aliceText, to: file)
    try bob.datedBeforeNow(1).saveText(bobText, to: file)
    try alice.sync(); try bob.sync()
    if bothSeeIt { try alice.sync() }
    return (alice, bob, try DocumentPath(file))
}

/// Alice (named "Alice's laptop") with a.txt in conflict with Bob's edit, notes/b.md saved once
/// and edited since, and c.txt new and unsaved: something in every section of `status`.
func containerWithAConflictAndChanges(_ scratch: Scratch) throws -> Container {
    let remote = try scratch.bareRemote()
    let alice = try scratch.device("alice", name: "Alice's laptop", remote: remote)
    let bob = try scratch.device("bob", remote: remote)
    try alice.saveText("start\n", to: "a.txt")
    try alice.sync()
    try bob.sync()
    try alice.saveText("alice\n", to: "a.txt")
    try bob.saveText("bob\n", to: "a.txt")
    try bob.sync()
    try alice.sync()
    try alice.saveText("more\n", to: "notes/b.md")
    try alice.write("edited\n", to: "notes/b.md")
    try alice.write("new\n", to: "c.txt")
    return alice
}

/// A git user with a plain clone of a remote (no checkout), who merges device branches with
/// `git merge -s ours` and pushes the result to a device branch, as the fuzz test's git users
/// do; the merges are dated so the tests replay exactly.
struct PlainGitUser {
    let clone: URL

    init(cloning remote: URL, in scratch: Scratch, name: String = "git-user") throws {
        clone = scratch.path(name)
        try runGit(["clone", "-q", "--no-checkout", remote.path, clone.path], in: scratch.url)
    }

    /// Fetches `device`'s branch as its checkout has it (not yet pushed) into `reference`.
    func fetch(_ device: Container, into reference: String) throws {
        try runGit(["fetch", "-q", device.root.path, "+refs/heads/docver/\(device.device.id):\(reference)"], in: clone)
    }

    /// Fetches the remote's branches again.
    func fetch() throws { try runGit(["fetch", "-q", "origin"], in: clone) }

    /// Merges `theirs` into `ours` keeping `ours` whole (`-s ours`), committed at `date` (seconds
    /// since 1970), and pushes the merge to `docver/<branch>`.
    func mergeKeepingOurs(_ ours: String, _ theirs: String, pushTo branch: String, date: Int = 1_750_000_030) throws {
        try runGit(["checkout", "-q", "-f", "--detach", ours], in: clone)
        let merge = try runProcess(
            "/usr/bin/git", ["merge", "-q", "--no-edit", "-s", "ours", theirs], in: clone, environment: Self.environment(dated: date))
        try #require(merge.status == 0, "\(merge.stderr)")
        try runGit(["push", "-q", "origin", "HEAD:refs/heads/docver/\(branch)"], in: clone)
    }

    /// The git user's identity, with author and committer dated `date` (seconds since 1970).
    private static func environment(dated date: Int) -> [String: String] {
        [
            "GIT_AUTHOR_DATE": "@\(date) +0000", "GIT_COMMITTER_DATE": "@\(date) +0000",
            "GIT_AUTHOR_NAME": "Tester", "GIT_AUTHOR_EMAIL": "tester@example.com",
            "GIT_COMMITTER_NAME": "Tester", "GIT_COMMITTER_EMAIL": "tester@example.com",
        ]
    }

    /// Merges `theirs` into `ours` with git's own merge of contents and modes (it must be
    /// clean), committed at `date`, and pushes the merge to `docver/<branch>`.
    func merge(_ ours: String, _ theirs: String, pushTo branch: String, date: Int = 1_750_000_030) throws {
        try runGit(["checkout", "-q", "-f", "--detach", ours], in: clone)
        let merge = try runProcess(
            "/usr/bin/git", ["merge", "-q", "--no-edit", "--no-ff", theirs], in: clone, environment: Self.environment(dated: date))
        try #require(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
        try runGit(["push", "-q", "origin", "HEAD:refs/heads/docver/\(branch)"], in: clone)
    }
}
