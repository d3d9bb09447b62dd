internal import Clibgit2
import Foundation
import Synchronization

/// docver's own status loop: the files of the working tree that may differ from the index.
///
/// libgit2's diff of the working tree stats every file by its whole path on one thread, and
/// looks for a `.gitignore` in every folder. This reads each folder the index tracks once,
/// stats its files relative to it (`fstatat`), on up to one thread per core, as git's
/// preload-index does, and compares the stat data with the index's.
///
/// It only narrows down, and errs towards naming too much: a file is named when any of the
/// stat data libgit2 compares differs (type and mode, size, modification and change time to
/// the nanosecond, inode, owner) or when it was modified in the second the index file was
/// written or later (racily clean); every name the index does not track is named, and every
/// folder it does not track is named whole. libgit2's diff then looks at those paths only,
/// and decides. So the scan cannot make a change disappear: what it leaves out is what
/// libgit2 would not look at either.
///
/// Where it cannot vouch — an entry in conflict, marked skip-worktree or intent-to-add, a
/// submodule, a tracked folder that is now a file or a link, a folder it cannot read, an
/// index rewritten while it ran — it answers nil and the caller diffs the whole tree.
struct WorkingTreeScan: Sendable {
    /// An index entry's path (in ``paths``) and the stat data it recorded.
    struct Entry: Sendable {
        var pathStart: Int
        var pathLength: Int
        var ctimeSeconds: Int32
        var ctimeNanoseconds: UInt32
        var mtimeSeconds: Int32
        var mtimeNanoseconds: UInt32
        var inode: UInt32
        var uid: UInt32
        var gid: UInt32
        var size: UInt32
        var mode: UInt32
    }

    /// A folder holding tracked files: its path (a prefix of an entry's path, with its
    /// trailing `/`; empty for the top), its files and its tracked sub-folders' names.
    struct Folder: Sendable {
        var pathStart: Int
        var pathLength: Int
        var files: [Int] = []
        var folders: [Range<Int>] = []
    }

    /// Every entry's path, each followed by a NUL.
    let paths: [UInt8]
    let entries: [Entry]
    let folders: [Folder]
    /// The index file's modification second, read before the index was: a file modified in
    /// that second or later is racily clean.
    let indexSecond: Int

