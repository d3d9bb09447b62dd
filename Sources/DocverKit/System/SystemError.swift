import Foundation

/// A failure of the operating system or the file system: a file that cannot be read,
/// written, renamed or locked, or a helper program that cannot be started.
///
/// libgit2's failures are ``GitError``; this is everything else below the domain layer, so
/// no Foundation error escapes untyped.
public struct SystemError: LocalizedError, Sendable, Equatable, CustomStringConvertible {
    /// What was being done, such as "write" or "lock".
    public let operation: String
    /// The file (or program) concerned.
    public let path: String
    /// The reason, usually `strerror(errno)`.
    public let reason: String
    /// Whether the disk (or the user's quota) was full: `ENOSPC` or `EDQUOT`.
    public var isNoSpaceLeft: Bool { Self.isNoSpaceLeft(message: reason) }

    static func isNoSpaceLeft(errno code: Int32) -> Bool { code == ENOSPC || code == EDQUOT }

    /// Whether an OS error message (ours or libgit2's, which appends `strerror`) says so.
    static func isNoSpaceLeft(message: String) -> Bool {
        message.contains(String(cString: strerror(ENOSPC))) || message.contains(String(cString: strerror(EDQUOT)))
    }

    init(_ operation: String, _ path: String, reason: String) {
        self.operation = operation
        self.path = path
        self.reason = reason
    }

    /// An error from the current `errno`.
    static func errno(_ operation: String, _ path: String) -> SystemError {
        // docver opens its own files with O_NOFOLLOW: ELOOP means a link was put in their place.
        if Foundation.errno == ELOOP { return SystemError(operation, path, reason: "a symbolic link is in its place, which docver does not follow") }
        return SystemError(operation, path, reason: String(cString: strerror(Foundation.errno)))
    }

    /// An error from a Foundation call, keeping its message.
    static func wrapping(_ operation: String, _ path: String, _ error: any Error) -> SystemError {
        if let error = error as? SystemError { return error }
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return SystemError(operation, path, reason: String(cString: strerror(Int32(underlying.code))))
        }
        return SystemError(operation, path, reason: nsError.localizedDescription)
    }

    /// One line: "cannot write .git/docver/lock: Permission denied".
    public var description: String { path.isEmpty ? "cannot \(operation): \(reason)" : "cannot \(operation) \(path): \(reason)" }
    /// The same line wherever an error is shown by its localized description (an error that
    /// reaches a caller unwrapped must not read "The operation could not be completed").
    public var errorDescription: String? { description }
}
