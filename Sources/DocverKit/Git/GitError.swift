internal import Clibgit2
internal import Clibgit2Startup
import Foundation

/// An error reported by libgit2, with libgit2's own message.
///
/// Every non-zero return code of a libgit2 call made by docver is turned into a `GitError`
/// by docver's one checked-call function, which reads libgit2's thread-local error message at once.
public struct GitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The libgit2 error codes docver reacts to, by name; the rest keep their number.
    public enum Code: Sendable, Equatable {
        case notFound, exists, ambiguous, bufferTooShort, user, bareRepository, unbornBranch
        case unmerged, nonFastForward, invalidSpec, conflict, locked, modified, authentication
        case certificate, peel, endOfFile, invalid, uncommitted, directory, mergeConflict
        case other(Int32)

        init(rawValue: Int32) {
            switch rawValue {
            case GIT_ENOTFOUND.rawValue: self = .notFound
            case GIT_EEXISTS.rawValue: self = .exists
            case GIT_EAMBIGUOUS.rawValue: self = .ambiguous
            case GIT_EBUFS.rawValue: self = .bufferTooShort
            case GIT_EUSER.rawValue: self = .user
            case GIT_EBAREREPO.rawValue: self = .bareRepository
            case GIT_EUNBORNBRANCH.rawValue: self = .unbornBranch
            case GIT_EUNMERGED.rawValue: self = .unmerged
            case GIT_ENONFASTFORWARD.rawValue: self = .nonFastForward
            case GIT_EINVALIDSPEC.rawValue: self = .invalidSpec
            case GIT_ECONFLICT.rawValue: self = .conflict
            case GIT_ELOCKED.rawValue: self = .locked
            case GIT_EMODIFIED.rawValue: self = .modified
            case GIT_EAUTH.rawValue: self = .authentication
            case GIT_ECERTIFICATE.rawValue: self = .certificate
            case GIT_EPEEL.rawValue: self = .peel
            case GIT_EEOF.rawValue: self = .endOfFile
            case GIT_EINVALID.rawValue: self = .invalid
            case GIT_EUNCOMMITTED.rawValue: self = .uncommitted
            case GIT_EDIRECTORY.rawValue: self = .directory
            case GIT_EMERGECONFLICT.rawValue: self = .mergeConflict
            default: self = .other(rawValue)
            }
        }
    }

    /// The code libgit2 returned.
    public let code: Code
    /// libgit2's message for the failure (or a generic one when it left none).
    public let message: String
    /// The libgit2 function that failed.
    public let function: String
    /// Whether the failure was a full disk or an exhausted quota (`ENOSPC`, `EDQUOT`): from
    /// libgit2's OS error message, or from `errno` when libgit2 failed without setting a
    /// message of its own (a failed write in its file buffers), which would otherwise leave
    /// an older message to be read as this one.
    public var isNoSpaceLeft: Bool { writeFailedForSpace || SystemError.isNoSpaceLeft(message: message) }
    /// Set by ``check(_:_:)`` from `errno`.
    var writeFailedForSpace = false

    /// The first absolute path libgit2's message quotes (`cannot extend packfile '/x/objects/pack/pack_git2_…'`),
    /// a temporary file in an object database given as that object database (`/x/objects`).
    var quotedPath: String? {
        let parts = message.split(separator: "'", omittingEmptySubsequences: false)
        guard let path = stride(from: 1, to: parts.count - 1, by: 2).lazy.map({ String(parts[$0]) }).first(where: { $0.hasPrefix("/") })
        else { return nil }
        guard let objects = path.range(of: "/objects/", options: .backwards) else { return path }
        return String(path[..<objects.lowerBound]) + "/objects"
    }

    /// libgit2's message.
    public var description: String { message }
}

/// Calls that return a negative code throw a ``GitError`` carrying libgit2's message.
///
/// The message is thread-local in libgit2, so it is read here, straight after the call,
/// on the same thread.
@discardableResult
func check(_ result: Int32, _ function: String = #function) throws -> Int32 {
    guard result < 0 else { return result }
    let osError = errno  // before anything else can change it
    let message: String
    if let last = git_error_last(), let text = last.pointee.message {
        message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    } else {
        message = "libgit2 call failed with code \(result)"
    }
    var error = GitError(code: .init(rawValue: result), message: message, function: function)
    // libgit2's file buffers fail a write with -1 and no message: the message read above is
    // then a stale one ("the path 'x' does not exist in the given tree"), and errno says why.
    error.writeFailedForSpace = result == GIT_ERROR.rawValue && SystemError.isNoSpaceLeft(errno: osError)
    throw error
}

/// libgit2 must be initialised once per process before any other call.
///
/// Objects read back from the local object database are not re-hashed (libgit2 does so by
/// default, git does not): that hashing was a large share of listing conflicts. Objects that
/// arrive from a remote are still verified when their pack is indexed.
///
/// Large commits and trees (an integration recording thousands of conflicts, a folder of
/// thousands of documents, up to a 64 MB tree: a folder of about 1.7 million documents) are
/// kept in libgit2's object cache like small ones: they were inflated again at every lookup,
/// which made receiving a folder of 200,000 documents quadratic (issue 26).
///
/// The system CA bundle is parsed before the first transfer, not here (libgit2_startup.h): a
/// local command never needs it, and it was a third of a one-document query's start-up.
let libgit2Initialised: Void = {
    docver_libgit2_init_deferring_certificates()
    docver_disable_strict_hash_verification()
    docver_cache_large_commits_and_trees()
}()
