import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// The inotify watcher on real files in a temporary folder.
@Suite struct TreeWatcherTests {
    final class Tree {
        let root: String
        init(_ name: String = #function) throws {
            root =
                FileManager.default.temporaryDirectory
                .appendingPathComponent("docver-watch-\(name.filter(\.isLetter).prefix(30))-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }

        func write(_ path: String, _ text: String = "x") throws {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        func mkdir(_ path: String) throws {
            try FileManager.default.createDirectory(atPath: root + "/" + path, withIntermediateDirectories: true)
        }
        func remove(_ path: String) throws { try FileManager.default.removeItem(atPath: root + "/" + path) }
        func move(_ from: String, _ to: String) throws { try FileManager.default.moveItem(atPath: root + "/" + from, toPath: root + "/" + to) }
    }

    /// Waits for the events of what was just done and returns them all.
    func drain(_ watcher: TreeWatcher) throws -> [TreeWatcher.Change] {
        let pipe = try WakePipe()
        var all: [TreeWatcher.Change] = []
        for _ in 0..<5 {
            watcher.wait(timeout: .milliseconds(50), waking: pipe)
            let changes = try watcher.changes()
            all += changes
            if changes.isEmpty, !all.isEmpty { break }
        }
        return all
    }

    /// True when a change covers `path`: the file itself, or a folder above it.
    func covers(_ changes: [TreeWatcher.Change], _ path: String) -> Bool {
        changes.contains { change in
            switch change {
            case let .file(file): file == path
            case let .folder(folder): folder.isEmpty || path.hasPrefix(folder + "/") || path == folder
            case .overflow: true
            }
        }
    }

    @Test func reportsWritesInFoldersThatExistedAtStart() throws {
        let tree = try Tree()
        try tree.write("a/b/c/deep.txt")
        let watcher = try TreeWatcher(root: tree.root)
        try watcher.start()
        #expect(watcher.watchCount == 4)
        try tree.write("a/b/c/deep.txt", "changed")
        try tree.write("top.txt")
        let changes = try drain(watcher)
        #expect(changes.contains(.file("a/b/c/deep.txt")))
        #expect(changes.contains(.file("top.txt")))
    }

    @Test func foldersCreatedLaterAreWatchedAndTheirFirstFilesReported() throws {
        let tree = try Tree()
        let watcher = try TreeWatcher(root: tree.root)
        try watcher.start()
        // Created in one go: the files exist before the watcher can add a watch on their folders.
        try tree.write("new/inner/first.txt")
        var changes = try drain(watcher)
        #expect(changes.contains(.file("new/inner/first.txt")))
        #expect(watcher.watchCount == 3)
        // And the new folders' watches work afterwards.
        try tree.write("new/inner/second.txt")
        changes = try drain(watcher)
        #expect(changes.contains(.file("new/inner/second.txt")))
    }

    @Test func movedAndDeletedFoldersAreReportedAsFolders() throws {
        let tree = try Tree()
        try tree.write("old/doc.txt")
        try tree.write("outside/x.txt")
        let watcher = try TreeWatcher(root: tree.root)
        try watcher.start()
        try tree.move("old", "renamed")
        var changes = try drain(watcher)
        #expect(changes.contains(.folder("old")))
        #expect(changes.contains(.folder("renamed")))
        #expect(changes.contains(.file("renamed/doc.txt")))
        // The moved folder's watch now reports under its new name only.
        try tree.write("renamed/doc.txt", "again")
        changes = try drain(watcher)
        #expect(changes.contains(.file("renamed/doc.txt")))
        #expect(!changes.contains(.file("old/doc.txt")))
        try tree.remove("renamed")
        changes = try drain(watcher)
        #expect(changes.contains(.folder("renamed")))
    }

    /// `.git` is never watched; ignored files are reported (the agent drops them), since
    /// `docver status` lists them and the status the agent serves must hear of them.
    @Test func gitIsNotWatchedAndIgnoredFilesAreReported() throws {
        let tree = try Tree()
        try tree.mkdir(".git/objects")
        let watcher = try TreeWatcher(root: tree.root)
        try watcher.start()
        #expect(watcher.watchCount == 1)
        try tree.write(".git/objects/x")
        try tree.write(".note.txt.swp")
        try tree.write("note.txt~")
        try tree.write(".~lock.report.odt#")
        try tree.write("note.txt")
        #expect(watcher.hasPendingEvents)
        let changes = try drain(watcher)
        #expect(!watcher.hasPendingEvents)
        #expect(!changes.contains { if case let .file(path) = $0 { path.hasPrefix(".git") } else { false } })
        for path in ["note.txt", ".note.txt.swp", "note.txt~", ".~lock.report.odt#"] { #expect(changes.contains(.file(path)), "\(path)") }
    }

    /// Thousands of events unread overflow the kernel's queue (fs.inotify.max_queued_events):
    /// the watcher says so, so the agent scans instead of trusting the events it got.
    @Test func aQueueOverflowIsReported() throws {
        let tree = try Tree()
        let watcher = try TreeWatcher(root: tree.root)
        try watcher.start()
        let limit =
            (FileSystem.contentsIfReadable("/proc/sys/fs/inotify/max_queued_events")
                .flatMap { Int(String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) }) ?? 16384
        // Each new file gives at least IN_CREATE, IN_MODIFY and IN_CLOSE_WRITE.
        for index in 0..<(limit / 3 + 200) {
            let fd = open(tree.root + "/f\(index)", O_WRONLY | O_CREAT, 0o644)
            _ = write(fd, "x", 1)
            close(fd)
        }
        let changes = try watcher.changes()
        #expect(changes.contains(.overflow))
    }

    @Test func theWatchLimitIsAClearError() throws {
        let tree = try Tree()
        try tree.mkdir("a/b/c")
        let watcher = try TreeWatcher(root: tree.root, maximumWatches: 2)
        #expect(throws: AgentError.self) { try watcher.start() }
        do {
            try watcher.start()
        } catch let error as AgentError {
            #expect(error.description.contains("inotify watch limit"))
            #expect(error.description.contains(tree.root))
        }
    }

    /// Random file and folder operations; every path touched must be covered by a change the
    /// watcher reported (the file itself or a folder above it), whatever the order.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func everyTouchedPathIsReported(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let tree = try Tree()
        try tree.write("start/a.txt")
        let watcher = try TreeWatcher(root: tree.root)
        try watcher.start()
        var files: Set<String> = ["start/a.txt"]
        var folders: Set<String> = ["start"]
        for _ in 0..<12 {
            var touched: [String] = []
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let folder = ([""] + folders.sorted()).randomElement(using: &random)!
                switch Int.random(in: 0..<5, using: &random) {
                case 0, 1:
                    let path = (folder.isEmpty ? "" : folder + "/") + "f\(Int.random(in: 0..<6, using: &random)).txt"
                    guard !folders.contains(path) else { continue }
                    try tree.write(path, "\(random.next())")
                    files.insert(path)
                    touched.append(path)
                case 2:
                    guard let file = files.sorted().randomElement(using: &random) else { continue }
                    try tree.remove(file)
                    files.remove(file)
                    touched.append(file)
                case 3:
                    let path = (folder.isEmpty ? "" : folder + "/") + "d\(Int.random(in: 0..<3, using: &random))/e"
                    guard !files.contains(path), !files.contains((path as NSString).deletingLastPathComponent) else { continue }
                    try tree.write(path + "/new.txt")
                    folders.insert((path as NSString).deletingLastPathComponent)
                    folders.insert(path)
                    files.insert(path + "/new.txt")
                    touched.append(path + "/new.txt")
                default:
                    guard let from = folders.sorted().randomElement(using: &random) else { continue }
                    let to = "moved\(random.next() % 1000)"
                    guard FileManager.default.fileExists(atPath: tree.root + "/" + from),
                        !FileManager.default.fileExists(atPath: tree.root + "/" + to)
                    else { continue }
                    try tree.move(from, to)
                    let inside = files.filter { $0.hasPrefix(from + "/") }
                    for file in inside {
                        files.remove(file)
                        files.insert(to + String(file.dropFirst(from.count)))
                        touched += [file, to + String(file.dropFirst(from.count))]
                    }
                    let movedFolders = folders.filter { $0 == from || $0.hasPrefix(from + "/") }
                    for moved in movedFolders {
                        folders.remove(moved)
                        folders.insert(to + String(moved.dropFirst(from.count)))
                    }
                }
            }
            let changes = try drain(watcher)
            for path in touched {
                #expect(covers(changes, path), "seed \(seed): \(path) changed but was not reported in \(changes)")
            }
        }
    }
}

@Suite struct IgnoreListTests {
    @Test func defaultsIgnoreEditorsWritesInProgress() {
        let list = IgnoreList.standard
        for path in [
            "notes/.todo.txt.swp", ".x.swo", "4913", "a/.#draft.md", "#draft.md#", "report.odt~",
            ".~lock.report.odt#", "~$budget.xlsx", "dl/file.iso.part", ".goutputstream-XYZ1", "a.tmp",
        ] {
            #expect(list.ignores(path), "\(path)")
        }
        for path in ["notes/todo.txt", "report.odt", "lock.txt", "a/b.swp.txt", "budget.xlsx", "x~y.txt"] {
            #expect(!list.ignores(path), "\(path)")
        }
    }

