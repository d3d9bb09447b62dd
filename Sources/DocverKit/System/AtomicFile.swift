import Foundation
import Synchronization

/// The one way docver replaces a file: write a temporary file beside it, flush it to disk,
/// rename it over the old one, and flush the folder. A reader (or a process that starts
/// after a crash) sees the old contents or the new ones, never a mix or a torn file.
enum AtomicFile {
    /// Replaces `path` with `data`; `executable` sets mode 0755 instead of 0644. Without
    /// `flush`, the file and folder are not flushed to disk: the replacement is still atomic
    /// for every process (and survives a process being killed), only not a power loss.
    /// `staging`: as in ``write(to:executable:flush:staging:contents:)``.
    static func write(
        _ data: Data, to path: String, executable: Bool = false, flush: Bool = true,
        staging: StagingFolder? = nil
    ) throws(SystemError) {
        do {
            try write(to: path, executable: executable, flush: flush, staging: staging) { append in try data.withUnsafeBytes { try append($0) } }
        } catch let error as SystemError {
            throw error
        } catch {
            throw SystemError("write", path, reason: "\(error)")  // (the body above throws SystemError only)
        }
    }

    /// Replaces `path` with the bytes `contents` appends, piece by piece, through the function
    /// it is given: memory stays flat whatever the size. An error thrown by `contents` (or
    /// by a write) leaves `path` as it was, and is rethrown.
    ///
    /// `staging`: a folder on the same file system to make the temporary file in, instead of
    /// beside `path` (see ``StagingFolder``).
    static func write(
        to path: String, executable: Bool = false, flush: Bool = true, staging: StagingFolder? = nil,
        contents: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        let temporary = try writeTemporary(for: path, executable: executable, flush: flush, staging: staging, contents: contents)
        guard rename(temporary, path) == 0 else {
            let error = SystemError.errno("replace", path)
            unlink(temporary)
            throw error
        }
        if flush { syncFolder(of: path) }
    }

    /// Creates `path` with the bytes `contents` appends, only if nothing is there: a file
    /// someone creates there meanwhile is never replaced. True when it was created; false, with
    /// nothing changed, when something is at `path`.
    ///
    /// The file is written unnamed in its folder (`O_TMPFILE`) and then given its name
    /// (`linkat`), which fails rather than replace anything: a reader sees no file or the whole
    /// file, and a killed process leaves nothing behind. That is one change to the folder, as
    /// a plain creation makes: a temporary name and a rename made three, and a folder of
    /// 200,000 documents arrived about a tenth slower for them (issue 26). Where the file
    /// system or the system has no unnamed files, a temporary file (in `staging` when given)
    /// renamed with `RENAME_NOREPLACE`.
    ///
    /// `contents` is called a second time, from the start, when the first way turns out to be
    /// unavailable after it ran (no `/proc`); it must give the same bytes again.
    ///
    /// `allowingUnnamed`: false takes the second way (for its tests).
    static func create(
        at path: String, executable: Bool = false, flush: Bool = true, staging: StagingFolder? = nil,
        allowingUnnamed: Bool = true,
        contents: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> Bool {
        let folder = FileSystem.folder(of: path)
        let unnamed = allowingUnnamed && unnamedFilesAvailable ? open(folder, O_WRONLY | unnamedFileFlag | O_CLOEXEC, executable ? 0o755 : 0o644) : -1
        if unnamed >= 0 {
            defer { close(unnamed) }  // (unnamed until linked: closing frees it)
            try fill(unnamed, path: path, executable: executable, flush: flush, contents: contents)
            if linkat(AT_FDCWD, "/proc/self/fd/\(unnamed)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 {
                if flush { syncFolder(of: path) }
                return true
            }
            if errno == EEXIST { return false }
            // No /proc to name the file through: temporary files from now on.
            guard errno == ENOENT, access("/proc/self/fd", F_OK) != 0 else { throw SystemError.errno("create", path) }
            unnamedFiles.store(false, ordering: .relaxed)
        } else if allowingUnnamed, unnamedFilesAvailable, ![EOPNOTSUPP, EISDIR, EINVAL].contains(errno) {
            throw SystemError.errno("create", path)
        }
        let temporary = try writeTemporary(for: path, executable: executable, flush: flush, staging: staging, contents: contents)
        switch moveIfAbsent(temporary, to: path) {
        case .moved:
            if flush { syncFolder(of: path) }
            return true
        case .somethingThere:
            unlink(temporary)
            return false
        case .failed(let error):
            unlink(temporary)
            throw error
        }
    }

    /// False once this process found it cannot name unnamed files (no `/proc`).
    private static let unnamedFiles = Atomic<Bool>(true)
    private static var unnamedFilesAvailable: Bool { unnamedFiles.load(ordering: .relaxed) }

    /// A temporary file (in `staging`, or beside `path`) holding the bytes `contents` appends;
    /// nothing is left when writing fails.
    private static func writeTemporary(
        for path: String, executable: Bool, flush: Bool, staging: StagingFolder?,
        contents: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> String {
        let temporary = staging?.temporaryPath() ?? temporaryPath(beside: path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, executable ? 0o755 : 0o644)
        guard descriptor >= 0 else { throw SystemError.errno("create", temporary) }
        do {
            defer { close(descriptor) }
            try fill(descriptor, path: path, executable: executable, flush: flush, contents: contents)
        } catch {
            unlink(temporary)
            throw error
        }
        return temporary
    }

    /// Writes the bytes `contents` appends to `descriptor`, flushes them (with `flush`) and
    /// sets the executable mode.
    private static func fill(
        _ descriptor: Int32, path: String, executable: Bool, flush: Bool,
        contents: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        var failure: (any Error)?
        do {
            try contents { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw SystemError.errno("write", path)
                    }
                    offset += written
                }
            }
        } catch {
            failure = error
        }
        if failure == nil, flush, fsync(descriptor) != 0 { failure = SystemError.errno("flush", path) }
        if failure == nil, executable, fchmod(descriptor, 0o755) != 0 { failure = SystemError.errno("set the mode of", path) }
        if let failure { throw failure }
    }