    /// Copies what the scan needs of `index`, or nil when it holds an entry the scan cannot
    /// vouch for (see above).
    init?(index: Index, indexSecond: Int) {
        var paths: [UInt8] = []
        var entries: [Entry] = []
        let count = git_index_entrycount(index.pointer)
        entries.reserveCapacity(count)
        for position in 0..<count {
            guard let entry = git_index_get_byindex(index.pointer, position)?.pointee, let path = entry.path else { return nil }
            guard UInt32(entry.flags) & UInt32(GIT_INDEX_ENTRY_STAGEMASK) == 0,
                UInt32(entry.flags_extended) & GIT_INDEX_ENTRY_EXTENDED_FLAGS.rawValue == 0,
                entry.mode == 0o100644 || entry.mode == 0o100755 || entry.mode == 0o120000
            else { return nil }
            let length = strlen(path)
            let start = paths.count
            path.withMemoryRebound(to: UInt8.self, capacity: length) { paths.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) }
            paths.append(0)
            entries.append(
                Entry(
                    pathStart: start, pathLength: length,
                    ctimeSeconds: entry.ctime.seconds, ctimeNanoseconds: entry.ctime.nanoseconds,
                    mtimeSeconds: entry.mtime.seconds, mtimeNanoseconds: entry.mtime.nanoseconds,
                    inode: entry.ino, uid: entry.uid, gid: entry.gid, size: entry.file_size, mode: entry.mode))
        }
        guard let folders = Self.folders(of: entries, paths: paths) else { return nil }
        self.paths = paths
        self.entries = entries
        self.folders = folders
        self.indexSecond = indexSecond
    }

    /// The folders of `entries`, which are in the index's order: the paths under a folder are
    /// next to each other there, so each folder is met once, from a stack of the folders the
    /// current path is in. Nil for a name that is both a file and a folder.
    private static func folders(of entries: [Entry], paths: [UInt8]) -> [Folder]? {
        var folders = [Folder(pathStart: 0, pathLength: 0)]
        var open = [0]
        for (position, entry) in entries.enumerated() {
            while open.count > 1 {
                let top = folders[open[open.count - 1]]
                if top.pathLength < entry.pathLength,
                    paths[top.pathStart..<(top.pathStart + top.pathLength)] == paths[entry.pathStart..<(entry.pathStart + top.pathLength)]
                {
                    break
                }
                open.removeLast()
            }
            var nameStart = entry.pathStart + folders[open[open.count - 1]].pathLength
            let end = entry.pathStart + entry.pathLength
            while let slash = paths[nameStart..<end].firstIndex(of: UInt8(ascii: "/")) {
                folders[open[open.count - 1]].folders.append(nameStart..<slash)
                folders.append(Folder(pathStart: entry.pathStart, pathLength: slash + 1 - entry.pathStart))
                open.append(folders.count - 1)
                nameStart = slash + 1
            }
            folders[open[open.count - 1]].files.append(position)
        }
        return folders
    }

    /// The paths worth libgit2's look (files as they are named, untracked folders with a
    /// trailing `/`), or nil when the scan cannot vouch. `workdir` is the working tree.
    func candidates(workdir: String) -> [[UInt8]]? {
        let top = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard top >= 0 else { return nil }
        defer { close(top) }
        // Shares of about 250 entries (git's preload-index gives a thread 500 at least), at
        // most 64: each thread that is free takes the next share, so the caller's thread does
        // not wait for a late one.
        let shares = max(1, min(64, folders.count, entries.count / 250))
        let found = Mutex<[[UInt8]]?>([])
        let wide = Mutex<[Int]>([])
        // Blocking file-system calls, on dispatch's worker threads and the caller's, never on
        // the cooperative pool's (the caller is synchronous).
        DispatchQueue.concurrentPerform(iterations: shares) { share in
            var mine: [[UInt8]] = []
            var deferred: [Int] = []
            var folder = share
            while folder < folders.count {
                guard scan(folders[folder], top: top, into: &mine, deferring: &deferred) else {
                    found.withLock { $0 = nil }
                    return
                }
                folder += shares
            }
            found.withLock { $0?.append(contentsOf: mine) }
            wide.withLock { $0 += deferred }
        }
        // The files of wide folders, which one thread would otherwise stat alone, in shares
        // of 1,024, by their path from the top.
        let files = wide.withLock { $0 }
        guard !files.isEmpty, found.withLock({ $0 != nil }) else { return found.withLock { $0 } }
        let fileShares = (files.count + 1_023) / 1_024
        DispatchQueue.concurrentPerform(iterations: fileShares) { share in
            var mine: [[UInt8]] = []
            paths.withUnsafeBufferPointer { bytes in
                let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
                for file in files[(share * 1_024)..<min(files.count, (share + 1) * 1_024)] {
                    var info = stat()
                    let failed = fstatat(top, base + entries[file].pathStart, &info, AT_SYMLINK_NOFOLLOW) != 0
                    check(file, info, failed: failed, into: &mine)
                }
            }
            found.withLock { $0?.append(contentsOf: mine) }
        }
        return found.withLock { $0 }
    }

    /// A folder with this many tracked files has them stat-ed after all folders were read,
    /// shared among the threads (``candidates(workdir:)``).
    static let wideFolder = 4_096

    /// Adds `file` to `candidates` when its stat data (`info`, unless reading it `failed`)
    /// say it may have changed.
    private func check(_ file: Int, _ info: stat, failed: Bool, into candidates: inout [[UInt8]]) {
        let entry = entries[file]
        guard failed || differs(entry, info) else { return }
        let path = Array(paths[entry.pathStart..<(entry.pathStart + entry.pathLength)])
        candidates.append(path)
        // A file that became a folder: what it holds is untracked.
        if !failed, info.st_mode & S_IFMT == S_IFDIR { candidates.append(path + [UInt8(ascii: "/")]) }
    }

    private enum Expected {
        case file(Int)
        case folder
    }

    /// Reads `folder`, stats its files (or, in a wide folder, adds those there to `deferred`),
    /// and adds what may have changed to `candidates`; false when the scan cannot vouch.
    private func scan(_ folder: Folder, top: Int32, into candidates: inout [[UInt8]], deferring deferred: inout [Int]) -> Bool {
        paths.withUnsafeBufferPointer { bytes in
            let base = bytes.baseAddress!
            let descriptor: Int32
            if folder.pathLength == 0 {
                descriptor = openat(top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            } else {
                let path = Array(bytes[folder.pathStart..<(folder.pathStart + folder.pathLength - 1)]) + [0]
                descriptor = path.withUnsafeBufferPointer {
                    $0.withMemoryRebound(to: CChar.self) { openat(top, $0.baseAddress!, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
                }
            }
            guard descriptor >= 0 else {
                // Gone: its files are deleted (its sub-folders' own reads say so for theirs).
                // Anything else (now a file or a link, unreadable) is libgit2's to judge.
                guard errno == ENOENT else { return false }
                for file in folder.files {
                    candidates.append(Array(bytes[entries[file].pathStart..<(entries[file].pathStart + entries[file].pathLength)]))
                }
                return true
            }
            guard let directory = fdopendir(descriptor) else {
                close(descriptor)
                return false
            }
            defer { closedir(directory) }

            // What the folder holds: names (each followed by a NUL) and their types.
            var names: [UInt8] = []
            var listed: [(name: Range<Int>, type: UInt8)] = []
            while true {
                errno = 0  // readdir's end and its failure differ only by errno
                guard let item = readdir(directory) else {
                    if errno != 0 { return false }
                    break
                }
                let start = names.count
                let length = withUnsafeBytes(of: &item.pointee.d_name) { raw -> Int in
                    let name = raw.bindMemory(to: UInt8.self)
                    let length = strnlen(raw.baseAddress!.assumingMemoryBound(to: CChar.self), name.count)
                    names.append(contentsOf: name[0..<length])
                    return length
                }
                let name = start..<(start + length)
                let isDot = names[name].elementsEqual([UInt8(ascii: ".")]) || names[name].elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")])
                let isRepository = folder.pathLength == 0 && names[name].elementsEqual(Array(".git".utf8))
                if isDot || isRepository {
                    names.removeSubrange(start...)
                    continue
                }
                names.append(0)
                listed.append((name, item.pointee.d_type))
            }

            var expected: [(name: Range<Int>, what: Expected)] = folder.files.map { file in
                let entry = entries[file]
                let nameStart = entry.pathStart + folder.pathLength
                return (nameStart..<(entry.pathStart + entry.pathLength), .file(file))
            }
            expected += folder.folders.map { ($0, .folder) }
            expected.sort { Self.compare(base + $0.name.lowerBound, $0.name.count, base + $1.name.lowerBound, $1.name.count) < 0 }
            let found = names.withUnsafeBufferPointer { names -> Bool in
                let namesBase = names.baseAddress ?? UnsafePointer(base)
                listed.sort { Self.compare(namesBase + $0.name.lowerBound, $0.name.count, namesBase + $1.name.lowerBound, $1.name.count) < 0 }
                var want = 0
                var have = 0
                while want < expected.count || have < listed.count {
                    let order: Int32
                    if want == expected.count {
                        order = 1
                    } else if have == listed.count {
                        order = -1
                    } else {
                        order = Self.compare(
                            base + expected[want].name.lowerBound, expected[want].name.count,
                            namesBase + listed[have].name.lowerBound, listed[have].name.count)
                    }
                    if order < 0 {  // tracked, not there
                        if case .file(let file) = expected[want].what {
                            let entry = entries[file]
                            candidates.append(Array(bytes[entry.pathStart..<(entry.pathStart + entry.pathLength)]))
                        }
                        want += 1
                        continue
                    }
                    let name = namesBase + listed[have].name.lowerBound
                    let cName = UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self)
                    if order > 0 {  // there, not tracked
                        guard let isFolder = Self.isFolder(listed[have].type, cName, in: descriptor) else { return false }
                        candidates.append(
                            Array(bytes[folder.pathStart..<(folder.pathStart + folder.pathLength)])
                                + Array(names[listed[have].name]) + (isFolder ? [UInt8(ascii: "/")] : []))
                        have += 1
                        continue
                    }
                    // Both: a name tracked twice cannot be judged here.
                    if want + 1 < expected.count,
                        Self.compare(
                            base + expected[want].name.lowerBound, expected[want].name.count,
                            base + expected[want + 1].name.lowerBound, expected[want + 1].name.count) == 0
                    {
                        return false
                    }
                    switch expected[want].what {
                    case .folder:
                        // A tracked folder must still be a folder (not a link to one).
                        guard Self.isFolder(listed[have].type, cName, in: descriptor) == true else { return false }
                    case .file(let file):
                        if folder.files.count >= Self.wideFolder {
                            deferred.append(file)
                        } else {
                            var info = stat()
                            let failed = fstatat(descriptor, cName, &info, AT_SYMLINK_NOFOLLOW) != 0
                            check(file, info, failed: failed, into: &candidates)
                        }
                    }
                    want += 1
                    have += 1
                }
                return true
            }
            return found
        }
    }

    /// Whether the stat data libgit2 compares differ from `entry`'s, or the file is racily clean.
    private func differs(_ entry: Entry, _ info: stat) -> Bool {
        let mode: UInt32
        switch info.st_mode & S_IFMT {
        case S_IFREG: mode = info.st_mode & 0o100 != 0 ? 0o100755 : 0o100644
        case S_IFLNK: mode = 0o120000
        default: return true
        }
        return mode != entry.mode
            || UInt32(truncatingIfNeeded: info.st_size) != entry.size
            || Int32(truncatingIfNeeded: info.st_mtim.tv_sec) != entry.mtimeSeconds
            || UInt32(truncatingIfNeeded: info.st_mtim.tv_nsec) != entry.mtimeNanoseconds
            || Int32(truncatingIfNeeded: info.st_ctim.tv_sec) != entry.ctimeSeconds
            || UInt32(truncatingIfNeeded: info.st_ctim.tv_nsec) != entry.ctimeNanoseconds
            || UInt32(truncatingIfNeeded: info.st_ino) != entry.inode
            || info.st_uid != entry.uid || info.st_gid != entry.gid
            || Int(info.st_mtim.tv_sec) >= indexSecond
    }

    /// Whether a listed name is a folder (not a link to one); nil when it cannot be told.
    private static func isFolder(_ type: UInt8, _ name: UnsafePointer<CChar>, in descriptor: Int32) -> Bool? {
        switch Int32(type) {
        case Int32(DT_DIR): return true
        case Int32(DT_UNKNOWN):
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
            return info.st_mode & S_IFMT == S_IFDIR
        default: return false
        }
    }

    /// Byte order, as git sorts names.
    private static func compare(_ a: UnsafePointer<UInt8>, _ aCount: Int, _ b: UnsafePointer<UInt8>, _ bCount: Int) -> Int32 {
        let common = memcmp(a, b, min(aCount, bCount))
        if common != 0 { return common }
        return aCount < bCount ? -1 : aCount > bCount ? 1 : 0
    }
}
