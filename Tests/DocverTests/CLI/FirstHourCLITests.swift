import DocverKit
import Foundation
import Testing

/// What a new user meets in the first hour: devices told apart, a systemd unit that works,
/// suggestions and hints that can be run as written.
@Suite struct FirstHourCLITests {
    /// The README's two-folder setup on one host: the two devices' default names differ, so
    /// messages and conflict markers tell them apart; `init` and `clone` say the name and how
    /// to change it.
    @Test func twoContainersOnOneHostGetDifferentDefaultNames() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let first = try docver("init", "notes", in: scratch.url)
        #expect(first.status == 0, "\(first.stderr)")
        let root = scratch.path("notes")
        let firstName = try runGit(["config", "docver.deviceName"], in: root).trimmingCharacters(in: .newlines)
        #expect(firstName != Host.name, "the name says which container: \(firstName)")
        #expect(firstName.hasPrefix(Host.name + " ("), "\(firstName)")
        #expect(first.stdout.contains(firstName), "\(first.stdout)")
        #expect(
            first.stderr.contains(
                "hint: change the device name with: git -C \(shellWordForTests(root.standardizedFileURL.path)) config docver.deviceName "),
            "\(first.stderr)")

        try Data("x\n".utf8).write(to: root.appendingPathComponent("x.txt"))
        #expect(try docver("remote", "add", "origin", remote.path, in: root).status == 0)
        #expect(try docver("sync", in: root).status == 0)
        let clone = try docver("clone", remote.path, "notes-2", in: scratch.url)
        #expect(clone.status == 0, "\(clone.stderr)")
        let secondName = try runGit(["config", "docver.deviceName"], in: scratch.path("notes-2")).trimmingCharacters(in: .newlines)
        #expect(secondName != firstName)
        #expect(secondName.hasSuffix("notes-2)"), "\(secondName)")
        #expect(clone.stdout.contains(secondName), "\(clone.stdout)")
        #expect(clone.stderr.contains("hint: change the device name with: git -C "), "\(clone.stderr)")

        // The hint runs as written.
        let hint = try #require(first.stderr.split(separator: "\n").first { $0.hasPrefix("hint: change") })
        let renamed = try runProcess("/bin/sh", ["-c", String(hint.dropFirst("hint: change the device name with: ".count))], in: scratch.url)
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(try runGit(["config", "docver.deviceName"], in: root) == firstName + "\n")
        #expect(try docver("status", in: root).stdout.hasPrefix("on device "), "status still opens the container")
    }

    /// A container made before default names carried the path keeps its name: `init` again
    /// with the defaults still succeeds and changes nothing.
    /// After a merge resolution, `versions DOC` still lists every version the merge was made
    /// from: the conflict versions it took in (and removed) show as `merged`, in the listing
    /// and in its JSON.
    @Test(arguments: [["--strategy", "merge"], ["--tool", "both"]])
    func afterAMergeVersionsListsTheVersionsItTookIn(resolveWith: [String]) async throws {
        let scratch = try Scratch()
        let fixture = try ConflictFixture.text(
            scratch, ids: ["alice", "bob", "carol"], base: "1\n2\n3\n4\n5\n6\n",
            edits: ["A\n2\n3\n4\n5\n6\n", "1\n2\nB\n4\n5\n6\n", "1\n2\n3\n4\n5\nC\n"])
        let carol = fixture.latest
        _ = try runGit(
            ["config", "mergetool.both.cmd", #"cat "$MERGED" | grep -v '^[<|=>]\{7\}' > "$MERGED.x"; mv "$MERGED.x" "$MERGED""#], in: carol.root)
        let before = try docver(["versions", "note.txt"], in: carol.root)
        #expect(before.stdout.split(separator: "\n").filter { $0.hasPrefix("conflict") }.count == 2, "\(before.stdout)")
        let resolve = try docver(["resolve", "note.txt"] + resolveWith, in: carol.root)
        #expect(resolve.status == 0, "\(resolve.stderr)")
        let listing = try docver(["versions", "note.txt"], in: carol.root)
        #expect(listing.status == 0)
        let rows = listing.stdout.split(separator: "\n").map(String.init)
        for id in fixture.losers {
            #expect(
                rows.contains { $0.hasPrefix("merged") && $0.contains(String(id.prefix(12))) },
                "\(id.prefix(12)) is listed as merged: \(listing.stdout)")
        }
        #expect(rows.contains { $0.hasPrefix("history") && $0.contains(String(fixture.winner.prefix(12))) }, "\(listing.stdout)")
        #expect(!rows.contains { $0.hasPrefix("conflict") }, "\(listing.stdout)")
        let json = try docver(["versions", "note.txt", "--json"], in: carol.root)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let merged = try #require(object["merged"] as? [[String: Any]])
        #expect(Set(merged.compactMap { $0["id"] as? String }) == Set(fixture.losers))
    }

    @Test func anExistingContainerKeepsItsDefaultName() throws {
        let scratch = try Scratch()
        #expect(try docver("init", "notes", in: scratch.url).status == 0)
        let root = scratch.path("notes")
        try runGit(["config", "docver.deviceName", Host.name], in: root)
        let again = try docver("init", in: root)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try runGit(["config", "docver.deviceName"], in: root) == "\(Host.name)\n")
    }

    @Test func aMistypedSubcommandGetsASuggestion() throws {
        let result = try docver("sav")
        #expect(result.status == 64, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains("did you mean 'save'?"), "\(result.stderr)")
        let nested = try docver("agent", "stauts")
        #expect(nested.status == 64)
        #expect(nested.stderr.contains("did you mean 'status'?"), "\(nested.stderr)")
    }

    @Test func helpListsEveryExitCode() throws {
        let help = try docver("--help")
        #expect(help.status == 0)
        for code in ["0 ", "1 ", "3 ", "64 ", "141 "] {
            #expect(help.stdout.contains(code), "exit code \(code) missing: \(help.stdout)")
        }
    }

    /// A file in the working tree that was never saved: the hint says how to save it.
    @Test func aNeverSavedFileHintsSave() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("hello\n", to: "note.txt")
        try alice.write("new\n", to: "a.txt")
        for arguments in [["versions", "a.txt"], ["log", "a.txt"], ["conflicts", "a.txt"]] {
            let result = try docver(arguments, in: alice.root)
            #expect(result.status == 1)
            #expect(
                result.stderrLines == ["docver: error: no such document: a.txt", "hint: it was never saved; save it with: docver save a.txt"],
                "\(arguments): \(result.stderr)")
        }
    }

    /// A first sync that only pushes does not say "already up to date" before "pushed to
    /// origin"; the save it makes first is named after its document.
    @Test func aFirstSyncSaysWhatItDidAndNamesItsSave() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        try alice.write("hello\n", to: "note.txt")
        let first = try docver("sync", in: alice.root)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "saved 1 changed document before syncing\nnothing new from other devices\npushed to origin\n")
        #expect(try alice.git(["log", "-1", "--format=%s"]) == "Save note.txt\n")
        let again = try docver("sync", in: alice.root)
        #expect(again.stdout == "nothing new from other devices\npushed to origin\n")
    }

    /// `replace` leaves the conflict versions open: its hint names `mark-resolved`.
    @Test func replaceOfADocumentInConflictHintsMarkResolved() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("base\n", to: "note.txt")
        try alice.sync()
        try bob.sync()
        try alice.saveText("alice\n", to: "note.txt")
        scratch.clock.tick()
        try bob.saveText("bob\n", to: "note.txt")
        try bob.sync()
        try alice.sync()
        let replaced = try docver("replace", "note.txt", "@-1", in: alice.root)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(
            replaced.stderrLines == ["hint: the conflict versions stay open; when this is the version to keep: docver mark-resolved note.txt"],
            "\(replaced.stderr)")
    }

    // MARK: The agent says what it knows

    /// After a conflict the agent brought: the notification names the container, the document
    /// and the command; `agent status` shows the conflict, the remotes and the last sync;
    /// `agent log` reads for people, `--json` keeps the JSON.
    @Test func theAgentSaysWhatItKnows() async throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote)
        let bob = try scratch.device("bob", remote: remote)
        try alice.saveText("base\n", to: "note.txt")
        try alice.sync()
        try bob.sync()
        try alice.saveText("alice\n", to: "note.txt")
        scratch.clock.tick()
        try bob.saveText("bob\n", to: "note.txt")
        try bob.sync()

        // The agent's first sync brings the conflict.
        let bin = scratch.path("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let notes = scratch.path("notifications")
        let fake = bin.appendingPathComponent("notify-send")
        try Data("#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done >> '\(notes.path)'\n".utf8).write(to: fake)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        let environment = ["DISPLAY": ":99", "PATH": bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        let started = try runProcess(
            docverExecutable, ["agent", "start", "--quiet-delay", "0.2", "--poll-interval", "3600"],
            in: alice.root, environment: environment)
        #expect(started.status == 0, "\(started.stderr)")
        defer { _ = try? docver("agent", "stop", in: alice.root) }
        try await waitFor("the notification", timeout: 60) {
            (try? String(contentsOf: notes, encoding: .utf8))?.contains("resolve note.txt") == true
        }
        let notification = try String(contentsOf: notes, encoding: .utf8)
        #expect(notification.contains("note.txt"), "\(notification)")
        #expect(notification.contains(alice.root.path), "the container: \(notification)")
        #expect(notification.contains("docver -C \(alice.root.path) resolve note.txt"), "\(notification)")

        try await waitFor("the last sync") {
            let json = try? parseJSON(docver("agent", "status", "--json", in: alice.root).stdoutData) as? [String: Any]
            return json?["lastSync"] is String
        }
        let status = try docver("agent", "status", in: alice.root)
        #expect(status.stdout.contains("remotes: origin\n"), "\(status.stdout)")
        #expect(status.stdout.contains("last sync "), "\(status.stdout)")
        #expect(status.stdout.contains("1 document in conflict: note.txt; see 'docver conflicts'\n"), "\(status.stdout)")
        let json = try #require(try parseJSON(docver("agent", "status", "--json", in: alice.root).stdoutData) as? [String: Any])
        #expect(json["remotes"] as? [String] == ["origin"])
        let conflicts = try #require(json["conflicts"] as? [[String: Any]])
        #expect(conflicts.count == 1 && conflicts.first?["document"] as? String == "note.txt" && conflicts.first?["versions"] as? Int == 1)

        let log = try docver("agent", "log", in: alice.root)
        #expect(log.status == 0, "\(log.stderr)")
        #expect(log.stdout.contains("  agent started (pid "), "\(log.stdout)")
        #expect(log.stdout.contains("conflict: note.txt"), "\(log.stdout)")
        #expect(!log.stdout.contains("{"), "\(log.stdout)")
        let raw = try docver("agent", "log", "--json", in: alice.root)
        #expect(raw.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("{") }, "\(raw.stdout)")
    }

    // MARK: The systemd unit

    /// `agent enable` writes a user unit that runs this binary on this container, passes
    /// `systemd-analyze verify`, and is enabled through `systemctl --user`; `disable` undoes it.
    @Test func agentEnableWritesAVerifiedUnitAndDisableRemovesIt() throws {
        let scratch = try Scratch()
        let container = try scratch.device("alice")
        let home = scratch.path("home")
        let bin = scratch.path("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let calls = scratch.path("systemctl-calls")
        let fake = bin.appendingPathComponent("systemctl")
        try Data("#!/bin/sh\necho \"$*\" >> '\(calls.path)'\n".utf8).write(to: fake)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        let environment = [
            "HOME": home.path, "XDG_CONFIG_HOME": home.path + "/config",
            "PATH": bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
        ]

        let enabled = try runProcess(docverExecutable, ["agent", "enable"], in: container.root, environment: environment)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        let escaped = try #require(
            try? runProcess("/usr/bin/systemd-escape", ["--path", container.root.path]).stdout
                .trimmingCharacters(in: .newlines))
        let unitName = "docver-agent@\(escaped).service"
        let unit = home.appendingPathComponent("config/systemd/user/\(unitName)")
        let text = try String(contentsOf: unit, encoding: .utf8)
        let binary = URL(fileURLWithPath: docverExecutable).resolvingSymlinksInPath().path
        #expect(text.contains("ExecStart=\"\(binary)\" -C %f agent --json\n"), "\(text)")
        #expect(!text.contains("network-online"))
        #expect(!text.contains("PrivateTmp"))
        #expect(enabled.stdout.contains(unitName), "\(enabled.stdout)")
        let recorded = try String(contentsOf: calls, encoding: .utf8)
        #expect(recorded.contains("--user daemon-reload"), "\(recorded)")
        #expect(recorded.contains("--user enable --now \(unitName)"), "\(recorded)")

        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            let verify = try runProcess("/usr/bin/systemd-analyze", ["verify", unit.path], environment: environment)
            #expect(verify.status == 0 && verify.stderr.isEmpty, "\(verify.stderr)")
        } else {
            print("skipped systemd-analyze verify: /usr/bin/systemd-analyze is missing (package systemd)")
        }

        let disabled = try runProcess(docverExecutable, ["agent", "disable"], in: container.root, environment: environment)
        #expect(disabled.status == 0, "\(disabled.stderr)")
        #expect(!FileManager.default.fileExists(atPath: unit.path))
        #expect(try String(contentsOf: calls, encoding: .utf8).contains("--user disable --now \(unitName)"))
    }

    /// Without a user systemd, `agent enable` writes the unit and says how to start it.
    @Test func agentEnableWithoutSystemdSaysHow() throws {
        let scratch = try Scratch()
        let container = try scratch.device("alice")
        let home = scratch.path("home")
        let bin = scratch.path("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let fake = bin.appendingPathComponent("systemctl")
        try Data("#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n".utf8).write(to: fake)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        let environment = ["HOME": home.path, "XDG_CONFIG_HOME": home.path + "/config", "PATH": bin.path + ":/usr/bin:/bin"]
        let enabled = try runProcess(docverExecutable, ["agent", "enable"], in: container.root, environment: environment)
        #expect(enabled.status == 1)
        #expect(enabled.stderr.contains("docver: error: wrote "), "\(enabled.stderr)")
        #expect(
            enabled.stderr.contains("hint: where a user systemd runs: systemctl --user daemon-reload && systemctl --user enable --now "),
            "\(enabled.stderr)")
        let units = try FileManager.default.contentsOfDirectory(atPath: home.path + "/config/systemd/user")
        #expect(units.count == 1)
    }

    /// The example unit is the one `agent enable` writes, as a template.
    @Test func theExampleUnitMatchesTheWrittenOne() throws {
        let example = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../../Examples/docver-agent@.service").standardizedFileURL, encoding: .utf8)
        #expect(!example.contains("/usr/local/bin"))
        #expect(!example.contains("network-online"))
        #expect(!example.contains("PrivateTmp"))
        #expect(!example.contains("Documentation=file://%h/.local/share/doc"))
        // The same settings as the unit `agent enable` writes, but for ExecStart's program.
        func settings(_ text: String) -> [Substring] {
            text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("ExecStart=") }
        }
        let scratch = try Scratch()
        let container = try scratch.device("alice")
        let home = scratch.path("home")
        let environment = ["HOME": home.path, "XDG_CONFIG_HOME": home.path + "/config", "PATH": "/nonexistent"]
        _ = try runProcess(docverExecutable, ["agent", "enable"], in: container.root, environment: environment)
        let written = try #require(try FileManager.default.contentsOfDirectory(atPath: home.path + "/config/systemd/user").first)
        let unit = try String(contentsOfFile: home.path + "/config/systemd/user/" + written, encoding: .utf8)
        #expect(settings(example) == settings(unit))
        #expect(example.contains("ExecStart=/usr/bin/env docver -C %f agent --json\n"))
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            let instance = scratch.path("docver-agent@tmp-notes.service")
            try Data(example.utf8).write(to: instance)
            let verify = try runProcess("/usr/bin/systemd-analyze", ["verify", instance.path], environment: environment)
            #expect(verify.status == 0 && verify.stderr.isEmpty, "\(verify.stderr)")
        }
    }
}

/// A shell word as the CLI quotes it (the test's copy of `Terminal.shellWord`).
private func shellWordForTests(_ text: String) -> String {
    let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_-./+@%,:="))
    if !text.isEmpty && text.unicodeScalars.allSatisfy(plain.contains) { return text }
    return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
