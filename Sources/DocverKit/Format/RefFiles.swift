import Foundation

// docs/FORMAT.md, "References": a reference read straight from git's files, without libgit2,
// for the CLI's shortcut to the agent (`docver status` and `docver conflicts`, which must
// answer in a few milliseconds: initialising libgit2 alone takes longer).

/// What a reference holds, read from the files git keeps it in.
enum RefFileValue: Equatable, Sendable {
    /// The commit it points at (hex).
    case commit(String)
    /// A symbolic reference (`HEAD` on a branch): the name it points at.
    case symbolic(String)
    /// Neither a loose file nor a line of `packed-refs` names it.
    case absent
}

/// Reads references the way git stores them in the files backend: a loose file
/// `<git directory>/<name>` holding the hex id (or `ref: <name>` for a symbolic reference),
/// else a line `<hex> <name>` of `<git directory>/packed-refs`. The loose file is read first,
/// then `packed-refs`, as git does: `git pack-refs` writes `packed-refs` before it deletes
/// the loose file, so a reference being packed is found in one or the other.
///
/// Returns nil whenever the answer is in doubt (a reftable repository, a file that cannot
/// be read or does not parse, a name that is no reference): callers then ask libgit2.
enum RefFiles {
    /// The value of `name` (`HEAD`, or a full name such as `refs/heads/docver/laptop`) in
    /// the repository whose git directory is `gitDirectory`; nil when in doubt.
    static func value(of name: String, gitDirectory: String) -> RefFileValue? {
        guard name == "HEAD" || (name.hasPrefix("refs/") && isPlainName(name)) else { return nil }
        // The reftable backend keeps no loose files: `refs/heads` is a stub there.
        guard FileStat(path: gitDirectory + "/reftable") == nil else { return nil }
        let path = gitDirectory + "/" + name
        if let data = FileSystem.contentsIfReadable(path) {
            return parseLoose(data)
        }
        // Unreadable for another reason than absence (a folder by that name, permissions): in doubt.
        guard FileStat(path: path) == nil, name != "HEAD" else { return nil }
        guard let packed = FileSystem.contentsIfReadable(gitDirectory + "/packed-refs") else {
            return FileStat(path: gitDirectory + "/packed-refs") == nil ? .absent : nil
        }
        return parsePacked(packed, name: name)
    }

    /// A loose reference file's value: `<hex>\n` or `ref: <name>\n`.
    static func parseLoose(_ data: Data) -> RefFileValue? {
        guard var text = String(data: data, encoding: .utf8), text.hasSuffix("\n") else { return nil }
        text.removeLast()
        if text.hasPrefix("ref: ") {
            let target = String(text.dropFirst(5))
            return target.hasPrefix("refs/") && isPlainName(target) ? .symbolic(target) : nil
        }
        return isObjectID(text) ? .commit(text) : nil
    }

    /// The value of `name` in `packed-refs`, or `.absent`.
    static func parsePacked(_ data: Data, name: String) -> RefFileValue? {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            // Comments (`# pack-refs with: peeled fully-peeled sorted`) and peeled ids (`^<hex>`).
            if line.hasPrefix("#") || line.hasPrefix("^") { continue }
            guard let space = line.firstIndex(of: " ") else { return nil }
            guard line[line.index(after: space)...] == name else { continue }
            let id = String(line[..<space])
            return isObjectID(id) ? .commit(id) : nil
        }
        return .absent
    }

    /// 40 (SHA-1) or 64 (SHA-256) lowercase hex digits.
    static func isObjectID(_ text: String) -> Bool {
        (text.utf8.count == 40 || text.utf8.count == 64) && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// A name without the components git refuses (`..`, empty ones, a `.lock` end, control
    /// characters, spaces): one that maps to a file below the git directory and nowhere else.
    private static func isPlainName(_ name: String) -> Bool {
        !name.contains("..") && !name.contains("//") && !name.hasSuffix("/") && !name.hasSuffix(".lock")
            && !name.utf8.contains { $0 < 0x21 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }
    }
}
