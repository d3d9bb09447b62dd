import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One inotify instance (Linux): the kernel's file-change notifications for watched folders.
///
/// The descriptor is non-blocking; ``wait(timeout:waking:)`` sleeps in `poll` until events
/// arrive, the timeout passes or a ``WakePipe`` is woken from another thread.
final class Inotify {
    /// One event as the kernel reports it.
    struct Event: Equatable {
        /// The watch it belongs to (-1 for queue overflow).
        var watch: Int32
        var mask: UInt32
        var cookie: UInt32
        /// The name inside the watched folder ("" for events on the folder itself).
        var name: String

        func has(_ flag: UInt32) -> Bool { mask & flag != 0 }
    }

    /// The events a folder watch asks for: everything that changes what a folder holds or
    /// what a file contains, once the writer is done (`IN_CLOSE_WRITE`) or on every write.
    static let folderMask: UInt32 =
        UInt32(
            IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM
                | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR) | IN_EXCL_UNLINK_FLAG
    private static let IN_EXCL_UNLINK_FLAG: UInt32 = 0x0400_0000

    private let descriptor: Int32

    init() throws(SystemError) {
        let flags = Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC)
        descriptor = inotify_init1(flags)
        guard descriptor >= 0 else {
            if Foundation.errno == EMFILE {
                let limit =
                    FileSystem.contentsIfReadable("/proc/sys/fs/inotify/max_user_instances")
                    .map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
                throw SystemError(
                    "watch files with inotify", "",
                    reason:
                        "this user has as many inotify instances as the kernel allows (fs.inotify.max_user_instances is \(limit)); stop a program that watches files, or raise the limit"
                )
            }
            throw .errno("start inotify", "")
        }
    }

    deinit { close(descriptor) }

    /// The kernel's limit on watches per user (`fs.inotify.max_user_watches`).
    static var userWatchLimit: Int? {
        FileSystem.contentsIfReadable("/proc/sys/fs/inotify/max_user_watches")
            .flatMap { Int(String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// The outcome of adding a watch.
    enum AddResult: Equatable {
        case watching(Int32)
        /// The folder is gone (or is no folder): nothing to watch.
        case vanished
        /// `fs.inotify.max_user_watches` is reached (ENOSPC).
        case limitReached
    }

    /// Watches the folder at `path` (the same folder twice gives the same watch).
    func addWatch(_ path: String, mask: UInt32 = Inotify.folderMask) throws(SystemError) -> AddResult {
        let watch = inotify_add_watch(descriptor, path, mask)
        if watch >= 0 { return .watching(watch) }
        switch errno {
        case ENOENT, ENOTDIR: return .vanished
        case ENOSPC: return .limitReached
        default: throw .errno("watch", path)
        }
    }

    /// The descriptor, for ``hasPendingEvents(descriptor:)`` from another thread.
    var rawDescriptor: Int32 { descriptor }

    /// True when events wait to be read. Safe from any thread while this instance lives.
    var hasPendingEvents: Bool { Self.hasPendingEvents(descriptor: descriptor) }

    /// True when events wait on an inotify `descriptor` (or it cannot be polled: the caller
    /// then trusts nothing).
    static func hasPendingEvents(descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) != 0
    }

    /// Stops a watch (the kernel then sends `IN_IGNORED` for it).
    func removeWatch(_ watch: Int32) {
        _ = inotify_rm_watch(descriptor, watch)
    }

    /// Sleeps until events are ready, `timeout` passes (nil: forever) or `pipe` is woken.
    /// `others` are more descriptors whose readiness ends the wait (another instance's).
    func wait(timeout: Duration?, waking pipe: WakePipe, others: [Int32] = []) {
        var fds =
            [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: pipe.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            + others.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let milliseconds: Int32 =
            timeout.map { duration in
                let (seconds, attoseconds) = duration.components
                let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
                return Int32(clamping: max(0, total))
            } ?? -1
        _ = poll(&fds, nfds_t(fds.count), milliseconds)
        if fds[1].revents != 0 { pipe.drain() }
    }

    /// The events queued now (empty when none); never blocks.
    func readEvents() -> [Event] {
        var events: [Event] = []
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer, size)
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let header = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = offset + MemoryLayout<inotify_event>.size
                var name = ""
                if header.len > 0 {
                    let bytes = UnsafeRawBufferPointer(start: buffer + nameStart, count: Int(header.len))
                    let end = bytes.firstIndex(of: 0) ?? bytes.count
                    name = String(decoding: bytes[..<end], as: UTF8.self)
                }
                events.append(Event(watch: header.wd, mask: header.mask, cookie: header.cookie, name: name))
                offset = nameStart + Int(header.len)
            }
        }
        return events
    }
}

/// A pipe that interrupts a ``Inotify/wait(timeout:waking:)`` from another thread (a stop
/// request, a signal handler's task). Its two descriptors never change, and `write` on a
/// pipe is safe from any thread: Sendable by construction.
final class WakePipe: Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(SystemError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .errno("create a pipe", "") }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Wakes the current wait, or the next one.
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }
}
