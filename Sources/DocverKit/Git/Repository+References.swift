internal import Clibgit2
import Foundation

// References: reading, compare-and-swap updates, globs.

extension Repository {
    /// The object a reference points at (following symbolic references); nil when absent or unborn.
    func referenceTarget(_ name: String) throws -> ObjectID? {
        var oid = git_oid()
        let result = git_reference_name_to_id(&oid, pointer, name)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result)
        return ObjectID(oid)
    }

    /// The name a symbolic reference (such as HEAD) points at.
    func symbolicTarget(of name: String) throws -> String? {
        var reference: OpaquePointer?
        let result = git_reference_lookup(&reference, pointer, name)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result)
        defer { git_reference_free(reference) }
        return git_reference_symbolic_target(reference).map { String(cString: $0) }
    }

    func setHead(_ referenceName: String) throws {
        try check(git_repository_set_head(pointer, referenceName))
    }

    /// Compare-and-swap: points `name` at `target` only if it still points at `expected`
    /// (or does not exist yet when `expected` is nil). Throws `.modified`/`.exists` otherwise.
    func updateReference(_ name: String, to target: ObjectID, expected: ObjectID?, message: String) throws {
        var reference: OpaquePointer?
        var newID = target.raw
        if var old = expected?.raw {
            try check(git_reference_create_matching(&reference, pointer, name, &newID, 1, &old, message))
        } else {
            try check(git_reference_create(&reference, pointer, name, &newID, 0, message))
        }
        git_reference_free(reference)
    }

    /// Deletes a reference if it still points at `expected`; a missing one is not an error.
    func deleteReference(_ name: String, expected: ObjectID) throws {
        var reference: OpaquePointer?
        let result = git_reference_lookup(&reference, pointer, name)
        if result == GIT_ENOTFOUND.rawValue { return }
        try check(result)
        defer { git_reference_free(reference) }
        guard let target = git_reference_target(reference), ObjectID(target.pointee) == expected else { return }
        try check(git_reference_delete(reference))
    }

    /// Points `name` at `target` unconditionally (for remote-tracking references docver owns).
    func forceReference(_ name: String, to target: ObjectID, message: String) throws {
        var reference: OpaquePointer?
        var newID = target.raw
        try check(git_reference_create(&reference, pointer, name, &newID, 1, message))
        git_reference_free(reference)
    }

    /// All direct references whose names match a glob such as `refs/remotes/*/docver/*`.
    func references(matching glob: String) throws -> [(name: String, target: ObjectID)] {
        var iterator: OpaquePointer?
        try check(git_reference_iterator_glob_new(&iterator, pointer, glob))
        defer { git_reference_iterator_free(iterator) }
        var result: [(String, ObjectID)] = []
        var reference: OpaquePointer?
        while true {
            let code = git_reference_next(&reference, iterator)
            if code == GIT_ITEROVER.rawValue { break }
            try check(code)
            defer { git_reference_free(reference) }
            if let target = git_reference_target(reference) {
                result.append((String(cString: git_reference_name(reference)), ObjectID(target.pointee)))
            }
        }
        return result
    }

    /// Whether git accepts `name` as a reference's full name (a file under `refs/` may have any
    /// name: git ignores such a reference with a warning).
    static func isValidReferenceName(_ name: String) -> Bool {
        _ = libgit2Initialised
        var valid: Int32 = 0
        return git_reference_name_is_valid(&valid, name) == 0 && valid == 1
    }
}
