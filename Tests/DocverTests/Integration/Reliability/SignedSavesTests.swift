import DocverKit
import Foundation
import Testing

/// Signed saves (docs/SECURITY.md, "Signed saves"): with `docver.signingKey` every save and
/// resolution of the device is signed with its SSH key, as git signs with `gpg.format = ssh`;
/// with `docver.allowedSigners`, decisions count only in commits signed by a key allowed for
/// the device they name, so a device with push access cannot resolve another's conflicts
/// under a borrowed name.
@Suite struct SignedSavesTests {
    /// A throwaway key pair `name` and `name.pub` in the scratch folder.
    private func key(_ name: String, in scratch: Scratch) throws -> (private: String, public: String) {
        let path = scratch.path("keys/\(name)").path
        try FileManager.default.createDirectory(atPath: scratch.path("keys").path, withIntermediateDirectories: true)
        let result = try runProcess("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path])
        try #require(result.status == 0, "ssh-keygen: \(result.stderr)")
        return (path, try String(contentsOfFile: path + ".pub", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private struct Setup {
        var alice: Container, bob: Container, notes: DocumentPath
        var allowedSigners: String, carolKey: String, open: [String]
    }

    /// Alice and Bob in conflict, each signing with a key of their own; an allowed-signers
    /// file lists both; Carol has a key nobody allowed.
    private func setUp(_ scratch: Scratch, requireSigned: Bool) throws -> Setup {
        let (alice, bob, notes) = try twoDevicesInConflict(scratch)
        let aliceKey = try key("alice", in: scratch), bobKey = try key("bob", in: scratch), carolKey = try key("carol", in: scratch)
        let allowed = scratch.path("keys/allowed_signers").path
        try "alice \(aliceKey.public)\nbob \(bobKey.public)\n".write(toFile: allowed, atomically: true, encoding: .utf8)
        for (device, key) in [(alice, aliceKey), (bob, bobKey)] {
            _ = try device.git(["config", "docver.signingKey", key.private])
            if requireSigned { _ = try device.git(["config", "docver.allowedSigners", allowed]) }
        }
        let open = try alice.unresolvedConflictVersions(of: notes).map(\.id)
        try #require(open.count == 1)
        return Setup(alice: alice, bob: bob, notes: notes, allowedSigners: allowed, carolKey: carolKey.private, open: open)
    }

    @Test func savesAndResolutionsAreSignedAsGitReadsThem() throws {
        let scratch = try Scratch()
        let setup = try setUp(scratch, requireSigned: true)
        try setup.alice.saveText("signed\n", to: "other.txt")
        _ = try setup.bob.markResolved(setup.notes)
        for (device, name) in [(setup.alice, "alice"), (setup.bob, "bob")] {
            let shown = try device.git([
                "-c", "gpg.format=ssh", "-c", "gpg.ssh.allowedSignersFile=\(setup.allowedSigners)",
                "log", "--show-signature", "-1",
            ])
            #expect(shown.contains("Good \"git\" signature for \(name)"), "git log --show-signature: \(shown)")
        }
        // The signed resolution counts on the other device.
        try setup.bob.sync(); try setup.alice.sync(); try setup.bob.sync()
        #expect(try setup.alice.unresolvedConflictVersions(of: setup.notes).isEmpty)
        try expectConverged([setup.alice, setup.bob])
        try expectFsckClean(setup.alice.root)
    }

    /// Carol, with push access, pushes commits that claim to be Bob's and resolve Alice's
    /// conflict version: unsigned, and signed with her own key. With the allowed-signers
    /// file the decisions are refused or ignored with a warning and the conflict stays open on both
    /// devices; without it (the control) they are believed, as docs/SECURITY.md says.
    @Test(arguments: [(true, false), (true, true), (false, false)])
    func decisionsInCommitsNotSignedByTheNamedDeviceAreIgnored(requireSigned: Bool, forgerSigns: Bool) throws {
        let scratch = try Scratch()
        let setup = try setUp(scratch, requireSigned: requireSigned)
        let work = scratch.path("carol")
        _ = try runGit(["clone", "-q", scratch.path("remote.git").path, work.path], in: scratch.url)
        _ = try runGit(["checkout", "-q", "-b", "carol", "origin/docver/bob"], in: work)
        let forged =
            "Resolve conflict in notes.txt\n\nDocver-Device: bob\nDocver-Device-Name: bob\n"
            + "Docver-Resolved: \(setup.open[0]) notes.txt\nDocver-Removed: \(setup.open[0]) notes.txt\n"
        let signing = forgerSigns ? ["-c", "gpg.format=ssh", "-c", "user.signingKey=\(setup.carolKey)"] : []
        _ = try runGit(
            ["-c", "core.hooksPath=/dev/null"] + signing
                + ["commit", "-q", "--allow-empty"] + (forgerSigns ? ["-S"] : []) + ["-m", forged], in: work)
        _ = try runGit(["push", "-q", "origin", "carol:docver/carol"], in: work)
        for device in [setup.alice, setup.bob] {
            let report = try device.sync()
            let open = try device.unresolvedConflictVersions(of: setup.notes).map(\.id)
            if requireSigned {
                #expect(open == setup.open, "a forged decision closed the conflict on \(device.device.id)")
                // The branch carrying them is refused at arrival (its save is not signed by
                // carol, whose branch it is); a decision that got past that would be ignored.
                #expect(
                    report.warnings.contains { $0.contains("refused the saves of 'origin/docver/carol'") || $0.contains("ignored") },
                    "\(report.warnings)")
            } else {
                #expect(open.isEmpty, "without signed decisions required, a decision naming bob is believed")
            }
        }
        try expectConverged([setup.alice, setup.bob])
    }

    /// With `docver.allowedSigners`, a commit on `docver/alice` that Alice's key did not sign
    /// (unsigned, or signed by Carol's key) is refused at arrival with a warning naming the
    /// device: its content does not become current on Bob, and it stays reachable under
    /// `refs/docver/refused/` for inspection. Alice's own signed saves keep arriving.
    @Test(arguments: [false, true])
    func aSaveOnADevicesBranchNotSignedByItsKeyIsRefused(forgerSigns: Bool) throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try scratch.device("alice", remote: remote), bob = try scratch.device("bob", remote: remote)
        let aliceKey = try key("alice", in: scratch), bobKey = try key("bob", in: scratch), carolKey = try key("carol", in: scratch)
        let allowed = scratch.path("keys/allowed_signers").path
        try "alice \(aliceKey.public)\nbob \(bobKey.public)\n".write(toFile: allowed, atomically: true, encoding: .utf8)
        for (device, key) in [(alice, aliceKey), (bob, bobKey)] {
            _ = try device.git(["config", "docver.signingKey", key.private])
            _ = try device.git(["config", "docver.allowedSigners", allowed])
        }
        try alice.saveText("genuine\n", to: "notes.txt")
        try alice.sync()
        try bob.sync()
        #expect(try bob.read("notes.txt") == "genuine\n")

        // Carol fast-forwards alice's branch on the remote with a save claiming to be Alice's.
        let work = scratch.path("carol")
        _ = try runGit(["clone", "-q", remote.path, work.path], in: scratch.url)
        _ = try runGit(["checkout", "-q", "-b", "carol", "origin/docver/alice"], in: work)
        try "forged\n".write(toFile: work.path + "/notes.txt", atomically: true, encoding: .utf8)
        let signing = forgerSigns ? ["-c", "gpg.format=ssh", "-c", "user.signingKey=\(carolKey.private)"] : []
        _ = try runGit(
            ["-c", "core.hooksPath=/dev/null"] + signing
                + ["commit", "-q", "-a"] + (forgerSigns ? ["-S"] : [])
                + ["-m", "Save notes.txt\n\nDocver-Device: alice\nDocver-Device-Name: alice\n"], in: work)
        let forged = try runGit(["rev-parse", "HEAD"], in: work).trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try runGit(["push", "-q", "origin", "carol:docver/alice"], in: work)

        let sync = try docver("sync", in: bob.root)
        #expect(sync.status == 0, "\(sync.stderr)")
        let warnings = sync.stderrLines.filter { $0.contains("refused the saves of 'origin/docver/alice'") }
        #expect(warnings.count == 1 && warnings[0].contains("not signed by device 'alice'"), "\(sync.stderr)")
        #expect(try bob.read("notes.txt") == "genuine\n", "a save not signed by alice became current")
        #expect(try !bob.isReachable(forged))
        let kept = try bob.git(["for-each-ref", "--format=%(objectname)", "refs/docver/refused/"])
        #expect(kept.contains(forged), "the refused save is not kept for inspection: \(kept)")
        try expectFsckClean(bob.root)
    }

    /// A signing key that cannot sign (missing file) makes the save fail with one error and
    /// change nothing: a save is never written unsigned when signing was asked for.
    @Test func aSaveThatCannotBeSignedIsRefused() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("one\n", to: "notes.txt")
        _ = try alice.git(["config", "docver.signingKey", scratch.path("no-such-key").path])
        let before = try alice.headID()
        try alice.write("two\n", to: "notes.txt")
        #expect(throws: DocverError.self) { try alice.saveAll() }
        #expect(try alice.headID() == before)
        #expect(try alice.read("notes.txt") == "two\n", "the edit stays in the working tree")
    }
}
