import DocverKit
import DocverTestSupport
import Foundation
import Testing

/// `docver diff` writes patches git applies: on random containers with random edits, the
/// patch of the unsaved edits, applied by the real `git apply` to a copy of the saved tree,
/// gives the working tree; the patch between two saves, applied to the first, gives the second.
/// `DOCVER_DIFF_ROUNDS=<n>` runs more rounds (default 6), `DOCVER_DIFF_SEED=<n>` replays one.
@Suite struct CoreDiffTests {
    static let seeds: [UInt64] = {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["DOCVER_DIFF_SEED"].flatMap(UInt64.init) { return [seed] }
        let rounds = environment["DOCVER_DIFF_ROUNDS"].flatMap(Int.init) ?? 6
        return (0..<UInt64(rounds)).map { 83 &* 0x1_0000 &+ $0 &* 7919 }
    }()

    /// Folders without an extension, documents and packages (folders with one), names with
    /// spaces, quotes and non-ASCII letters.
    static let folders = ["", "recipes/", "b c/", "é/deep/"]
    static let names = ["a.txt", "list.md", "q\"uote.txt", "back\\slash.txt", "sp ace.txt", "ü.txt", "-dash.txt", "empty.txt"]
    static let packages = ["trip.pkg", "b c/album.pkg"]

    static func text(_ random: inout SeededRandom) -> String {
        // Few distinct lines, so the diff has to find moved and repeated lines; lines that look
        // like patch syntax must not confuse `git apply`.
        let lines = [
            "alpha", "beta", "gamma", "", "- item", "+ plus", "@@ -1 +1 @@", "diff --git a/x b/x", "--- a/x", " indented", "été", "\\ No newline",
        ]
        let count = Int.random(in: 0...14, using: &random)
        var text = (0..<count).map { _ in lines.randomElement(using: &random)! }.joined(separator: "\n")
        if count > 0 && Int.random(in: 0..<4, using: &random) > 0 { text += "\n" }
        return text
    }