    @Test func patternsWithASlashMatchTheWholePath() {
        let list = IgnoreList(patterns: ["drafts/*", "build"])
        #expect(list.ignores("drafts/a.txt"))
        #expect(!list.ignores("notes/drafts.txt"))
        #expect(list.ignores("x/build/out.bin"))
        #expect(!list.ignores("x/builder.txt"))
    }
}

@Suite struct AutosaveQueueTests {
    @Test func aDocumentIsDueOnlyAfterItsQuietDelay() throws {
        var queue = AutosaveQueue(quietDelay: .seconds(2))
        let start = ContinuousClock.now
        let note = try DocumentPath("note.txt")
        queue.touch(note, at: start)
        queue.touch(note, at: start + .seconds(1))
        #expect(queue.takeDue(at: start + .milliseconds(2500)).isEmpty)
        #expect(queue.nextDeadline == start + .seconds(3))
        #expect(queue.takeDue(at: start + .seconds(3)) == [note])
        #expect(queue.isEmpty)
    }

    @Test func aFilePackageIsOneDocumentQuietAsAWhole() throws {
        var queue = AutosaveQueue(quietDelay: .seconds(2))
        let start = ContinuousClock.now
        for (offset, file) in ["book.pages/index.xml", "book.pages/images/a.png", "book.pages/meta/info.json"].enumerated() {
            let document = try #require(AutosaveQueue.document(forPath: file, ignore: .standard))
            #expect(document.path == "book.pages")
            queue.touch(document, at: start + .seconds(offset))
        }
        #expect(queue.takeDue(at: start + .seconds(3)).isEmpty)
        #expect(queue.takeDue(at: start + .seconds(4)).map(\.path) == ["book.pages"])
    }

    @Test func pathsTheAgentMustNotSaveHaveNoDocument() {
        for path in ["", ".git", ".git/index", ".docver/x", "notes/.a.txt.swp", "a/\u{1}b.txt"] {
            #expect(AutosaveQueue.document(forPath: path, ignore: .standard) == nil, "\(path)")
        }
        #expect(AutosaveQueue.document(forPath: "notes/a.txt", ignore: .standard)?.path == "notes/a.txt")
    }
}
