import Foundation

/// Foundation's file operations, with failures turned into ``SystemError``.
enum FileSystem {
    /// `~/x` as a path in the user's home folder (git config values may be written so).
    static func expandingTilde(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return NSHomeDirectory() + path.dropFirst()
    }

    /// The folder of the file at `path`, as `NSString.deletingLastPathComponent` gives it
    /// for a file's path (`/a/b` → `/a`, `/a` → `/`, `a` → ``), without bridging: a checkout
    /// of 10,000 files spent 4 % of its time there.
    static func folder(of path: String) -> String {
        let bytes = path.utf8
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        guard slash != bytes.startIndex else { return "/" }
        return String(path[..<slash])
    }

    static func createDirectory(_ path: String) throws(SystemError) {
        if let existing = FileStat(path: path), !existing.isDirectory, !existing.isSymbolicLink {
            throw SystemError("create the folder", path, reason: "a file (not a folder) is in its place")
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .wrapping("create the folder", path, error)
        }
    }

    /// Removes a file or a folder with its contents; a missing item is not an error.
    static func remove(_ path: String) throws(SystemError) {
        guard FileStat(path: path) != nil else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw .wrapping("remove", path, error)
        }
    }

    /// The names in a folder, unsorted.
    static func contentsOfDirectory(_ path: String) throws(SystemError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw .wrapping("read the folder", path, error)
        }
    }

    /// The target of a symbolic link, as stored.
    static func linkTarget(_ path: String) throws(SystemError) -> String {
        do {
            return try FileManager.default.destinationOfSymbolicLink(atPath: path)
        } catch {
            throw .wrapping("read the link", path, error)
        }
    }

    /// A file's contents, or nil when it does not exist or cannot be read (for caches, whose
    /// absence only costs time).
    static func contentsIfReadable(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    /// Opens one of docver's own files (under `.git/docver`) without following a symbolic
    /// link in its place: a link planted there fails with `ELOOP` instead of having its
    /// target read, written, truncated or created. Returns the descriptor, or -1 with `errno`.
    static func openLocalFile(_ path: String, _ flags: Int32, mode: mode_t = 0o644) -> Int32 {
        open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode)
    }

    /// The contents of one of docver's own files (under `.git/docver`), or nil when it does
    /// not exist, cannot be read, or is anything but a regular file: a symbolic link in its
    /// place is not followed, and a FIFO or device does not block or stream (``openLocalFile(_:_:mode:)``).
    /// `mapped`: mapped into memory rather than copied, for docver's large caches (the
    /// version index, the conflict listing), of which a question about one document reads a
    /// small part; only for files that are replaced by renaming or appended to, never
    /// truncated or rewritten in place: a mapped page that is cut off faults.
    static func localContentsIfReadable(_ path: String, mapped: Bool = false) -> Data? {
        let descriptor = openLocalFile(path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        // The file just opened, by its descriptor: nothing can be swapped in between.
        return try? Data(contentsOf: URL(fileURLWithPath: "/proc/self/fd/\(descriptor)"), options: mapped ? .alwaysMapped : [])
    }

    /// ``localContentsIfReadable(_:mapped:)``, mapped.
    static func mappedContentsIfReadable(_ path: String) -> Data? {
        localContentsIfReadable(path, mapped: true)
    }

    /// The canonical absolute path (symbolic links resolved), or nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
