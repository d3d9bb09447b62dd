import DocverKit
import Foundation
import Testing

/// The docver command line, end to end: stdout, stderr, exit codes and the --json contract.
@Suite struct CLIEndToEndTests {
    // MARK: Helpers

    private func expectSuccess(_ result: ProcessResult, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 0, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.isEmpty, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
    }

    /// An operation failure: exit 1, nothing on stdout, `docver: error: ...` and at most a hint.
    private func expectFailure(
        _ result: ProcessResult, _ firstLine: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == 1, "exit \(result.status)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "stdout: \(result.stdout)", sourceLocation: sourceLocation)
        let lines = result.stderrLines
        #expect((1...2).contains(lines.count), "stderr: \(result.stderr.debugDescription)", sourceLocation: sourceLocation)
        #expect(lines.first?.hasPrefix("docver: error: ") == true, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        if lines.count == 2 { #expect(lines[1].hasPrefix("hint: "), sourceLocation: sourceLocation) }
        if let firstLine { #expect(lines.first == firstLine, sourceLocation: sourceLocation) }
    }

    private func json(_ result: ProcessResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
        expectSuccess(result, sourceLocation: sourceLocation)
        return try parseJSON(result.stdoutData)
    }

    private func object(_ value: Any?, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(value as? [String: Any], "not a JSON object: \(String(describing: value))", sourceLocation: sourceLocation)
    }

    private func array(_ value: Any?, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Any] {
        try #require(value as? [Any], "not a JSON array: \(String(describing: value))", sourceLocation: sourceLocation)
    }

    private func isoDate(_ value: Any?) -> Date? {
        (value as? String).flatMap { ISO8601DateFormatter().date(from: $0) }
    }

    /// Keys of the version objects (V) in the --json contract.
    private static let versionKeys: Set<String> = ["id", "document", "device", "deviceName", "modified", "size", "kind"]

    private func expectVersion(
        _ value: Any?, id: String? = nil, document: String, device: String, deviceName: String,
        size: Int, kind: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let version = try object(value, sourceLocation: sourceLocation)
        #expect(Self.versionKeys.isSubset(of: Set(version.keys)), "keys: \(version.keys.sorted())", sourceLocation: sourceLocation)
        if let id { #expect(version["id"] as? String == id, sourceLocation: sourceLocation) }
        #expect((version["id"] as? String)?.count == 40, sourceLocation: sourceLocation)
        #expect(version["document"] as? String == document, sourceLocation: sourceLocation)
        #expect(version["device"] as? String == device, sourceLocation: sourceLocation)
        #expect(version["deviceName"] as? String == deviceName, sourceLocation: sourceLocation)
        #expect((version["size"] as? NSNumber)?.intValue == size, sourceLocation: sourceLocation)
        #expect(version["kind"] as? String == kind, sourceLocation: sourceLocation)
        #expect(
            isoDate(version["modified"]) != nil, "not ISO-8601: \(String(describing: version["modified"]))",
            sourceLocation: sourceLocation)
    }

    /// The keys of the first JSON object in pretty-printed output appear in sorted order.
    private func expectSortedKeys(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        func indent(_ line: Substring) -> Int { line.prefix { $0 == " " }.count }
        let lines = text.split(separator: "\n")
        var keys: [String] = []
        if let first = lines.firstIndex(where: { $0.drop { $0 == " " }.hasPrefix("\"") }) {
            let level = indent(lines[first])
            for line in lines[first...] {
                if indent(line) < level { break }
                if indent(line) == level, line.dropFirst(level).hasPrefix("\""),
                    let key = line.dropFirst(level + 1).split(separator: "\"").first
                {
                    keys.append(String(key))
                }
            }
        }
        #expect(keys.count > 1, sourceLocation: sourceLocation)
        #expect(keys == keys.sorted(), "keys not sorted: \(keys)", sourceLocation: sourceLocation)
    }

    private func initContainer(
        _ scratch: Scratch, _ name: String = "notes", device: String = "alice",
        deviceName: String = "Alice's Laptop"
    ) throws -> URL {
        let result = try docver("init", name, "--device", device, "--device-name", deviceName, in: scratch.url)
        expectSuccess(result)
        return scratch.path(name)
    }

    // MARK: init

    @Test func initCreatesAContainerAndIsIdempotent() throws {
        let scratch = try Scratch()
        let first = try docver("init", "notes", "--device", "alice", "--device-name", "Alice's Laptop", in: scratch.url)
        let root = scratch.path("notes").standardizedFileURL.path
        expectSuccess(first)
        #expect(first.stdout == "docver container at \(root) for device 'alice' (Alice's Laptop)\n")
        #expect(try runGit(["symbolic-ref", "HEAD"], in: scratch.path("notes")) == "refs/heads/docver/alice\n")
        #expect(try runGit(["config", "docver.device"], in: scratch.path("notes")) == "alice\n")
        #expect(try runGit(["config", "docver.deviceName"], in: scratch.path("notes")) == "Alice's Laptop\n")

        // Again with the same id and name: a check that succeeds and changes nothing.
        let before = try refSnapshot(scratch.path("notes"))
        let again = try docver("init", "notes", "--device", "alice", "--device-name", "Alice's Laptop", in: scratch.url)
        expectSuccess(again)
        #expect(again.stdout == first.stdout)

        // A different id, or the same id with another name, is refused.
        let other = try docver("init", "notes", "--device", "bob", in: scratch.url)
        expectFailure(other, "docver: error: \(root) is already a docver container for device 'alice'")
        #expect(other.stderrLines.count == 2)
        let renamed = try docver("init", "notes", "--device", "alice", "--device-name", "Other", in: scratch.url)
        expectFailure(renamed, "docver: error: \(root) is already a docver container for device 'alice'")
        let unnamed = try docver("init", "notes", "--device", "alice", in: scratch.url)
        expectFailure(unnamed)
        #expect(try runGit(["config", "docver.device"], in: scratch.path("notes")) == "alice\n")
        #expect(try runGit(["config", "docver.deviceName"], in: scratch.path("notes")) == "Alice's Laptop\n")
        #expect(try refSnapshot(scratch.path("notes")) == before)

        // In the current directory, without a path; and with -C.
        let here = scratch.path("here")
        try FileManager.default.createDirectory(at: here, withIntermediateDirectories: true)
        expectSuccess(try docver("init", "--device", "phone", in: here))
        #expect(try runGit(["config", "docver.deviceName"], in: here) == "phone\n")
        let viaC = try docver("-C", scratch.url.path, "init", "elsewhere", "--device", "tablet", in: here)
        expectSuccess(viaC)
        #expect(viaC.stdout.contains(scratch.path("elsewhere").standardizedFileURL.path))
    }

    @Test func initRejectsBadDeviceIdsAndNames() throws {
        let scratch = try Scratch()
        // Invalid option values are usage errors (exit 64), found before anything is created.
        for id in ["", "has space", "slash/id", "dot.id", String(repeating: "a", count: 65), "ünï"] {
            let result = try docver("init", "c", "--device", id, in: scratch.url)
            #expect(result.status == 64, "\(id): exit \(result.status)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("invalid device id"))
        }
        let badName = try docver("init", "c", "--device", "ok", "--device-name", "two\nlines", in: scratch.url)
        #expect(badName.status == 64)
        #expect(badName.stderr.contains("invalid device name 'two\\nlines'"), "\(badName.stderr.debugDescription)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("c/.git").path))
    }

    // MARK: save, status, ls, log

    @Test func saveStatusListAndLog() throws {
        let scratch = try Scratch()
        let root = try initContainer(scratch)

        let empty = try docver("status", in: root)
        expectSuccess(empty)
        #expect(empty.stdout == "on device alice (Alice's Laptop)\nnothing changed since the last save; no conflicts\n")
        let emptyJSON = try object(json(try docver("status", "--json", in: root)))
        #expect(try array(emptyJSON["changed"]).isEmpty)
        #expect(emptyJSON["device"] as? String == "alice")
        #expect(emptyJSON["deviceName"] as? String == "Alice's Laptop")
        #expect(try array(emptyJSON["inConflict"]).isEmpty)
        #expect(try array(json(try docver("ls", "--json", in: root))).isEmpty)
        #expect(try array(json(try docver("log", "--json", in: root))).isEmpty)

        try Data("alpha\n".utf8).write(to: root.appendingPathComponent("a.txt"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("trip.imagenotes"), withIntermediateDirectories: true)
        try Data("text".utf8).write(to: root.appendingPathComponent("trip.imagenotes/text.txt"))

        let status = try docver("status", in: root)
        expectSuccess(status)
        #expect(status.stdout == "on device alice (Alice's Laptop)\nchanged since the last save:\n  added     a.txt\n  added     trip.imagenotes\n")
        let statusJSON = try object(json(try docver("status", "--json", in: root)))
        #expect(Set(statusJSON.keys) == ["changed", "inConflict", "device", "deviceName"])
        let changed = try array(statusJSON["changed"]).map { try object($0) }
        #expect(changed.map { $0["document"] as? String } == ["a.txt", "trip.imagenotes"])
        #expect(changed.map { $0["change"] as? String } == ["added", "added"])

        let save = try docver("save", "-m", "First things", in: root)
        expectSuccess(save)
        let firstID = try runGit(["rev-parse", "HEAD"], in: root).trimmingCharacters(in: .newlines)
        #expect(save.stdout == "added: a.txt\nadded: trip.imagenotes\nsaved 2 documents as \(firstID.prefix(12))\n")
        #expect(try runGit(["log", "-1", "--format=%s"], in: root) == "First things\n")

        // Nothing to save: says so, exit 0, no commit.
        let before = try refSnapshot(root)
        let nothing = try docver("save", in: root)
        expectSuccess(nothing)
        #expect(nothing.stdout == "nothing to save: no document changed since the last save\n")
        let nothingNamed = try docver("save", "a.txt", in: root)
        expectSuccess(nothingNamed)
        #expect(nothingNamed.stdout == nothing.stdout)
        #expect(try refSnapshot(root) == before)
        #expect(try commitCount("HEAD", in: root) == 1)

        try Data("alpha 2\n".utf8).write(to: root.appendingPathComponent("a.txt"))
        let second = try docver("save", "a.txt", in: root)
        expectSuccess(second)
        let secondID = try runGit(["rev-parse", "HEAD"], in: root).trimmingCharacters(in: .newlines)
        #expect(second.stdout == "modified: a.txt\nsaved 1 document as \(secondID.prefix(12))\n")
        #expect(try runGit(["log", "-1", "--format=%s"], in: root) == "Save a.txt\n")

        // ls
        let ls = try docver("ls", in: root)
        expectSuccess(ls)
        let lsLines = ls.stdout.split(separator: "\n")
        #expect(lsLines.count == 2)
        #expect(lsLines[0].hasSuffix("Alice's Laptop  a.txt"))
        #expect(lsLines[0].hasPrefix("  flat "))
        #expect(lsLines[1].hasSuffix("trip.imagenotes"))
        #expect(lsLines[1].hasPrefix("  package "))
        let lsRaw = try docver("ls", "--json", in: root)
        let listed = try array(json(lsRaw)).map { try object($0) }
        #expect(listed.map { $0["document"] as? String } == ["a.txt", "trip.imagenotes"])
        #expect(listed[0]["version"] as? String == secondID)
        #expect(listed[1]["version"] as? String == firstID)
        #expect(listed[0]["kind"] as? String == "flat")
        #expect(listed[1]["kind"] as? String == "package")
        #expect(listed[0]["type"] as? String == "txt")
        #expect(listed[1]["type"] as? String == "imagenotes")
        #expect(listed[0]["displayName"] as? String == "a")
        #expect((listed[0]["size"] as? NSNumber)?.intValue == 8)
        #expect(listed[0]["device"] as? String == "alice")
        #expect(listed[0]["deviceName"] as? String == "Alice's Laptop")
        #expect(listed[0]["hasUnresolvedConflicts"] as? Bool == false)
        #expect(isoDate(listed[0]["modified"]) != nil)
        #expect(lsRaw.stdout.contains("\"modified\" : \""))

        // log
        let log = try docver("log", in: root)
        expectSuccess(log)
        let logLines = log.stdout.split(separator: "\n")
        #expect(logLines.count == 2)
        #expect(logLines[0].hasPrefix("\(secondID.prefix(12))  "))
        #expect(logLines[0].hasSuffix("  Alice's Laptop  Save a.txt"))
        #expect(logLines[1].hasSuffix("  Alice's Laptop  First things"))
        let logRaw = try docver("log", "--json", in: root)
        expectSortedKeys(logRaw.stdout)
        let entries = try array(json(logRaw)).map { try object($0) }
        #expect(entries.map { $0["id"] as? String } == [secondID, firstID])
        #expect(Set(entries[0].keys).isSuperset(of: ["id", "kind", "device", "deviceName", "date", "subject", "changes", "conflicts"]))
        #expect(entries[0]["kind"] as? String == "save")
        #expect(entries[0]["subject"] as? String == "Save a.txt")
        #expect(isoDate(entries[0]["date"]) != nil)
        let changes = try array(entries[1]["changes"]).map { try object($0) }
        #expect(changes.map { $0["document"] as? String } == ["a.txt", "trip.imagenotes"])
        #expect(try array(json(try docver("log", "--json", "-n", "1", in: root))).count == 1)
        #expect(try array(json(try docver("log", "--json", "trip.imagenotes", in: root))).count == 1)
    }

    // MARK: versions, show, restore

    @Test func versionsShowAndRestore() throws {
        let scratch = try Scratch()
        let root = try initContainer(scratch)
        let a = root.appendingPathComponent("a.txt")
        // Binary bytes, NUL and invalid UTF-8 included, no final newline.
        let bytes1 = Data([0x00, 0xFF, 0xFE, 0x41, 0x0A, 0x0D, 0x80, 0x42])
        try bytes1.write(to: a)
        expectSuccess(try docver("save", in: root))
        let v1 = try runGit(["rev-parse", "HEAD"], in: root).trimmingCharacters(in: .newlines)
        try Data("second\n".utf8).write(to: a)
        expectSuccess(try docver("save", in: root))
        let v2 = try runGit(["rev-parse", "HEAD"], in: root).trimmingCharacters(in: .newlines)

        // versions
        let text = try docver("versions", "a.txt", in: root)
        expectSuccess(text)
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("current   \(v2.prefix(12))  "))
        #expect(lines[0].hasSuffix("7 bytes"))
        #expect(lines[1].hasPrefix("history   \(v1.prefix(12))  "))
        #expect(lines[1].contains("Alice's Laptop"))
        let raw = try docver("versions", "--json", "a.txt", in: root)
        expectSortedKeys(raw.stdout)
        let versions = try object(json(raw))
        #expect(Set(["document", "current", "conflicts", "history"]).isSubset(of: Set(versions.keys)))
        #expect(versions["document"] as? String == "a.txt")
        try expectVersion(
            versions["current"], id: v2, document: "a.txt", device: "alice", deviceName: "Alice's Laptop",
            size: 7, kind: "flat")
        #expect(try array(versions["conflicts"]).isEmpty)
        let history = try array(versions["history"])
        #expect(history.count == 1)
        try expectVersion(
            history.first, id: v1, document: "a.txt", device: "alice", deviceName: "Alice's Laptop",
            size: bytes1.count, kind: "flat")
        let missing = try docver("versions", "nope.txt", in: root)
        expectFailure(missing, "docver: error: no such document: nope.txt")

        // show: exact bytes of a flat document.
        let show1 = try docver("show", String(v1.prefix(7)), in: root)
        expectSuccess(show1)
        #expect(show1.stdoutData == bytes1)
        let show1Named = try docver("show", "a.txt", v1, in: root)
        expectSuccess(show1Named)
        #expect(show1Named.stdoutData == bytes1)
        #expect(try docver("show", String(v2.prefix(10)), in: root).stdoutData == Data("second\n".utf8))
        // A version of another document (or of none: b.txt was never saved, so it is no document).
        expectFailure(
            try docver("show", "b.txt", v1, in: root),
            "docver: error: no such document: b.txt")
        expectFailure(try docver("show", "b.txt", v2, in: root))

        // restore: a new save whose content is the old version's.
        let restore = try docver("restore", "a.txt", String(v1.prefix(8)), in: root)
        expectSuccess(restore)
        let v3 = try runGit(["rev-parse", "HEAD"], in: root).trimmingCharacters(in: .newlines)
        #expect(v3 != v1 && v3 != v2)
        #expect(restore.stdout == "restored a.txt as save \(v3.prefix(12))\n")
        #expect(try Data(contentsOf: a) == bytes1)
        #expect(try docver("show", v3, in: root).stdoutData == bytes1)
        let after = try object(json(try docver("versions", "--json", "a.txt", in: root)))
        #expect(try object(after["current"])["id"] as? String == v3)
        #expect(try array(after["history"]).map { try object($0)["id"] as? String } == [v2, v1])
        let bad = try docver("restore", "a.txt", "zzzz", in: root)
        expectFailure(bad, "docver: error: invalid version 'zzzz': expected a version id (4 or more hexadecimal digits), @, @-N or @{DATE}")
        #expect(try runGit(["rev-parse", "HEAD"], in: root).trimmingCharacters(in: .newlines) == v3)
    }

    @Test func showListsAPackagesComponents() throws {
        let scratch = try Scratch()
        let root = try initContainer(scratch)
        let package = root.appendingPathComponent("trip.imagenotes")
        try FileManager.default.createDirectory(at: package.appendingPathComponent("images"), withIntermediateDirectories: true)
        try Data("text".utf8).write(to: package.appendingPathComponent("text.txt"))
        try Data(repeating: 7, count: 2048).write(to: package.appendingPathComponent("images/photo.png"))
        try Data("{}".utf8).write(to: package.appendingPathComponent("Info.json"))
        expectSuccess(try docver("save", "trip.imagenotes", in: root))
        let id = try runGit(["rev-parse", "HEAD"], in: root).trimmingCharacters(in: .newlines)

        let show = try docver("show", id, in: root)
        expectSuccess(show)
        let lines = show.stdout.split(separator: "\n").map(String.init)
        #expect(lines.map { $0.split(separator: " ").last.map(String.init) } == ["Info.json", "images/photo.png", "text.txt"])
        #expect(lines[0].hasPrefix("2 bytes"))
        #expect(lines[1].hasPrefix("2 KB"))
        #expect(lines[2].hasPrefix("4 bytes"))

        let versions = try object(json(try docver("versions", "--json", "trip.imagenotes", in: root)))
        try expectVersion(
            versions["current"], id: id, document: "trip.imagenotes", device: "alice",
            deviceName: "Alice's Laptop", size: 2048 + 4 + 2, kind: "package")
        #expect(try object(versions["current"])["displayName"] as? String == "trip")
    }

    // MARK: -C, errors and usage

    @Test func globalDirectoryOptionBeforeOrAfterTheSubcommand() throws {
        let scratch = try Scratch()
        let root = try initContainer(scratch)
        try Data("x".utf8).write(to: root.appendingPathComponent("a.txt"))
        let elsewhere = scratch.url

        let before = try docver("-C", root.path, "save", "-m", "via C", in: elsewhere)
        expectSuccess(before)
        #expect(before.stdout.hasPrefix("added: a.txt\n"))
        try Data("y".utf8).write(to: root.appendingPathComponent("a.txt"))
        let after = try docver("save", "-C", root.path, in: elsewhere)
        expectSuccess(after)
        #expect(after.stdout.hasPrefix("modified: a.txt\n"))
        #expect(try commitCount("HEAD", in: root) == 2)

        for arguments in [
            ["-C", root.path, "status"], ["status", "-C", root.path], ["-C", "notes", "status"],
            ["ls", "-C", "notes", "--json"], ["log", "-C", "notes", "--json"],
        ] {
            let result = try docver(arguments, in: elsewhere)
            expectSuccess(result)
        }
        let ls = try docver("-C", "notes", "ls", "--json", in: elsewhere)
        #expect(try array(json(ls)).count == 1)
        let ls2 = try docver("ls", "--json", "-C", "notes", in: elsewhere)
        #expect(ls2.stdout == ls.stdout)
        // From a subdirectory of the container, like git.
        let sub = root.appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        #expect(try docver("ls", "--json", in: sub).stdout == ls.stdout)

        // Outside any container.
        let outside = try docver("status", in: elsewhere)
        expectFailure(outside, "docver: error: not a docver container: \(elsewhere.path)")
        #expect(outside.stderrLines.count == 2)
        expectFailure(try docver("-C", scratch.path("missing").path, "ls", in: elsewhere))
    }

    @Test func usageErrorsExit64() throws {
        let scratch = try Scratch()
        let root = try initContainer(scratch)
        for arguments in [
            ["bogus"], ["save", "--bogus"], ["log", "-n", "0"], ["show"], ["restore", "a.txt"],
            ["init", "--device"], ["init", "--device", "bad id"], ["versions"], ["-C"],
        ] {
            let result = try docver(arguments, in: root)
            #expect(result.status == 64, "\(arguments) exited \(result.status)")
            #expect(result.stdout.isEmpty)
            #expect(!result.stderr.isEmpty)
        }
        let version = try docver("--version")
        expectSuccess(version)
        let help = try docver("--help")
        #expect(help.status == 0)
        #expect(help.stdout.contains("save"))
    }

    @Test func errorsAreOneLineWithAnOptionalHint() throws {
        let scratch = try Scratch()
        let root = try initContainer(scratch)
        try Data("x".utf8).write(to: root.appendingPathComponent("a.txt"))
        try Data("y".utf8).write(to: root.appendingPathComponent("b.txt"))
        expectSuccess(try docver("save", in: root))
        let both = try runGit(["rev-parse", "HEAD"], in: root).trimmingCharacters(in: .newlines)

        let needs = try docver("show", both, in: root)
        expectFailure(needs, "docver: error: version \(both) saved several documents; name the document")
        #expect(needs.stderrLines.count == 2)
        let forged = try docver("save", "-m", "x\n\nDocver-Device: mallory", in: root)
        expectFailure(forged)
        expectFailure(try docver("save", "missing.txt", in: root), "docver: error: no such document: missing.txt")
        expectFailure(try docver("versions", "missing.txt", in: root), "docver: error: no such document: missing.txt")
        expectFailure(try docver("sync", in: root), "docver: error: no remotes configured")
        #expect(try commitCount("HEAD", in: root) == 1)
    }

    /// The hint under an error is the CLI's advice (Sources/docver/Advice.swift): it names the
    /// commands and flags that help, whichever command failed.
    @Test func failuresCarryTheCLIsAdvice() throws {
        let scratch = try Scratch()
        func expectHint(
            _ arguments: [String], in directory: URL, _ error: String, _ hint: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            let result = try docver(arguments, in: directory)
            expectFailure(result, sourceLocation: sourceLocation)
            #expect(
                result.stderrLines.first?.hasPrefix("docver: error: \(error)") == true, "\(arguments): \(result.stderr)",
                sourceLocation: sourceLocation)
            #expect(result.stderrLines.dropFirst() == ["hint: \(hint)"], "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        }

        try expectHint(
            ["status"], in: scratch.url, "not a docver container",
            "create one with 'docver init', or name a container's folder with -C")
        let root = try initContainer(scratch)
        try expectHint(
            ["init", "notes", "--device", "bob"], in: scratch.url, "\(root.standardizedFileURL.path) is already a docver container",
            "run init with the same device id and name to check it, or use the container as it is")
        try Data("x".utf8).write(to: root.appendingPathComponent("a.txt"))
        try Data("y".utf8).write(to: root.appendingPathComponent("b.txt"))
        expectSuccess(try docver("save", in: root))
        let both = try runGit(["rev-parse", "HEAD"], in: root).trimmingCharacters(in: .newlines)

        try expectHint(
            ["show", "a.txt", "zzzz"], in: root, "invalid version 'zzzz'", "list the versions of a.txt with 'docver versions a.txt --all'")
        let unused = both.hasPrefix("abcd") ? "dcba" : "abcd"
        try expectHint(
            ["show", "a.txt", unused], in: root, "no such version: \(unused)", "list the versions of a.txt with 'docver versions a.txt --all'")
        try expectHint(
            ["show", both], in: root, "version \(both) saved several documents",
            "name the document first, then the version; 'docver log --json' lists the documents each save changed")
        try expectHint(
            ["sync"], in: root, "no remotes configured",
            "add one with 'docver remote add origin' followed by the path or address of a repository (--create makes one at a path)")
        try expectHint(
            ["diff", "a.txt", both, "--base"], in: root, "a.txt is not in conflict",
            "list documents in conflict with 'docver conflicts'")
        try expectHint(
            ["resolve", "a.txt", "--strategy", "latest-date"], in: root, "a.txt is not in conflict",
            "list documents in conflict with 'docver conflicts'")

        // An error without advice is the one line alone.
        let missing = try docver("versions", "missing.txt", in: root)
        expectFailure(missing, "docver: error: no such document: missing.txt")
        #expect(missing.stderrLines.count == 1)
    }
}
