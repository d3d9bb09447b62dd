import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// docver's own status loop (`WorkingTreeScan`) only narrows down what libgit2's diff looks
/// at. The oracles: libgit2's diff of the whole working tree (the status before the scan),
/// and git's own answer (`git diff HEAD` and `git ls-files --others --exclude-standard`).
/// Random working trees, changed at random between rounds: contents of the same size with
/// the modification time put back, modes, deletions of files and folders, files that become
/// folders and links and the other way round, untracked and ignored files and folders, a
/// repository inside, changes staged with git, racily clean entries; names that sort
/// differently as files and as folders, two spellings of "é", pathspec characters.
@Suite struct WorkingTreeScanTests {
    static let names = ["a", "a.b", "a-b", "a0", "b c", "\u{e9}", "e\u{301}", "x*y", "q[1]", "z~", ".hidden", "doc.txt"]

    @Test(arguments: 0..<12)
    func theScannedStatusIsTheWholeDiffsAndGits(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) + 4_100)
        let scratch = try TempRepository()
        let tree = Tree(root: scratch.url.path)
        try tree.write(".gitignore", "*.tmp\nignored/\n")
        for _ in 0..<Int.random(in: 15...50, using: &random) {
            try? tree.write(tree.randomPath(using: &random), tree.randomContents(using: &random))  // unless a file is in the way
        }
        var head = try tree.commit(scratch)
        var scanned = 0
        for round in 0..<14 {
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                try tree.mutate(scratch, using: &random)
            }
            if Int.random(in: 0..<3, using: &random) == 0 { head = try tree.commit(scratch) }
            let context = "seed \(seed), round \(round)"

            let whole = try scratch.repository.changesFromTreeToWorkdir(head, scanning: false)
            if try tree.scanCanVouch(scratch) {
                // Nothing the scan cannot vouch for was made: it must not step aside.
                #expect(try scratch.repository.pathsToLookAt(since: scratch.repository.tree(head), refreshIndex: false) != nil, "\(context)")
                scanned += 1
            }
            let narrowed = try scratch.repository.changesFromTreeToWorkdir(head, refreshIndex: round % 2 == 0)
            #expect(Self.listing(narrowed) == Self.listing(whole), "\(context)")
            let gits = try Self.gitsAnswer(scratch)
            let ours = try Self.comparable(Set(narrowed.map(\.path)), scratch)
            // docver never misses what git sees; what only docver sees differs from HEAD in
            // fact (git, comparing times to the second, misses a file rewritten with the same
            // size and its modification time put back within the second of its change time).
            #expect(gits.subtracting(ours).isEmpty, "\(context): only git \(gits.subtracting(ours).sorted())")
            for path in ours.subtracting(gits) {
                #expect(try tree.differsFromHead(path, scratch), "\(context): only docver \(path)")
            }
        }
        #expect(scanned > 0)
    }

    /// A folder wider than `WorkingTreeScan.wideFolder` has its files stat-ed after the folders
    /// were read, shared among the threads: the same answers.
    @Test func aWideFolderGivesTheSameAnswers() throws {
        var random = SeededRandom(seed: 4_200)
        let scratch = try TempRepository()
        let tree = Tree(root: scratch.url.path)
        let count = WorkingTreeScan.wideFolder + 900
        for number in 0..<count { try tree.write("wide/d\(number).txt", "\(number)\n") }
        try tree.write("wide/inner/kept.txt", "kept\n")
        let head = try tree.commit(scratch)
        for round in 0..<4 {
            for _ in 0..<12 {
                let file = "wide/d\(Int.random(in: 0..<count, using: &random)).txt"
                guard FileManager.default.fileExists(atPath: tree.full(file)), !tree.isFolder(file) else { continue }
                switch Int.random(in: 0..<5, using: &random) {
                case 0:  // the same size, the modification time put back
                    var info = stat()
                    lstat(tree.full(file), &info)
                    let old = try String(contentsOfFile: tree.full(file), encoding: .utf8)
                    try tree.write(
                        file, String(old.dropLast()).replacingOccurrences(of: "1", with: "2").replacingOccurrences(of: "0", with: "1") + "\n")
                    var times = [info.st_atim, info.st_mtim]
                    utimensat(AT_FDCWD, tree.full(file), &times, 0)
                case 1: try tree.remove(file)
                case 2: chmod(tree.full(file), 0o755)
                case 3:
                    try tree.remove(file)
                    try tree.write(file + "/now-a-folder.txt", "inside\n")
                default: try tree.write("wide/new-\(Int.random(in: 0..<1_000, using: &random)).txt", "new\n")
                }
            }
            #expect(try scratch.repository.pathsToLookAt(since: scratch.repository.tree(head), refreshIndex: false) != nil)
            let whole = try scratch.repository.changesFromTreeToWorkdir(head, scanning: false)
            let narrowed = try scratch.repository.changesFromTreeToWorkdir(head, refreshIndex: round % 2 == 1)
            #expect(!whole.isEmpty)
            #expect(Self.listing(narrowed) == Self.listing(whole), "round \(round)")
            let ours = try Self.comparable(Set(narrowed.map(\.path)), scratch)
            let gits = try Self.gitsAnswer(scratch)
            #expect(gits.subtracting(ours).isEmpty, "round \(round): only git \(gits.subtracting(ours).sorted())")
            for path in ours.subtracting(gits) {
                #expect(try tree.differsFromHead(path, scratch), "round \(round): only docver \(path)")
            }
        }
    }

    /// A racily clean entry: the index holds the stat data of the file as it is, but another
    /// blob of the same size, and the file was modified in the second the index file was
    /// written (here: later). Stat data cannot tell; the contents must be compared.
    @Test func aRacilyCleanEntryIsLookedAt() throws {
        let scratch = try TempRepository()
        let tree = Tree(root: scratch.url.path)
        try tree.write("doc.txt", "before\n")
        let head = try tree.commit(scratch)
        try tree.write("doc.txt", "after!\n")
        var times = [timespec(tv_sec: time(nil) + 3_600, tv_nsec: 0), timespec(tv_sec: time(nil) + 3_600, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, scratch.url.path + "/doc.txt", &times, 0) == 0)
        var stat = try #require(FileStat(path: scratch.url.path + "/doc.txt"))
        stat.takenAtSeconds = Int.max  // recorded as clean, not smudged by `add`
        let index = try scratch.repository.index()
        try index.add(path: "doc.txt", id: try scratch.blob("before\n"), mode: .blob, stat: stat)
        try index.write()
        let changes = try scratch.repository.changesFromTreeToWorkdir(head)
        #expect(Self.listing(changes) == ["modified doc.txt"])
    }

    static func listing(_ changes: [Repository.WorkdirChange]) -> [String] {
        changes.map { "\($0.kind) \($0.path)" }.sorted()
    }

    /// The paths that differ between HEAD and the working tree, and the untracked ones not
    /// ignored, as git sees them, but for two kinds of path where git and libgit2 differ in
    /// ways that are no matter of the scan's (which the whole diff holds it to anyway):
    /// - repositories inside: git lists one whose files are gone as an untracked folder,
    ///   libgit2 nothing;
    /// - paths the index holds differently from HEAD (staged with git): libgit2's diff of the
    ///   tree against the working tree through the index joins two diffs and can list a file
    ///   whose contents are HEAD's again; `git diff HEAD` compares the contents. (docver's
    ///   status compares such documents' contents itself: `dropStaleIndexChanges`.)
    static func gitsAnswer(_ scratch: TempRepository) throws -> Set<String> {
        let changed = try scratch.git(["diff", "HEAD", "--name-only", "--no-renames", "-z"])
        let untracked = try scratch.git(["ls-files", "--others", "--exclude-standard", "-z"])
        return try comparable(Set((changed + untracked).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }), scratch)
    }

    static func comparable(_ paths: Set<String>, _ scratch: TempRepository) throws -> Set<String> {
        let staged = try scratch.git(["diff", "--cached", "--name-only", "--no-renames", "-z"])
        let left = Set(staged.split(separator: 0).map { String(decoding: $0, as: UTF8.self) })
        return paths.filter { !$0.hasPrefix("inner-repository-") && !left.contains($0) }
    }

    static func withoutInnerRepositories(_ paths: Set<String>) -> Set<String> {
        paths.filter { !$0.hasPrefix("inner-repository-") }
    }

    /// A working tree changed by hand: files, folders, links, modes and times.
    struct Tree {
        let root: String

        func full(_ path: String) -> String { root + "/" + path }

        func write(_ path: String, _ contents: String) throws {
            let url = URL(fileURLWithPath: full(path))
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: url)
        }

        func randomPath(using random: inout SeededRandom) -> String {
            (0..<Int.random(in: 1...3, using: &random)).map { _ in WorkingTreeScanTests.names.randomElement(using: &random)! }
                .joined(separator: "/")
        }

        func randomContents(using random: inout SeededRandom) -> String {
            "\(Int.random(in: 0..<1_000, using: &random))\n"
        }

        /// Files and links under the top, not under `.git`, as relative paths.
        func entries() -> [String] {
            guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
            var found: [String] = []
            while let path = walker.nextObject() as? String {
                if path.split(separator: "/").last == ".git" {  // the repository's, or one inside
                    walker.skipDescendants()
                    continue
                }
                found.append(path)
            }
            return found.sorted()
        }

        func isFolder(_ path: String) -> Bool {
            var info = stat()
            return lstat(full(path), &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        }

        func remove(_ path: String) throws { try FileManager.default.removeItem(atPath: full(path)) }

        func commit(_ scratch: TempRepository) throws -> ObjectID {
            // Repositories inside stay untracked (git would add them as submodules).
            _ = try scratch.git(["add", "-A", "--", ".", ":(exclude)inner-repository-*"])
            _ = try scratch.git(["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "state"])
            let id = String(decoding: try scratch.git(["rev-parse", "HEAD^{tree}"]), as: UTF8.self)
            return try #require(ObjectID(hex: id.trimmingCharacters(in: .whitespacesAndNewlines)))
        }

        func tracked(_ scratch: TempRepository) throws -> [String] {
            String(decoding: try scratch.git(["ls-files", "-z"]), as: UTF8.self).split(separator: "\0").map(String.init)
        }

        /// Whether every folder the index tracks is still a folder (not a file or a link in its
        /// place) and the index holds no repository: otherwise the scan steps aside.
        func scanCanVouch(_ scratch: TempRepository) throws -> Bool {
            if String(decoding: try scratch.git(["ls-files", "-s"]), as: UTF8.self).hasPrefix("160000") { return false }
            if String(decoding: try scratch.git(["ls-files", "-s"]), as: UTF8.self).contains("\n160000") { return false }
            var folders = Set<String>()
            for path in try tracked(scratch) {
                var parts = path.split(separator: "/").dropLast()
                while !parts.isEmpty {
                    folders.insert(parts.joined(separator: "/"))
                    parts = parts.dropLast()
                }
            }
            return folders.allSatisfy { folder in
                var info = stat()
                return lstat(full(folder), &info) != 0 || info.st_mode & S_IFMT == S_IFDIR
            }
        }

        /// One random change.
        func mutate(_ scratch: TempRepository, using random: inout SeededRandom) throws {
            let all = entries()
            let files = all.filter { !isFolder($0) && $0 != ".gitignore" }
            let folders = all.filter { isFolder($0) }
            let file = files.randomElement(using: &random)
            let folder = folders.randomElement(using: &random)
            switch Int.random(in: 0..<15, using: &random) {
            case 0, 1:  // new contents, maybe of the same size with the old modification time
                guard let file, !isLink(file) else { return }
                var info = stat()
                lstat(full(file), &info)
                let old = (try? String(contentsOfFile: full(file), encoding: .utf8)) ?? ""
                let new = String(old.reversed().map { $0 == "9" ? "0" : $0 })
                try write(file, old.count == new.count && new != old ? new : randomContents(using: &random))
                if Bool.random(using: &random) {
                    var times = [info.st_atim, info.st_mtim]
                    utimensat(AT_FDCWD, full(file), &times, AT_SYMLINK_NOFOLLOW)
                }
            case 2:  // mode
                guard let file, !isLink(file) else { return }
                var info = stat()
                lstat(full(file), &info)
                chmod(full(file), info.st_mode & 0o100 != 0 ? 0o644 : 0o755)
            case 3:  // touched: the same contents, new times
                guard let file else { return }
                utimensat(AT_FDCWD, full(file), nil, AT_SYMLINK_NOFOLLOW)
            case 4:  // deleted file
                guard let file else { return }
                try remove(file)
            case 5:  // deleted folder
                guard let folder else { return }
                try remove(folder)
            case 6:  // a file becomes a folder
                guard let file else { return }
                try remove(file)
                try write(file + "/" + WorkingTreeScanTests.names.randomElement(using: &random)!, randomContents(using: &random))
            case 7:  // a folder becomes a file
                guard let folder else { return }
                try remove(folder)
                try write(folder, randomContents(using: &random))
            case 8:  // a file becomes a link, or a folder a link to a folder
                if let folder, Bool.random(using: &random) {
                    let target = folder + ".moved"
                    if FileManager.default.fileExists(atPath: full(target)) { return }
                    try FileManager.default.moveItem(atPath: full(folder), toPath: full(target))
                    try FileManager.default.createSymbolicLink(
                        atPath: full(folder), withDestinationPath: URL(fileURLWithPath: target).lastPathComponent)
                    return
                }
                guard let file else { return }
                try remove(file)
                try FileManager.default.createSymbolicLink(atPath: full(file), withDestinationPath: "elsewhere")
            case 9:  // new files, tracked folder or not, some ignored
                let name = WorkingTreeScanTests.names.randomElement(using: &random)!
                let suffix = ["", ".tmp", "/inner", "/deeper/inner"].randomElement(using: &random)!
                let base = Bool.random(using: &random) ? (folder ?? "") : "fresh-\(Int.random(in: 0..<3, using: &random))"
                let path = (base.isEmpty ? "" : base + "/") + name + suffix
                try? write(path, randomContents(using: &random))  // not where a file is in the way
            case 10:  // an ignored folder, and an empty one
                try? write("ignored/" + WorkingTreeScanTests.names.randomElement(using: &random)!, "ignored\n")
                try? FileManager.default.createDirectory(
                    atPath: full("empty-\(Int.random(in: 0..<3, using: &random))"), withIntermediateDirectories: true)
            case 11:  // a repository inside, untracked
                let inner = "inner-repository-\(Int.random(in: 0..<2, using: &random))"
                if FileManager.default.fileExists(atPath: full(inner)) { return }
                guard (try? write(inner + "/file.txt", "inner\n")) != nil else { return }
                _ = try scratch.git(["init", "-q", inner])
                _ = try scratch.git(["-C", inner, "add", "-A"])
                _ = try scratch.git(["-C", inner, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "inner"])
            case 12, 13:  // a change staged with git, then maybe changed again or undone
                guard let file, !isLink(file), !file.hasPrefix("inner-repository-") else { return }
                try write(file, randomContents(using: &random) + "staged\n")
                _ = try scratch.git(["--literal-pathspecs", "add", "--force", "--", file])
                if Bool.random(using: &random) { try write(file, randomContents(using: &random)) }
            default:  // a time in the future: racily clean until the index is newer
                guard let file else { return }
                var times = [timespec(tv_sec: time(nil) + 600, tv_nsec: 0), timespec(tv_sec: time(nil) + 600, tv_nsec: 0)]
                utimensat(AT_FDCWD, full(file), &times, AT_SYMLINK_NOFOLLOW)
            }
        }

        /// Whether the working tree's `path` differs from HEAD's: absent from either, another
        /// kind or mode, other contents (a link's target).
        func differsFromHead(_ path: String, _ scratch: TempRepository) throws -> Bool {
            let listing = try scratch.git(["--literal-pathspecs", "ls-tree", "-z", "HEAD", "--", path])
            guard let line = listing.split(separator: 0).first else { return true }
            let fields = String(decoding: line, as: UTF8.self).split(separator: " ", maxSplits: 2)
            guard fields.count == 3, let id = fields[2].split(separator: "\t").first else { return true }
            let saved = try scratch.git(["cat-file", "blob", String(id)])
            var info = stat()
            guard lstat(full(path), &info) == 0 else { return true }
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                guard fields[0] == "120000" else { return true }
                return (try? FileManager.default.destinationOfSymbolicLink(atPath: full(path))) != String(decoding: saved, as: UTF8.self)
            case S_IFREG:
                guard fields[0] == (info.st_mode & 0o100 != 0 ? "100755" : "100644") else { return true }
                return FileManager.default.contents(atPath: full(path)) != saved
            default:
                return true
            }
        }

        func isLink(_ path: String) -> Bool {
            var info = stat()
            return lstat(full(path), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
        }
    }
}
