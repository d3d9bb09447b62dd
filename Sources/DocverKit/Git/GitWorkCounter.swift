import Synchronization

/// Counts whole-tree operations (and parses of long messages) made within a scope: a task, and the tasks it starts. Tests
/// use it to check that a cost follows the change and not the size of the trees (issue 26),
/// without timing anything. Outside such a scope nothing is counted.
final class GitWorkCounter: Sendable {
    /// Tree diffs made: ``Repository/changedPaths(from:to:)`` and ``Repository/renames(from:to:)``.
    let treeDiffs = Atomic<Int>(0)

    /// Long commit messages (over 4 KB) parsed for their trailers (``Commit/trailers``).
    let longMessageParses = Atomic<Int>(0)

    /// The counter of the current scope, if any.
    @TaskLocal static var current: GitWorkCounter?

    /// Counts one tree diff in the current scope.
    static func countTreeDiff() {
        current?.treeDiffs.add(1, ordering: .relaxed)
    }

    /// Counts one parse of a long message in the current scope.
    static func countLongMessageParse() {
        current?.longMessageParses.add(1, ordering: .relaxed)
    }
}