    static func edit(_ text: String, _ random: inout SeededRandom) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = Int.random(in: 0...lines.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: lines.insert(["new line", "beta", "", "- added"].randomElement(using: &random)!, at: position)
            case 1 where position < lines.count: lines.remove(at: position)
            case 2 where position < lines.count: lines[position] += " changed"
            default: if lines.last == "" { lines.removeLast() } else { lines.append("") }  // the final newline
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Writes random documents, returns their paths.
    static func populate(_ container: Container, _ random: inout SeededRandom) throws -> [String] {
        var written: [String] = []
        for _ in 0..<Int.random(in: 2...7, using: &random) {
            let path = folders.randomElement(using: &random)! + names.randomElement(using: &random)!
            try container.write(path.hasSuffix("empty.txt") ? "" : text(&random), to: path)
            written.append(path)
        }
        for package in packages where Bool.random(using: &random) {
            for component in ["text.txt", "notes/day.md"] where Bool.random(using: &random) || component == "text.txt" {
                try container.write(text(&random), to: package + "/" + component)
            }
            written.append(package)
        }
        return Array(Set(written))
    }

    /// Random unsaved edits: changed, deleted and new documents and package components.
    static func mutate(_ container: Container, documents: [String], _ random: inout SeededRandom) throws {
        let fm = FileManager.default
        for document in documents {
            let url = container.root.appendingPathComponent(document)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: continue
            case 1: try fm.removeItem(at: url)
            default:
                if packages.contains(document) {
                    let component = ["text.txt", "notes/day.md", "new.txt"].randomElement(using: &random)!
                    let file = url.appendingPathComponent(component)
                    if fm.fileExists(atPath: file.path), Bool.random(using: &random) {
                        try fm.removeItem(at: file)
                    } else {
                        try container.write(edit((try? container.read(document + "/" + component)) ?? "", &random), to: document + "/" + component)
                    }
                } else {
                    try container.write(edit(try container.read(document), &random), to: document)
                }
            }
        }
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            let path = folders.randomElement(using: &random)! + "new " + names.randomElement(using: &random)!
            try container.write(path.hasSuffix("empty.txt") ? "" : text(&random), to: path)
        }
    }

    /// The files of a tree in a directory (without .git), by relative path.
    static func files(in directory: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let base = directory.standardizedFileURL.path
        guard let enumerator = FileManager.default.enumerator(atPath: base) else { return result }
        for case let relative as String in enumerator where !relative.hasPrefix(".git") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: base + "/" + relative, isDirectory: &isDirectory) else { continue }
            if !isDirectory.boolValue { result[relative] = try Data(contentsOf: URL(fileURLWithPath: base + "/" + relative)) }
        }
        return result
    }

    /// A commit's tree written out in a fresh directory (a git repository of its own, so
    /// `git apply` runs there as in any checkout).
    static func checkout(_ commit: String, of container: Container, into directory: URL) throws {
        try runGit(["init", "-q", directory.path], in: container.root)
        let archive = directory.appendingPathComponent(".git/tree.tar")
        try runGit(["archive", "-o", archive.path, commit], in: container.root)
        let result = try runProcess("/usr/bin/tar", ["-xf", archive.path, "-C", directory.path], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// Applies a patch with the real git: `--check` first, then for real.
    static func apply(_ patch: String, in directory: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = directory.appendingPathComponent(".git/change.patch")
        try Data(patch.utf8).write(to: file)
        for arguments in [["apply", "--check", file.path], ["apply", file.path]] {
            let result = try runProcess("/usr/bin/git", arguments, in: directory)
            #expect(result.status == 0, "git \(arguments[..<2].joined(separator: " ")): \(result.stderr)\n\(patch)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: seeds)
    func patchesOfUnsavedEditsAndOfSavesApplyWithGit(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let documents = try Self.populate(alice, &random)
        let first = try #require(try alice.save(nil)).id
        try Self.mutate(alice, documents: documents, &random)

        // The unsaved edits, through the library and the command line alike.
        let patch = try alice.unsavedEdits().map(\.patch).joined()
        let cli = try docver(["diff"], in: alice.root)
        #expect(cli.status == 0, "\(cli.stderr)")
        #expect(cli.stdout == patch)
        let copy = scratch.path("copy")
        try Self.checkout(first, of: alice, into: copy)
        try Self.apply(patch, in: copy)
        #expect(try Self.files(in: copy) == Self.files(in: alice.root), "seed \(seed)")

        // Between two saves, document by document on the command line: DOC A B.
        guard let second = try alice.save(nil)?.id else { return }
        let changed = Set(try alice.log(limit: 1)[0].changes.map(\.document))
        var perDocument = ""
        for document in changed.sorted() {
            // (After `--`: a name may start with a dash.)
            let result = try docver(["diff", "--", document.path, String(first.prefix(8)), String(second.prefix(8))], in: alice.root)
            // A document added by the second save has no version at the first.
            if result.status != 0 {
                #expect(result.stderr.contains("is not a version of") || result.stderr.contains("no such"), "\(result.stderr)")
                let before = try alice.currentVersion(of: document)
                perDocument += try alice.diff(document, from: .absent, to: .version(#require(before))).patch
                continue
            }
            // The label line goes first; git skips it. (A document the first save did not hold
            // is created by the patch: "nothing -> version …".)
            #expect(
                result.stdout.hasPrefix("# \(document.path): version \(first.prefix(12))")
                    || result.stdout.hasPrefix("# \(document.path): nothing -> version "), "\(result.stdout)")
            perDocument += result.stdout
        }
        let older = scratch.path("older")
        try Self.checkout(first, of: alice, into: older)
        try Self.apply(perDocument, in: older)
        let newer = scratch.path("newer")
        try Self.checkout(second, of: alice, into: newer)
        #expect(try Self.files(in: older) == Self.files(in: newer), "seed \(seed)")
    }

    /// git's `core.bigFileThreshold`: a flat file at least that big is binary to `diff`,
    /// compared by id; added, deleted, changed or unchanged, as between versions and against
    /// the working tree. A smaller file is still a text patch.
    @Test func filesAboveTheBigFileThresholdAreBinary() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try runGit(["config", "core.bigFileThreshold", "1k"], in: alice.root)
        let big = String(repeating: "a line of text\n", count: 100)
        try alice.saveText(big, to: "big.txt")
        try alice.saveText("small\n", to: "small.txt")
        #expect(try docver(["diff", "big.txt"], in: alice.root).stdout == "")
        try alice.write(big + "more\n", to: "big.txt")
        try alice.write("smaller\n", to: "small.txt")
        let changed = try docver(["diff"], in: alice.root)
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(changed.stdout.contains("diff --git a/big.txt b/big.txt\nBinary files a/big.txt and b/big.txt differ\n"), "\(changed.stdout)")
        #expect(changed.stdout.contains("-small\n+smaller\n"), "\(changed.stdout)")
        _ = try alice.saveAll()
        let between = try docver(["diff", "big.txt", "@-1", "@"], in: alice.root)
        #expect(between.stdout.hasSuffix("diff --git a/big.txt b/big.txt\nBinary files a/big.txt and b/big.txt differ\n"), "\(between.stdout)")
        try FileManager.default.removeItem(at: alice.root.appendingPathComponent("big.txt"))
        let deleted = try docver(["diff", "big.txt"], in: alice.root)
        #expect(
            deleted.stdout.hasSuffix("diff --git a/big.txt b/big.txt\ndeleted file mode 100644\nBinary files a/big.txt and /dev/null differ\n"),
            "\(deleted.stdout)")
    }

    @Test func patchHeadersAreGits() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.write("one\n", to: "gone.txt")
        try alice.write("same\n", to: "kept.txt")
        try alice.write("", to: "empty.txt")
        try Data([0, 1, 2]).write(to: alice.root.appendingPathComponent("photo.bin"))
        _ = try alice.save(nil)
        try alice.remove("gone.txt")
        try alice.remove("empty.txt")
        try alice.write("new\n", to: "a \"q\".txt")
        try Data([0, 1, 3]).write(to: alice.root.appendingPathComponent("photo.bin"))
        try alice.write("same\nmore", to: "kept.txt")
        try Data([0x63, 0x61, 0x66, 0xE9, 0x0A]).write(to: alice.root.appendingPathComponent("latin1.txt"))  // "café" in Latin-1

        let result = try docver(["diff"], in: alice.root)
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                diff --git "a/a \\"q\\".txt" "b/a \\"q\\".txt"
                new file mode 100644
                --- /dev/null
                +++ "b/a \\"q\\".txt"
                @@ -0,0 +1 @@
                +new
                diff --git a/empty.txt b/empty.txt
                deleted file mode 100644
                diff --git a/gone.txt b/gone.txt
                deleted file mode 100644
                --- a/gone.txt
                +++ /dev/null
                @@ -1 +0,0 @@
                -one
                diff --git a/kept.txt b/kept.txt
                --- a/kept.txt
                +++ b/kept.txt
                @@ -1 +1,2 @@
                 same
                +more
                \\ No newline at end of file
                diff --git a/latin1.txt b/latin1.txt
                new file mode 100644
                Binary files /dev/null and b/latin1.txt differ
                diff --git a/photo.bin b/photo.bin
                Binary files a/photo.bin and b/photo.bin differ

                """)
        // One document, and nothing for a document without edits.
        #expect(try docver(["diff", "gone.txt"], in: alice.root).stdout.hasPrefix("diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n"))
        let saved = try alice.save([DocumentPath("kept.txt")])
        #expect(saved != nil)
        let none = try docver(["diff", "kept.txt"], in: alice.root)
        #expect(none.status == 0 && none.stdout.isEmpty && none.stderr.isEmpty)
        // A version against the working copy: @-1 of kept.txt is "same\n", the file now "same\nmore".
        #expect(try docver(["diff", "kept.txt", "@-1"], in: alice.root).stdout.contains(" -> working copy\ndiff --git a/kept.txt b/kept.txt\n"))
        let unknown = try docver(["diff", "nothing.txt"], in: alice.root)
        #expect(unknown.status == 1 && unknown.stderr == "docver: error: no such document: nothing.txt\n")
    }
}
