import Foundation

/// The stat data git keeps in its index for a file.
struct FileStat {
    var ctimeSeconds: Int
    var ctimeNanoseconds: Int
    var mtimeSeconds: Int
    var mtimeNanoseconds: Int
    var device: UInt64
    var inode: UInt64
    var uid: UInt32
    var gid: UInt32
    var size: Int64
    var mode: UInt32
    /// The second in which the stat data was read, on the clock file timestamps come from
    /// (`CLOCK_REALTIME_COARSE`): a file whose modification time is in that second or later
    /// can still change without its stat data changing for a reader that compares whole
    /// seconds, as git does (Debian's git is built without `USE_NSEC`).
    var takenAtSeconds: Int

    /// Why `lstat` fails for `path` (an `errno` value); nil when it succeeds.
    static func failure(path: String) -> Int32? {
        var info = stat()
        return lstat(path, &info) == 0 ? nil : errno
    }

    init?(path: String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &now)
        takenAtSeconds = Int(now.tv_sec)
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        ctimeSeconds = Int(info.st_ctim.tv_sec)
        ctimeNanoseconds = Int(info.st_ctim.tv_nsec)
        mtimeSeconds = Int(info.st_mtim.tv_sec)
        mtimeNanoseconds = Int(info.st_mtim.tv_nsec)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        uid = info.st_uid
        gid = info.st_gid
        size = Int64(info.st_size)
        mode = info.st_mode
    }

    /// Stat data that matches no file: an index entry carrying it makes git and libgit2
    /// compare the file's contents instead of trusting its stat data.
    static let unknown = FileStat(unknown: ())

    private init(unknown: Void) {
        ctimeSeconds = 0; ctimeNanoseconds = 0; mtimeSeconds = 0; mtimeNanoseconds = 0
        device = 0; inode = 0; uid = 0; gid = 0; size = 0; mode = 0; takenAtSeconds = 0
    }

    /// True when the file may change again within its modification time's second: git,
    /// comparing whole seconds, could not tell the change from this stat data.
    var isRacilyClean: Bool { mtimeSeconds >= takenAtSeconds }

    /// Whether `other` is the stat data of the same file, unchanged: the same inode, size and
    /// modification and change times to the nanosecond.
    func sameFile(as other: FileStat) -> Bool {
        inode == other.inode && device == other.device && size == other.size
            && mtimeSeconds == other.mtimeSeconds && mtimeNanoseconds == other.mtimeNanoseconds
            && ctimeSeconds == other.ctimeSeconds && ctimeNanoseconds == other.ctimeNanoseconds
    }

    var isRegularFile: Bool { mode & S_IFMT == S_IFREG }
    var isDirectory: Bool { mode & S_IFMT == S_IFDIR }
    var isSymbolicLink: Bool { mode & S_IFMT == S_IFLNK }
    var isSocket: Bool { mode & S_IFMT == S_IFSOCK }
    var isExecutable: Bool { mode & 0o100 != 0 }
}
