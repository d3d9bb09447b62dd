import Foundation

/// The files the agent never saves: editors' temporary, swap, backup and lock files, which
/// hold writes in progress rather than documents.
///
/// A pattern is a shell glob (`fnmatch`). A pattern without `/` is matched against every
/// component of a path (so `*.swp` ignores `notes/.todo.txt.swp`, and an ignored folder
/// ignores everything inside it); a pattern with `/` is matched against the whole path
/// relative to the container root (`drafts/*`).
public struct IgnoreList: Sendable, Hashable {
    /// The patterns, in order.
    public var patterns: [String]

    /// What every agent ignores unless told otherwise: vim (`*.swp`, `*.swo`, `*.swx`, `4913`),
    /// emacs (`.#*`, `#*#`), backups (`*~`), LibreOffice (`.~lock.*#`), Microsoft Office
    /// (`~$*`), Kate (`*.kate-swp`), GNOME's atomic writes (`.goutputstream-*`), partial
    /// downloads (`*.part`, `*.crdownload`) and temporary files (`*.tmp`).
    public static let defaultPatterns = [
        "*.swp", "*.swo", "*.swx", "4913", ".#*", "#*#", "*~", ".~lock.*#", "~$*", "*.kate-swp",
        ".goutputstream-*", "*.part", "*.crdownload", "*.tmp",
    ]

    /// The default list.
    public static let standard = IgnoreList(patterns: defaultPatterns)

    /// A list of the given patterns (empty strings are dropped).
    public init(patterns: [String]) {
        self.patterns = patterns.filter { !$0.isEmpty }
    }

    /// True when `path` (relative to the container root) or one of its folders is ignored.
    public func ignores(_ path: String) -> Bool {
        for pattern in patterns {
            if pattern.contains("/") {
                if fnmatch(pattern, path, 0) == 0 { return true }
            } else {
                for component in path.split(separator: "/") where fnmatch(pattern, String(component), 0) == 0 {
                    return true
                }
            }
        }
        return false
    }
}
