import Foundation

/// The one way docver replaces a file: write a temporary file beside it, flush it to disk,
/// rename it over the old one, and flush the folder. A reader (or a process that starts
/// after a crash) sees the old contents or the new ones, never a mix or a torn file.
enum AtomicFile {
    /// Replaces `path` with `data`; `executable` sets mode 0755 instead of 0644. Without
    /// `flush`, the file and folder are not flushed to disk: the replacement is still atomic
    /// for every process (and survives a process being killed), only not a power loss.
    static func write(_ data: Data, to path: String, executable: Bool = false, flush: Bool = true) throws(SystemError) {
        do {
            try write(to: path, executable: executable, flush: flush) { append in try data.withUnsafeBytes { try append($0) } }
        } catch let error as SystemError {
            throw error
        } catch {
            throw SystemError("write", path, reason: "\(error)") // (the body above throws SystemError only)
        }
    }

    /// Replaces `path` with the bytes `contents` appends, piece by piece, through the function
    /// it is given: memory stays flat whatever the size. An error thrown by `contents` (or
    /// by a write) leaves `path` as it was, and is rethrown.
    static func write(to path: String, executable: Bool = false, flush: Bool = true,
                      contents: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let temporary = temporaryPath(beside: path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, executable ? 0o755 : 0o644)
        guard descriptor >= 0 else { throw SystemError.errno("create", temporary) }
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
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, path) == 0 else {
            let error = SystemError.errno("replace", path)
            unlink(temporary)
            throw error
        }
        if flush { syncFolder(of: path) }
    }

    /// The prefix of the temporary files: a process killed between creating one and renaming
    /// it leaves it behind, and recovery removes what carries this prefix.
    static let temporaryPrefix = ".docver-tmp-"

    static func temporaryPath(beside path: String) -> String {
        (path as NSString).deletingLastPathComponent + "/" + temporaryPrefix + "\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    }

    /// Replaces `path` with a symbolic link to `target`, atomically (link beside it, rename).
    static func writeLink(_ target: String, to path: String, flush: Bool = true) throws(SystemError) {
        let temporary = temporaryPath(beside: path)
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
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        fsync(folder)
        close(folder)
    }
}

/// glibc's `syncfs(2)`, which the Glibc module does not export (it is declared only under
/// `_GNU_SOURCE`); a plain C function taking and returning an `int`.
@_silgen_name("syncfs")
private func linuxSyncFS(_ descriptor: Int32) -> Int32
