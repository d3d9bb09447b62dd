import DocverKit
import Foundation
import Testing

/// Document names relative to the current directory, the version syntax and its one argument
/// order, `log -<n>` and dates on input (docs/CLI.md, "Conventions"), run on the built binary.
@Suite struct PathsCLITests {
    private func expectOK(_ result: ProcessResult, _ arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 0, "\(arguments) exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.isEmpty, "\(arguments) stderr: \(result.stderr)", sourceLocation: sourceLocation)
    }

    private func expectError(
        _ result: ProcessResult, _ error: String, hint: String? = nil, status: Int32 = 1,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == status, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "stdout: \(result.stdout)", sourceLocation: sourceLocation)
        #expect(
            result.stderrLines == ["docver: error: \(error)"] + (hint.map { ["hint: \($0)"] } ?? []),
            "\(result.stderr)", sourceLocation: sourceLocation)
    }

    /// alice with `list.txt` and `recipes/cake.md` saved.
    private func kitchen(_ scratch: Scratch) throws -> Container {
        let alice = try scratch.device("alice")
        try alice.write("milk\n", to: "list.txt")
        try alice.write("flour\n", to: "recipes/cake.md")
        _ = try alice.save(nil)
        return alice
    }

    // MARK: Item 3: names relative to the current directory

    @Test func namesAreReadFromTheCurrentDirectory() throws {
        let scratch = try Scratch()
        let alice = try kitchen(scratch)
        let recipes = alice.root.appendingPathComponent("recipes")
        try alice.write("flour\nsugar\n", to: "recipes/cake.md")

        let save = try docver(["save", "cake.md"], in: recipes)
        expectOK(save)
        #expect(save.stdout.hasPrefix("modified: recipes/cake.md\n"), "output names stay container-relative: \(save.stdout)")
        #expect(try alice.status().changed.isEmpty)
        // `..` goes up; an absolute path inside the container is accepted.
        #expect(try docver(["show", "../list.txt"], in: recipes).stdout == "milk\n")
        #expect(try docver(["show", alice.root.path + "/list.txt"], in: recipes).stdout == "milk\n")
        #expect(try docver(["show", alice.root.path + "/recipes/../recipes/cake.md"], in: alice.root).stdout == "flour\nsugar\n")
        #expect(try docver(["-C", alice.root.path, "show", alice.root.path + "/list.txt"], in: scratch.url).stdout == "milk\n")
        // -C puts docver in that directory, as git does.
        #expect(try docver(["-C", recipes.path, "show", "cake.md"], in: scratch.url).stdout == "flour\nsugar\n")
        #expect(try docver(["show", "cake.md", "-C", "recipes"], in: alice.root).stdout == "flour\nsugar\n")
        let versions = try docver(["versions", "--json", "cake.md"], in: recipes)
        expectOK(versions)
        #expect(try (parseJSON(versions.stdoutData) as? [String: Any])?["document"] as? String == "recipes/cake.md")
        #expect(try docver(["log", "cake.md"], in: recipes).stdout.split(separator: "\n").count == 2)
        expectOK(try docver(["diff", "cake.md"], in: recipes))

        // A folder stands for the documents in it: `diff .` in recipes/ is recipes' edits only.
        try alice.write("milk\neggs\n", to: "list.txt")
        try alice.write("flour\n", to: "recipes/cake.md")
        func files(_ result: ProcessResult) -> [String] {
            result.stdout.split(separator: "\n").filter { $0.hasPrefix("diff --git ") }.map(String.init)
        }
        let cake = "diff --git a/recipes/cake.md b/recipes/cake.md", list = "diff --git a/list.txt b/list.txt"
        #expect(files(try docver(["diff", "."], in: recipes)) == [cake])
        #expect(files(try docver(["diff", "recipes"], in: alice.root)) == [cake])
        #expect(files(try docver(["diff", "."], in: alice.root)) == [list, cake])
        #expect(files(try docver(["diff", ".."], in: recipes)) == [list, cake])
        #expect(files(try docver(["diff"], in: recipes)) == [list, cake], "without names: the whole container")
    }

    /// Every command that takes a document reads it from the current directory: each one's
    /// output or error names `recipes/cake.md`.
    @Test func everyDocumentCommandReadsRelativeNames() throws {
        let scratch = try Scratch()
        let alice = try kitchen(scratch)
        let recipes = alice.root.appendingPathComponent("recipes")
        let first = try #require(try alice.currentVersion(of: DocumentPath("recipes/cake.md"))).id
        try alice.write("flour\neggs\n", to: "recipes/cake.md")

        #expect(try docver(["diff", "cake.md"], in: recipes).stdout.hasPrefix("diff --git a/recipes/cake.md b/recipes/cake.md\n"))
        #expect(try docver(["conflicts", "cake.md"], in: recipes).stdout == "recipes/cake.md is not in conflict\n")
        expectError(
            try docver(["mark-resolved", "cake.md"], in: recipes), "recipes/cake.md is not in conflict",
            hint: "list documents in conflict with 'docver conflicts'")
        expectError(
            try docver(["resolve", "cake.md", "--strategy", "latest-date"], in: recipes), "recipes/cake.md is not in conflict",
            hint: "list documents in conflict with 'docver conflicts'")
        #expect(try docver(["remove-other-versions", "cake.md"], in: recipes).stderr.contains("recipes/cake.md"))
        expectOK(try docver(["save", "cake.md"], in: recipes))
        let eggs = try #require(try alice.currentVersion(of: DocumentPath("recipes/cake.md"))).shortID
        #expect(try alice.read("recipes/cake.md") == "flour\neggs\n")
        let replace = try docver(["replace", "cake.md", String(first.prefix(8))], in: recipes)
        expectOK(replace)
        #expect(replace.stdout.hasPrefix("recipes/cake.md: version \(first.prefix(12)) is now current"))
        #expect(try alice.read("recipes/cake.md") == "flour\n")
        let restore = try docver(["restore", "cake.md", "@-1"], in: recipes)
        expectOK(restore)
        #expect(restore.stdout.hasPrefix("restored recipes/cake.md as save "))
        #expect(try alice.read("recipes/cake.md") == "flour\neggs\n")
        #expect(try docver(["log", "-1", "cake.md"], in: recipes).stdout.hasSuffix("Restore recipes/cake.md to version \(eggs)\n"))
        try expectFsckClean(alice.root)
    }

    @Test func namesOutsideTheContainerAreRefusedAndChangeNothing() throws {
        let scratch = try Scratch()
        let alice = try kitchen(scratch)
        let recipes = alice.root.appendingPathComponent("recipes")
        try Data("outside\n".utf8).write(to: scratch.path("outside.txt"))
        try alice.write("changed\n", to: "list.txt")
        let before = try unchangedState(alice)
        for (name, directory) in [
            ("../../outside.txt", recipes), ("../outside.txt", alice.root), (scratch.path("outside.txt").path, recipes),
            ("/", alice.root), ("../.git/config", recipes), ("..", alice.root), (".git", alice.root), ("../.git", recipes),
        ] {
            for command in [["save"], ["show"], ["versions"], ["log"], ["diff"], ["restore", "--at", "2026-11-01"]] {
                let result = try docver([command[0], name] + command.dropFirst(), in: directory)
                #expect(result.status == 1, "\(command) \(name): \(result.stderr)")
                #expect(result.stdout.isEmpty)
                #expect(
                    result.stderrLines.count == 1 && result.stderr.hasPrefix("docver: error: invalid document name '\(name)': "),
                    "\(command) \(name): \(result.stderr)")
            }
        }
        let outside = try docver(["save", scratch.path("outside.txt").path], in: alice.root)
        #expect(
            outside.stderr
                == "docver: error: invalid document name '\(scratch.path("outside.txt").path)': it is outside the container (\(alice.root.path))\n")
        #expect(try unchangedState(alice) == before)
        #expect(try alice.read("list.txt") == "changed\n")
    }

    @Test func aNameFromTheWrongFolderSuggestsTheDocument() throws {
        let scratch = try Scratch()
        let alice = try kitchen(scratch)
        let recipes = alice.root.appendingPathComponent("recipes")
        let before = try unchangedState(alice)
        expectError(try docver(["save", "cake.md"], in: alice.root), "no such document: cake.md", hint: "did you mean recipes/cake.md?")
        expectError(
            try docver(["versions", "recipes/cake.md"], in: recipes), "no such document: recipes/recipes/cake.md",
            hint: "did you mean cake.md?")
        expectError(try docver(["show", "list.txt"], in: recipes), "no such document: recipes/list.txt", hint: "did you mean ../list.txt?")
        // An unsaved new document is found too; a name found nowhere gets no hint.
        try alice.write("draft\n", to: "recipes/pie.md")
        expectError(try docver(["save", "pie.md"], in: alice.root), "no such document: pie.md", hint: "did you mean recipes/pie.md?")
        expectError(try docver(["save", "nowhere.md"], in: recipes), "no such document: recipes/nowhere.md")
        #expect(try unchangedState(alice) == before)
    }

    // MARK: Item 4: the version syntax and one argument order

    @Test func versionsByIdCurrentStepsBackAndDate() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        // Three saves a second apart, all in the past: the saves `restore` and `replace` make
        // below (another process, the machine's clock) are newer, however fast the machine.
        var saves: [String] = []
        for (index, text) in ["one\n", "two\n", "three\n"].enumerated() {
            saves.append(try alice.datedBeforeNow(3 - index).saveText(text, to: "notes.txt"))
        }
        let root = alice.root
        func show(_ arguments: String...) throws -> String {
            let result = try docver(["show", "notes.txt"] + arguments, in: root)
            expectOK(result, arguments)
            return result.stdout
        }
        #expect(try show() == "three\n")
        for current in ["@", "HEAD", "@-0", "HEAD~0"] { #expect(try show(current) == "three\n") }
        for back in ["@-1", "@~1", "HEAD~1", "@-", "HEAD~"] { #expect(try show(back) == "two\n") }
        #expect(try show("@-2") == "one\n")
        #expect(try show(String(saves[0].prefix(6)).uppercased()) == "one\n")
        expectError(
            try docver(["show", "notes.txt", "@-3"], in: root), "notes.txt has 2 older versions; @-3 goes further back",
            hint: "list the versions of notes.txt with 'docver versions notes.txt --all'")
        expectError(
            try docver(["show", "notes.txt", "@-x"], in: root),
            "invalid version '@-x': expected a version id (4 or more hexadecimal digits), @, @-N or @{DATE}",
            hint: "list the versions of notes.txt with 'docver versions notes.txt --all'")

        // --at and @{DATE}: the version current at that date, in any accepted form.
        let dates =
            try alice.history(of: DocumentPath("notes.txt")).map(\.modified).reversed() + [
                #require(try alice.currentVersion(of: DocumentPath("notes.txt"))).modified
            ]
        let utc = ISO8601DateFormatter()
        let local = DateFormatter()
        local.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        local.timeZone = .current
        for (index, date) in dates.enumerated() {
            let expected = ["one\n", "two\n", "three\n"][index]
            #expect(try show("--at", utc.string(from: date)) == expected)
            #expect(try show("--at", local.string(from: date)) == expected)
            #expect(try show("@{\(utc.string(from: date))}") == expected)
            if index > 0 { #expect(try show("--at", utc.string(from: date.addingTimeInterval(-1))) == ["one\n", "two\n"][index - 1]) }
        }
        #expect(try show("--at", "9999-12-31") == "three\n")
        expectError(
            try docver(["show", "notes.txt", "--at", "2000-01-01"], in: root),
            "notes.txt had no version at \(utc.string(from: try #require(DateInput.parse("2000-01-01")))) (its first save is later)",
            hint: "list the versions of notes.txt with 'docver versions notes.txt --all'")
        let badDate = try docver(["show", "notes.txt", "--at", "2026-02-30"], in: root)
        #expect(badDate.status == 64)
        #expect(
            badDate.stderr.hasPrefix(
                "Error: invalid date '2026-02-30': expected an ISO 8601 date such as 2026-11-01, 2026-11-01T09:30 or 2026-11-01T09:30:00+01:00\n"))
        #expect(try docver(["show", "notes.txt", "@", "--at", "2026-11-01"], in: root).status == 64)

        // restore and replace take the same syntax; each makes a new save with the old contents.
        let restore = try docver(["restore", "notes.txt", "@-2"], in: root)
        expectOK(restore)
        #expect(try alice.read("notes.txt") == "one\n")
        let replace = try docver(["replace", "notes.txt", "--at", utc.string(from: dates[1])], in: root)
        expectOK(replace)
        #expect(try alice.read("notes.txt") == "two\n")
        #expect(try alice.history(of: DocumentPath("notes.txt")).count == 4)
        try expectFsckClean(root)
    }

    @Test func markResolvedFollowsTheOldVersionFirstOrderWithAHint() throws {
        let scratch = try Scratch()
        let (alice, _, notes) = try twoDevicesInConflict(scratch)
        let version = try #require(try alice.unresolvedConflictVersions(of: notes).first).id
        let short = String(version.prefix(8))
        let marked = try docver(["mark-resolved", short, "notes.txt"], in: alice.root)
        #expect(marked.status == 0)
        #expect(marked.stderrLines == ["hint: the document comes before the version: docver mark-resolved notes.txt \(short)"])
        #expect(try alice.unresolvedConflictVersions(of: notes).isEmpty)
        #expect(try alice.resolvedConflictVersions(of: notes).map(\.id) == [version])
    }

    @Test func theOldVersionFirstOrderWorksWithAHintAndNoHintHasAPlaceholder() throws {
        let scratch = try Scratch()
        let alice = try kitchen(scratch)
        let recipes = alice.root.appendingPathComponent("recipes")
        let first = try #require(try alice.currentVersion(of: DocumentPath("recipes/cake.md"))).id
        try alice.write("flour\nbutter\n", to: "recipes/cake.md")
        _ = try alice.save(nil)
        let short = String(first.prefix(8))

        let show = try docver(["show", short, "cake.md"], in: recipes)
        #expect(show.status == 0)
        #expect(show.stdout == "flour\n")
        #expect(show.stderrLines == ["hint: the document comes before the version: docver show cake.md \(short)"])
        let current = try docver(["show", "@", "cake.md"], in: recipes)
        #expect(current.stdout == "flour\nbutter\n")
        #expect(current.stderrLines == ["hint: the document comes before the version: docver show cake.md @"])
        let head = try docver(["show", "HEAD", "recipes/cake.md"], in: alice.root)
        #expect(head.stdout == "flour\nbutter\n")
        let diff = try docver(["diff", short, "cake.md"], in: recipes)
        #expect(diff.stdout.contains("\n+butter\n"))
        #expect(diff.stderrLines == ["hint: the document comes before the version: docver diff cake.md \(short)"])
        let restore = try docver(["restore", short, "cake.md"], in: recipes)
        #expect(restore.status == 0)
        #expect(try alice.read("recipes/cake.md") == "flour\n")
        #expect(restore.stderrLines == ["hint: the document comes before the version: docver restore cake.md \(short)"])

        // Where the words cannot be told apart, nothing is guessed: a version that is no document.
        expectError(
            try docver(["show", "cake.md", "list.txt"], in: recipes),
            "invalid version 'list.txt': expected a version id (4 or more hexadecimal digits), @, @-N or @{DATE}",
            hint: "list the versions of recipes/cake.md with 'docver versions cake.md --all'")

        // No hint anywhere still carries a placeholder such as DOC, VERSION, NAME, URL or PATH:
        // no word in capitals in the text of Advice.swift's strings (interpolations left out).
        let advice = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../../Sources/docver/Advice.swift").standardizedFileURL, encoding: .utf8)
        for line in advice.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
            let literals = line.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            for literal in literals {
                let text = literal.replacingOccurrences(of: #"\\\([^)]*\)+"#, with: "", options: .regularExpression)
                #expect(Self.placeholders(in: text).isEmpty, "Advice.swift has a hint with a placeholder: \(line)")
            }
        }
    }

    /// Words in capitals (two letters or more) standing alone: `PATH`, `NAME`, `ID`, `URL`.
    static func placeholders(in text: String) -> [String] {
        text.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" }).map(String.init)
            .filter { $0.count >= 2 && $0.allSatisfy { $0.isUppercase || $0 == "_" || $0.isNumber } && $0.contains(where: \.isLetter) }
    }

    /// The hints printed, for mistakes across the commands, name real things (the remote, the
    /// path, a version) or say it in words: none carries a placeholder in capitals.
    @Test func noHintPrintedCarriesAPlaceholder() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, base: "base\n", edits: ["alice\n", "bob\n"])
        let alice = fixture.devices[0].root
        try runGit(["init", "-q", scratch.path("plain").path], in: scratch.url)
        try Data("x".utf8).write(to: scratch.path("file.patch"))
        _ = try docver(["remote", "add", "gone", "../gone.git", "--create"], in: alice)
        try? FileManager.default.removeItem(at: scratch.path("gone.git"))
        let runs: [([String], URL)] = [
            (["status"], scratch.url),
            (["remote", "add", "inside", "./inside.git", "--create"], alice),
            (["remote", "add", "plain", "../plain"], alice),
            (["remote", "add", "z", "../file.patch", "--create"], alice),
            (["remote", "remove", "nosuch"], alice),
            (["sync", "gone"], alice),
            (["sync"], alice),
            (["clone", alice.path, "phone"], scratch.url),
            (["clone", scratch.path("nothing.git").path, "phone"], scratch.url),
            (["resolve", "note.txt", "--strategy", "choose"], alice),
            (["resolve", "note.txt", "--strategy", "merge"], alice),
            (["show", "note.txt", "zzzz"], alice),
            (["show", "note.txt", "@-9"], alice),
            (["versions", "nosuch.txt"], alice),
        ]
        var hints = 0
        for (arguments, directory) in runs {
            let result = try docver(arguments, in: directory, input: Data())
            #expect(result.status != 0, "\(arguments) was meant to fail")
            for line in result.stderrLines where line.hasPrefix("hint: ") {
                hints += 1
                // The scratch folder's name holds capitals of its own (a UUID): a real path.
                let named = line.replacingOccurrences(of: scratch.url.standardizedFileURL.path, with: "/scratch")
                    .replacingOccurrences(of: scratch.url.path, with: "/scratch")
                #expect(Self.placeholders(in: named).isEmpty, "\(arguments): \(line)")
            }
        }
        #expect(hints >= runs.count - 2, "most of these mistakes come with a hint")
    }

    /// A version and --at together is a usage error of the command named: its usage, not the
    /// top level's, and exit 64.
    @Test func aVersionAndAtTogetherShowTheCommandsOwnUsage() throws {
        let scratch = try Scratch()
        let alice = try kitchen(scratch)
        for command in ["show", "restore", "replace"] {
            let result = try docver([command, "list.txt", "@", "--at", "2026-11-24"], in: alice.root)
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: give a version or --at, not both\nUsage: docver \(command) "), "\(command): \(result.stderr)")
            #expect(result.stderr.contains("See 'docver \(command) --help'"), "\(command): \(result.stderr)")
        }
    }

    /// A save made before the document existed, or after it was deleted, is a side of a diff
    /// where the document is nothing: the patch creates it (`--- /dev/null`) or deletes it
    /// (`+++ /dev/null`), and git apply takes it.
    @Test func diffAgainstASaveWithoutTheDocumentCreatesOrDeletesIt() throws {
        let scratch = try Scratch()
        let alice = try kitchen(scratch)
        let before = try #require(try alice.currentVersion(of: DocumentPath("list.txt"))).id
        let created = try alice.saveText("new\nlines\n", to: "new.txt")
        try alice.remove("new.txt")
        let deleted = try #require(try alice.save([DocumentPath("new.txt")])).id
        let after = try alice.saveText("milk\neggs\n", to: "list.txt")

        let creation = try docver(["diff", "new.txt", String(before.prefix(8)), String(created.prefix(8))], in: alice.root)
        #expect(creation.status == 0, "\(creation.stderr)")
        #expect(creation.stdout.hasPrefix("# new.txt: nothing -> version \(created.prefix(12)) (alice, "), "\(creation.stdout)")
        #expect(
            creation.stdout.hasSuffix(
                "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+new\n+lines\n"),
            "\(creation.stdout)")
        let deletion = try docver(["diff", "new.txt", created, after], in: alice.root)
        #expect(deletion.status == 0, "\(deletion.stderr)")
        #expect(
            deletion.stdout.hasSuffix(
                " -> nothing\ndiff --git a/new.txt b/new.txt\ndeleted file mode 100644\n--- a/new.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-new\n-lines\n"
            ),
            "\(deletion.stdout)")
        // The deletion version itself gives the same patch.
        #expect(try docver(["diff", "new.txt", created, deleted], in: alice.root).stdout.hasSuffix("+++ /dev/null\n@@ -1,2 +0,0 @@\n-new\n-lines\n"))
        // git apply creates the document from the patch, in a checkout without it.
        let checkout = scratch.path("checkout")
        try runGit(["init", "-q", checkout.path], in: scratch.url)
        let patch = scratch.path("new.patch")
        try Data(creation.stdout.utf8).write(to: patch)
        try runGit(["apply", patch.path], in: checkout)
        #expect(try String(contentsOf: checkout.appendingPathComponent("new.txt"), encoding: .utf8) == "new\nlines\n")
        // A date before its first save is nothing too, and --at takes a second version after it.
        let early = try docver(["diff", "new.txt", "--at", "2000-01-01", String(created.prefix(8))], in: alice.root)
        #expect(early.status == 0, "\(early.stderr)")
        #expect(early.stdout == creation.stdout)
        // A save in which the document existed but which did not change it is still refused.
        let unrelated = try docver(["diff", "list.txt", created, after], in: alice.root)
        #expect(unrelated.status == 1)
        #expect(unrelated.stderrLines.first == "docver: error: version \(created) is not a version of list.txt", "\(unrelated.stderr)")
    }

    /// The version syntax reaches resolve --version and mark-resolved too, from a subfolder.
    @Test func resolutionsTakeTheVersionSyntax() throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(scratch, document: "notes/note.txt", base: "base\n", edits: ["alice\n", "bob\n"])
        let alice = fixture.devices[0]
        let notes = alice.root.appendingPathComponent("notes")
        // @ is the current version, not a conflict version: mark-resolved refuses it, naming it.
        let current = try docver(["mark-resolved", "note.txt", "@"], in: notes)
        #expect(current.status == 1)
        #expect(current.stderrLines.first == "docver: error: version \(fixture.winner) is not an unresolved conflict version of notes/note.txt")
        let resolve = try docver(["resolve", "note.txt", "--strategy", "choose", "--version", "@"], in: notes)
        #expect(resolve.status == 0, "\(resolve.stderr)")
        #expect(resolve.stdout.hasPrefix("notes/note.txt: kept version \(fixture.winner.prefix(12))"), "\(resolve.stdout)")
        #expect(try alice.conflicts().isEmpty)
        #expect(try alice.read("notes/note.txt") == "bob\n")
    }

    // MARK: Item 6: log -<n>, dates on input

    @Test func logTakesGitsCountForms() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        for index in 1...3 { try alice.saveText("v\(index)\n", to: index == 2 ? "b.txt" : "a.txt") }
        let root = alice.root
        let all = try docver(["log"], in: root).stdout.split(separator: "\n", omittingEmptySubsequences: false).map { $0 + "\n" }
        #expect(all.count == 4)  // three saves, then the empty piece after the last newline
        for arguments in [
            ["log", "-1"], ["log", "-n", "1"], ["log", "-n1"], ["log", "--limit", "1"], ["log", "--limit=1"],
            ["-C", root.path, "log", "-1"], ["log", "-C", root.path, "-1"],
        ] {
            let result = try docver(arguments, in: root)
            expectOK(result, arguments)
            #expect(result.stdout == all[0], "\(arguments)")
        }
        #expect(try docver(["log", "-2"], in: root).stdout == all[0] + all[1])
        #expect(try docver(["log", "a.txt", "-1"], in: root).stdout == all[0])
        #expect(try docver(["log", "-1", "b.txt"], in: root).stdout == all[1])
        #expect(try docver(["log", "-0"], in: root).status == 64)
        // Only log's arguments are rewritten, and not after `--`.
        #expect(try docver(["show", "-1"], in: root).status == 64)
        let quoted = try docver(["log", "--", "-1"], in: root)
        #expect(quoted.status == 1 && quoted.stderr.hasPrefix("docver: error: no such document: -1"), "a document named -1: \(quoted.stderr)")
    }

    @Test func modifiedSinceTakesDatesDateTimesAndZones() throws {
        let scratch = try Scratch()
        let alice = try kitchen(scratch)
        let root = alice.root
        let all = try docver(["ls"], in: root).stdout
        #expect(all.split(separator: "\n").count == 2)
        for since in ["2000-01-01", "2000-01-01T00:00", "2000-01-01 00:00:00", "2000-01-01T00:00:00Z", "2000-01-01T00:00:00+05:30"] {
            let result = try docver(["ls", "--modified-since", since], in: root)
            expectOK(result, [since])
            #expect(result.stdout == all, "\(since)")
        }
        for since in ["9999-01-01", "9999-01-01T00:00-05:00"] { #expect(try docver(["ls", "--modified-since", since], in: root).stdout.isEmpty) }
        // The saved date itself, in the local zone, is included ("at or after").
        let saved = try #require(try alice.currentVersion(of: DocumentPath("list.txt"))).modified
        let local = DateFormatter()
        local.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        local.timeZone = .current
        #expect(try docver(["ls", "--modified-since", local.string(from: saved)], in: root).stdout == all)
        #expect(try docver(["ls", "--modified-since", local.string(from: saved.addingTimeInterval(2))], in: root).stdout.isEmpty)
        for bad in ["2026-13-01", "yesterday", "2026-11-01T25:00", "2026-11-01Z"] {
            let result = try docver(["ls", "--modified-since", bad], in: root)
            #expect(result.status == 64, "\(bad)")
            #expect(result.stderr.contains("--modified-since needs an ISO 8601 date"))
        }
    }
}