    private enum AbsentMove {
        case moved
        case somethingThere
        case failed(SystemError)
    }

    /// Renames `temporary` to `path` unless something is at `path`. Where the file system has
    /// no `RENAME_NOREPLACE`, a look and then a plain rename (a window a creation could slip
    /// through).
    private static func moveIfAbsent(_ temporary: String, to path: String) -> AbsentMove {
        if linuxRenameAt2(AT_FDCWD, temporary, AT_FDCWD, path, renameNoReplace) == 0 { return .moved }
        switch errno {
        case EEXIST: return .somethingThere
        case EINVAL, ENOSYS, ENOTSUP:
            if FileStat(path: path) != nil { return .somethingThere }
            return rename(temporary, path) == 0 ? .moved : .failed(.errno("create", path))
        default:
            return .failed(.errno("create", path))
        }
    }

    /// The prefix of the temporary files: a process killed between creating one and renaming
    /// it leaves it behind, and recovery removes what carries this prefix.
    static let temporaryPrefix = ".docver-tmp-"

    static func temporaryPath(beside path: String) -> String {
        temporaryPath(in: FileSystem.folder(of: path))
    }

    static func temporaryPath(in folder: String) -> String {
        folder + "/" + temporaryPrefix + "\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    }

    /// Removes the temporary files (and folders, see ``remove(_:staging:)``) a killed write
    /// left in `folder`: names exactly as ``temporaryPath(in:)`` makes them, the prefix, a
    /// process id, a hyphen and a number. A user's file that merely starts with the prefix
    /// (`.docver-tmp-notes.txt`) is a document, and stays.
    static func removeTemporaryFiles(in folder: String) {
        for name in (try? FileSystem.contentsOfDirectory(folder)) ?? [] where isTemporaryName(name) {
            try? FileSystem.remove(folder + "/" + name)
        }
    }

    /// True for a name ``temporaryPath(in:)`` makes.
    static func isTemporaryName(_ name: String) -> Bool {
        guard name.hasPrefix(temporaryPrefix) else { return false }
        let numbers = name.utf8.dropFirst(temporaryPrefix.utf8.count).split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        return numbers.count == 2 && numbers.allSatisfy { !$0.isEmpty && $0.allSatisfy { (0x30...0x39).contains($0) } }
    }

    /// Removes the file or folder at `path` at once: renamed out of the way (into `staging`,
    /// or beside it under a temporary name), then deleted. A folder deleted in place goes file
    /// by file, and a kill in between would leave part of it, which reads as an edit.
    static func remove(_ path: String, staging: StagingFolder?) throws(SystemError) {
        guard FileStat(path: path) != nil else { return }
        let away = staging?.temporaryPath() ?? temporaryPath(beside: path)
        guard rename(path, away) == 0 else { throw .errno("remove", path) }
        try FileSystem.remove(away)
    }

    /// Replaces `path` with a symbolic link to `target`, atomically (link beside it, rename).
    static func writeLink(_ target: String, to path: String, flush: Bool = true, staging: StagingFolder? = nil) throws(SystemError) {
        let temporary = staging?.temporaryPath() ?? temporaryPath(beside: path)
        guard symlink(target, temporary) == 0 else { throw .errno("create the link", temporary) }
        guard rename(temporary, path) == 0 else {
            let error = SystemError.errno("replace", path)
            unlink(temporary)
            throw error
        }
        if flush { syncFolder(of: path) }
    }

    /// Flushes everything written to the file system holding `path` (one `syncfs`): after many
    /// unflushed writes, as durable as flushing each, for one call instead of two per file.
    static func syncFileSystem(containing path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = linuxSyncFS(descriptor)
        close(descriptor)
    }

    /// Replaces `path` with `text` in UTF-8.
    static func write(_ text: String, to path: String) throws(SystemError) {
        try write(Data(text.utf8), to: path)
    }

    /// Flushes a folder's entries, so a rename survives a power loss. Best effort: some file
    /// systems refuse fsync on folders, and the rename itself is already atomic.
    private static func syncFolder(of path: String) {
        let folder = open(FileSystem.folder(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        fsync(folder)
        close(folder)
    }
}

/// glibc's `renameat2(2)` and its `RENAME_NOREPLACE` flag, which the Glibc module does not
/// export (declared only under `_GNU_SOURCE`).
@_silgen_name("renameat2")
private func linuxRenameAt2(
    _ oldFolder: Int32, _ oldPath: UnsafePointer<CChar>, _ newFolder: Int32,
    _ newPath: UnsafePointer<CChar>, _ flags: UInt32
) -> Int32
private let renameNoReplace: UInt32 = 1
/// `O_TMPFILE`, which the Glibc module does not export either: its own bit with `O_DIRECTORY`.
private let unnamedFileFlag: Int32 = O_DIRECTORY | 0o20000000

/// glibc's `syncfs(2)`, which the Glibc module does not export (it is declared only under
/// `_GNU_SOURCE`); a plain C function taking and returning an `int`.
@_silgen_name("syncfs")
private func linuxSyncFS(_ descriptor: Int32) -> Int32

/// A folder where a batch of ``AtomicFile`` writes makes its temporary files, so that the
/// folders being written receive only the finished files.
///
/// A temporary file made beside its document costs its folder two more entry changes (the
/// creation, then the removal by the rename), each a search of the folder's index: a folder of
/// 200,000 documents arrived about a third slower for them (issue 26). Beside the document, a
/// half-written temporary is also seen by whoever watches the folder (an agent, an editor).
struct StagingFolder: Sendable {
    let path: String

    /// The folder at `path`, created when missing; nil (write beside each file instead) when it
    /// cannot be used: it is not a real folder (a link, say), or it is on another file system
    /// than `target`, where a rename cannot move a file.
    init?(_ path: String, sameFileSystemAs target: String) {
        if FileStat(path: path) == nil { mkdir(path, 0o755) }
        guard let folder = FileStat(path: path), folder.isDirectory, !folder.isSymbolicLink,
            let destination = FileStat(path: target), destination.device == folder.device
        else { return nil }
        self.path = path
    }

    func temporaryPath() -> String { AtomicFile.temporaryPath(in: path) }
}
