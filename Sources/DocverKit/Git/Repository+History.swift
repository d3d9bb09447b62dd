internal import Clibgit2
import Foundation

// The commit graph: merge bases, ancestry, history walks.

extension Repository {
    func mergeBase(_ a: ObjectID, _ b: ObjectID) throws -> ObjectID? {
        var oid = git_oid()
        var ra = a.raw, rb = b.raw
        let result = git_merge_base(&oid, pointer, &ra, &rb)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result)
        return ObjectID(oid)
    }

    /// Every best common ancestor of two commits: one as a rule, several after criss-cross
    /// merges (two lines each merging the other); empty when they are unrelated.
    func mergeBases(_ a: ObjectID, _ b: ObjectID) throws -> [ObjectID] {
        var array = git_oidarray()
        var ra = a.raw, rb = b.raw
        let result = git_merge_bases(&array, pointer, &ra, &rb)
        if result == GIT_ENOTFOUND.rawValue { return [] }
        try check(result)
        defer { git_oidarray_dispose(&array) }
        return (0..<array.count).map { ObjectID(array.ids[$0]) }
    }

    /// True when `commit` is a strict descendant of `ancestor`.
    func isDescendant(_ commit: ObjectID, of ancestor: ObjectID) throws -> Bool {
        var c = commit.raw, a = ancestor.raw
        return try check(git_graph_descendant_of(pointer, &c, &a)) == 1
    }

    func isAncestorOrSame(_ ancestor: ObjectID, of commit: ObjectID) throws -> Bool {
        try ancestor == commit || isDescendant(commit, of: ancestor)
    }

    func revwalk(from tips: [ObjectID], hiding hidden: [ObjectID] = [], topological: Bool = true) throws -> Revwalk {
        let walk = try Revwalk(repository: self)
        walk.setSorting(topological ? (GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue) : GIT_SORT_NONE.rawValue)
        for tip in tips { try walk.push(tip) }
        for hide in hidden { try walk.hide(hide) }
        return walk
    }

    /// The best common ancestor of several commits, for an octopus merge; nil when unrelated.
    func mergeBase(of commits: [ObjectID]) throws -> ObjectID? {
        guard commits.count > 1 else { return commits.first }
        var raw = commits.map(\.raw)
        var oid = git_oid()
        let result = git_merge_base_octopus(&oid, pointer, raw.count, &raw)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result)
        return ObjectID(oid)
    }
}
