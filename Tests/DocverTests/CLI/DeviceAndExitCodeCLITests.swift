import DocverKit
import Foundation
import Testing

/// The `--device` defaults, exit codes that agree across commands, and listings whose
/// columns come from their content.
@Suite struct DeviceAndExitCodeCLITests {
    @Test func initAndCloneDefaultToADeviceFromTheHostAndThePath() throws {
        let scratch = try Scratch()
        let root = scratch.path("notes")
        let expected = Device.defaultID(hostName: Host.name, containerPath: root.standardizedFileURL.path)
        let name = "\(Host.name) (\(root.standardizedFileURL.path))"
        let created = try docver("init", "notes", in: scratch.url)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout == "docver container at \(root.standardizedFileURL.path) for device '\(expected)' (\(name))\n")
        #expect(try runGit(["config", "docver.device"], in: root) == "\(expected)\n")
        #expect(try runGit(["config", "docver.deviceName"], in: root) == "\(name)\n")

        // Deterministic: init again with the defaults checks the container and succeeds.
        let again = try docver("init", in: root)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == created.stdout)

        // status shows the device.
        let status = try docver("status", in: root)
        #expect(status.stdout.hasPrefix("on device \(expected) (\(name))\n"), "\(status.stdout)")

        // A clone on the same host gets another id (its path differs), so each pushes its own branch.
        let remote = try scratch.bareRemote()
        try Data("x\n".utf8).write(to: root.appendingPathComponent("x.txt"))
        #expect(try docver("remote", "add", "origin", remote.path, in: root).status == 0)
        #expect(try docver("sync", in: root).status == 0)
        let clone = try docver("clone", remote.path, "copy", in: scratch.url)
        #expect(clone.status == 0, "\(clone.stderr)")
        let cloneID = Device.defaultID(hostName: Host.name, containerPath: scratch.path("copy").standardizedFileURL.path)
        #expect(cloneID != expected)
        #expect(try runGit(["config", "docver.device"], in: scratch.path("copy")) == "\(cloneID)\n")
        #expect(try docver("sync", in: scratch.path("copy")).status == 0)
        #expect(
            try runGit(["for-each-ref", "--format=%(refname)"], in: remote)
                == ["refs/heads/docver/\(cloneID)", "refs/heads/docver/\(expected)"].sorted().joined(separator: "\n") + "\n")

        // An explicit --device keeps its id as the name unless --device-name is given.
        #expect(try docver("init", "named", "--device", "tablet", in: scratch.url).status == 0)
        #expect(try runGit(["config", "docver.deviceName"], in: scratch.path("named")) == "tablet\n")
    }

    @Test func invalidDeviceOptionsAreUsageErrorsForInitAndClone() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        for arguments in [
            ["init", "c", "--device", "bad id"], ["init", "c", "--device-name", "two\nlines"],
            ["clone", remote.path, "c", "--device", "bad/id"], ["clone", remote.path, "c", "--device", "ok", "--device-name", ""],
        ] {
            let result = try docver(arguments, in: scratch.url)
            #expect(result.status == 64, "\(arguments): exit \(result.status) \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: invalid device "), "\(arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("c").path), "\(arguments) created the container")
        }
    }

    /// Every command that takes a document fails alike (exit 1, `no such document`) for one
    /// that was never saved, and changes nothing.
    @Test func aMissingDocumentIsExitOneEverywhere() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let save = try alice.saveText("hello\n", to: "note.txt")
        let before = try refSnapshot(alice.root)
        for arguments in [
            ["conflicts", "nosuch.txt"], ["versions", "nosuch.txt"], ["log", "nosuch.txt"],
            ["log", "nosuch.txt", "--json"], ["mark-resolved", "nosuch.txt"], ["remove-other-versions", "nosuch.txt"],
            ["resolve", "nosuch.txt", "--strategy", "latest-date"], ["replace", "nosuch.txt", save],
            ["show", save, "nosuch.txt"], ["save", "nosuch.txt"],
        ] {
            let result = try docver(arguments, in: alice.root)
            #expect(result.status == 1, "\(arguments): exit \(result.status)")
            if arguments.contains("--json") {
                // Under --json the failure is also a JSON object on stdout (docs/CLI.md).
                #expect(try JSONValue.parse(result.stdoutData)["error"]?["code"] == .string("noSuchDocument"), "\(arguments): \(result.stdout)")
            } else {
                #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
            }
            #expect(result.stderrLines.first == "docver: error: no such document: nosuch.txt", "\(arguments): \(result.stderr)")
        }
        #expect(try refSnapshot(alice.root) == before)
        // A saved document without conflicts is no error.
        let clean = try docver("conflicts", "note.txt", in: alice.root)
        #expect(clean.status == 0)
        #expect(clean.stdout == "note.txt is not in conflict\n")
    }

    /// `versions` and `conflicts` size the device column to the longest name: nothing is cut
    /// and every column starts at the same place on every line.
    @Test func listingColumnsComeFromTheirContent() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let longName = "Alice's Very Long Laptop Name With Details"
        let alice = try scratch.device("alice", name: longName, remote: remote)
        let bob = try scratch.device("bob", name: "Bo", remote: remote)
        try alice.saveText("base\n", to: "note.txt")
        try alice.sync()
        try bob.sync()
        try alice.saveText("alice, longer\n", to: "note.txt")
        scratch.clock.tick()
        try bob.saveText("bob\n", to: "note.txt")
        try bob.sync()
        try alice.sync()

        func sizeColumns(_ lines: [Substring]) -> Set<Int> {
            Set(
                lines.map { line in
                    let text = String(line)
                    let range = text.range(of: #"[0-9]+ bytes$"#, options: .regularExpression)!
                    return text.distance(from: text.startIndex, to: range.lowerBound)
                })
        }
        let versions = try docver("versions", "note.txt", in: alice.root)
        #expect(versions.status == 0)
        #expect(versions.stdout.contains(longName), "\(versions.stdout)")
        let versionLines = versions.stdout.split(separator: "\n")
        #expect(versionLines.count == 3)
        #expect(sizeColumns(versionLines).count == 1, "\(versions.stdout)")

        let conflicts = try docver("conflicts", in: alice.root)
        #expect(conflicts.stdout.contains(longName), "\(conflicts.stdout)")
        let conflictLines = conflicts.stdout.split(separator: "\n").dropFirst()
        #expect(conflictLines.count == 3)
        #expect(sizeColumns(Array(conflictLines)).count == 1, "\(conflicts.stdout)")
    }
}
