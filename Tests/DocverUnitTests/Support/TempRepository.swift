import Foundation
import Testing

@testable import DocverKit

/// A throwaway git repository in a temporary folder, for building objects by hand: blobs,
/// trees from `path: contents` dictionaries, and commits with explicit dates and device
/// trailers. Removed when released.
final class TempRepository {
    let url: URL
    let repository: Repository

    /// Seconds since 1970 that test dates count from (2027-01-15).
    static let epoch = 1_800_000_000

    init(_ name: String = #function) throws {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("docver-unit-\(safe.prefix(40))-\(UUID().uuidString.prefix(8))", isDirectory: true)
        repository = try Repository.create(at: url.path, initialHead: RefName.branch(ofDevice: "test"))
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Runs the git CLI in the repository and returns its standard output; a failure fails
    /// the test. `input` (a few kilobytes at most: it is written before the output is read)
    /// is its standard input.
    func git(_ arguments: [String], input: Data? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = arguments
        process.currentDirectoryURL = url
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let inputPipe = input.map { _ in Pipe() }
        if let inputPipe { process.standardInput = inputPipe }
        try process.run()
        if let input, let inputPipe {
            try inputPipe.fileHandleForWriting.write(contentsOf: input)
            try inputPipe.fileHandleForWriting.close()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "git \(arguments.joined(separator: " ")) failed")
        return data
    }

    // MARK: Objects

    func blob(_ text: String) throws -> ObjectID { try repository.writeBlob(Data(text.utf8)) }

    /// A tree holding `files` (`path: contents`), with folders made as needed.
    func tree(_ files: [String: String]) throws -> ObjectID {
        try tree(entries: files.mapValues { try EntryState(blob($0), .blob) })
    }

    /// A tree holding `entries` (`path: entry`), with folders made as needed.
    func tree(entries: [String: EntryState]) throws -> ObjectID {
        var direct: [(name: String, id: ObjectID, mode: FileMode)] = []
        var folders: [String: [String: EntryState]] = [:]
        for (path, entry) in entries {
            let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
            if parts.count == 1 {
                direct.append((parts[0], entry.id, entry.mode))
            } else {
                folders[parts[0], default: [:]][parts[1]] = entry
            }
        }
        for (name, contents) in folders { direct.append((name, try tree(entries: contents), .tree)) }
        return try repository.writeTree(entries: direct)
    }

    /// `base` with some files replaced (`path: contents`) or removed (`path: nil`).
    func tree(_ base: ObjectID?, changing changes: [String: String?]) throws -> ObjectID {
        let updates = try changes.map { path, contents in
            Repository.TreeUpdate(path: path, action: try contents.map { .upsert(try blob($0), .blob) } ?? .remove)
        }
        return try repository.writeTree(base: base, updates: updates)
    }

    /// A commit of `tree` by `device`, authored `at` seconds after ``epoch`` (committed then
    /// too unless `committedAt` says otherwise), carrying the device trailers and `records`.
    func commit(
        tree: ObjectID, parents: [ObjectID] = [], device: String = "alice", at seconds: Int,
        committedAt: Int? = nil, subject: String = "Save",
        records: [(key: String, value: String)] = []
    ) throws -> ObjectID {
        let author = Self.identity(device, at: seconds)
        let committer = Self.identity(device, at: committedAt ?? seconds)
        var message = CommitMessage(subject: subject)
        message.trailers = [(Trailer.device, device), (Trailer.deviceName, "\(device)'s device")] + records
        return try repository.createCommit(
            tree: tree, parents: parents, author: author, committer: committer,
            message: message.render())
    }

    /// A root commit holding `files`.
    func commit(
        _ files: [String: String], device: String = "alice", at seconds: Int,
        subject: String = "Save"
    ) throws -> ObjectID {
        try commit(tree: tree(files), device: device, at: seconds, subject: subject)
    }

    /// A commit on top of `parent` that changes (`path: contents`) or removes (`path: nil`) files.
    func commit(
        on parent: ObjectID, changing changes: [String: String?], device: String = "alice",
        at seconds: Int, committedAt: Int? = nil, subject: String = "Save"
    ) throws -> ObjectID {
        let tree = try tree(repository.commit(parent).treeID, changing: changes)
        return try commit(
            tree: tree, parents: [parent], device: device, at: seconds,
            committedAt: committedAt, subject: subject)
    }

    /// A merge commit of `parents` (in that order) holding `tree`.
    func merge(_ parents: [ObjectID], tree: ObjectID, at seconds: Int) throws -> ObjectID {
        try commit(tree: tree, parents: parents, device: "merger", at: seconds, subject: "Merge")
    }

    static func identity(_ device: String, at seconds: Int) -> Repository.Identity {
        Repository.Identity(
            name: device, email: "\(device)@docver",
            time: Date(timeIntervalSince1970: TimeInterval(epoch + seconds)), offsetMinutes: 0)
    }

    // MARK: Reading

    func treeID(of commit: ObjectID) throws -> ObjectID { try repository.commit(commit).treeID }

    /// The entry at `path` of a tree; nil when absent.
    func entry(_ path: String, inTree tree: ObjectID) throws -> EntryState? {
        try repository.tree(tree).entry(atPath: path).map(EntryState.init)
    }

    /// The entry at `path` of a commit's tree; nil when absent.
    func entry(_ path: String, at commit: ObjectID) throws -> EntryState? {
        try entry(path, inTree: treeID(of: commit))
    }

    /// Every file of a tree, `path: contents`, read recursively.
    func files(ofTree tree: ObjectID, prefix: String = "") throws -> [String: String] {
        var result: [String: String] = [:]
        for entry in try repository.tree(tree).entries {
            if entry.mode.isTree {
                result.merge(try files(ofTree: entry.id, prefix: prefix + entry.name + "/")) { $1 }
            } else {
                result[prefix + entry.name] = String(decoding: try repository.blob(entry.id).data, as: UTF8.self)
            }
        }
        return result
    }

    /// Every file of a commit, `path: contents`.
    func files(at commit: ObjectID) throws -> [String: String] { try files(ofTree: treeID(of: commit)) }

    // MARK: Damage

    /// Deletes a loose object from the object database, so that any later read of it fails.
    /// Pair with ``reopened()`` so no cache remembers the object.
    func deleteObject(_ id: ObjectID) throws {
        let hex = id.hex
        let file = url.appendingPathComponent(".git/objects/\(hex.prefix(2))/\(hex.dropFirst(2))")
        try FileManager.default.removeItem(at: file)
    }

    /// A fresh handle on the same repository (no object caches).
    func reopened() throws -> Repository { try Repository(opening: url.path, search: false) }
}

/// A seconds offset from ``TempRepository/epoch`` as a `Date`.
func testDate(_ seconds: Int) -> Date { Date(timeIntervalSince1970: TimeInterval(TempRepository.epoch + seconds)) }
