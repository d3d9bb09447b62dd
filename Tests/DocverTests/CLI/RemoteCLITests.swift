import DocverKit
import Foundation
import Testing

/// `docver remote add|remove|rename|set-url|list`, with git's meanings; a local URL is checked
/// (and made with --create); bad input changes nothing.
@Suite struct RemoteCLITests {
    private func container(_ scratch: Scratch, _ id: String = "alice") throws -> URL {
        let result = try docver("init", id, "--device", id, in: scratch.url)
        #expect(result.status == 0, "\(result.stderr)")
        return scratch.path(id)
    }

    /// Config and refs: what "nothing changed" compares.
    private func state(_ root: URL) throws -> String {
        try runGit(["config", "--local", "--list"], in: root) + refSnapshot(root)
    }

    private func expectOneErrorLine(
        _ result: ProcessResult, _ error: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == 1, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
        #expect(result.stderrLines.first == "docver: error: \(error)", "\(result.stderr)", sourceLocation: sourceLocation)
        if let hint {
            #expect(result.stderrLines.dropFirst() == ["hint: \(hint)"], "\(result.stderr)", sourceLocation: sourceLocation)
        } else {
            #expect(result.stderrLines.count <= 2, sourceLocation: sourceLocation)
        }
    }

    @Test func addChecksALocalPathAndCreatesTheBareRepositoryOnRequest() throws {
        let scratch = try Scratch()
        let alice = try container(scratch)
        try Data("hello\n".utf8).write(to: alice.appendingPathComponent("note.txt"))
        #expect(try docver("save", in: alice).status == 0)
        let before = try state(alice)

        // The README's first mistake: a path where nothing exists yet.
        let missing = scratch.path("srv/notes.git").path
        let refused = try docver("remote", "add", "origin", "../srv/notes.git", in: alice)
        expectOneErrorLine(refused, "no git repository at \(missing)", hint: "pass --create to make an empty bare repository there")
        #expect(try state(alice) == before)
        #expect(!FileManager.default.fileExists(atPath: missing))

        // A folder that holds something else is not turned into a repository.
        try FileManager.default.createDirectory(at: scratch.path("full"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: scratch.path("full/keep.txt"))
        let full = try docver("remote", "add", "origin", scratch.path("full").path, "--create", in: alice)
        expectOneErrorLine(full, "destination \(scratch.path("full").path) exists and is not empty")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("full").path) == ["keep.txt"])
        #expect(try state(alice) == before)

        // Inside the working tree the repository would be saved as a document: refused, created or not.
        let inside = try docver("remote", "add", "origin", "srv.git", "--create", in: alice)
        expectOneErrorLine(
            inside,
            "\(alice.appendingPathComponent("srv.git").standardizedFileURL.path) is inside the container's working tree, where it would be saved as a document",
            hint: "put it outside the container, next to it for example: docver remote add origin ../srv.git --create")
        #expect(!FileManager.default.fileExists(atPath: alice.appendingPathComponent("srv.git").path))
        #expect(try state(alice) == before)

        // --create makes the bare repository, and sync works at once, as git sees it.
        let created = try docver("remote", "add", "origin", "../srv/notes.git", "--create", in: alice)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout == "created an empty bare repository at \(missing)\nadded remote 'origin' (\(missing))\n")
        #expect(try runGit(["rev-parse", "--is-bare-repository"], in: URL(fileURLWithPath: missing)) == "true\n")
        let sync = try docver("sync", in: alice)
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try runGit(["for-each-ref", "--format=%(refname)"], in: URL(fileURLWithPath: missing)) == "refs/heads/docver/alice\n")
        try expectFsckClean(URL(fileURLWithPath: missing))

        // An existing repository, named by a file:// URL, is accepted as it is.
        let bob = try container(scratch, "bob")
        let viaFileURL = try docver("remote", "add", "origin", "file://" + missing, in: bob)
        #expect(viaFileURL.status == 0, "\(viaFileURL.stderr)")
        #expect(viaFileURL.stdout == "added remote 'origin' (\(missing))\n")
        #expect(try docver("sync", in: bob).status == 0)
        #expect(try String(contentsOf: bob.appendingPathComponent("note.txt"), encoding: .utf8) == "hello\n")

        // A name that exists already, or is no valid remote name: exit 1, nothing changes.
        let bobBefore = try state(bob)
        expectOneErrorLine(try docver("remote", "add", "origin", missing, in: bob), "remote 'origin' already exists")
        expectOneErrorLine(try docver("remote", "add", "bad name", missing, in: bob), "invalid remote name 'bad name'")
        #expect(try state(bob) == bobBefore)
    }

    @Test func aNetworkURLIsStoredWithoutContactingItAndAnUnreachableRemoteGetsAHint() throws {
        let scratch = try Scratch()
        let alice = try container(scratch)
        try Data("hello\n".utf8).write(to: alice.appendingPathComponent("note.txt"))
        #expect(try docver("save", in: alice).status == 0)
        let url = "git://127.0.0.1:\(try freeLocalPort())/nothing-listens.git"
        let added = try docver("remote", "add", "far", url, in: alice)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout == "added remote 'far' (\(url)); not contacted: the next sync reaches it\n")
        #expect(try docver("remote", in: alice).stdout == "far\t\(url)\n")

        let head = try runGit(["rev-parse", "HEAD"], in: alice)
        let sync = try docver("sync", in: alice)
        #expect(sync.status == 1)
        #expect(sync.stderrLines.count == 2, "\(sync.stderr)")
        #expect(sync.stderrLines.first?.hasPrefix("docver: error: remote 'far': ") == true, "\(sync.stderr)")
        #expect(
            sync.stderrLines.last
                == "hint: check where it points with 'docver remote list' (change that with 'docver remote set-url far' and the right address); saves stay here until a sync reaches it"
        )
        #expect(try runGit(["rev-parse", "HEAD"], in: alice) == head, "the save is still there")
    }

    @Test func remoteListsByItselfAndRefusesAnUnknownSubcommand() throws {
        let scratch = try Scratch()
        let alice = try container(scratch)
        let remote = try scratch.bareRemote()
        #expect(try docver("remote", "add", "origin", remote.path, in: alice).status == 0)
        for arguments in [["remote"], ["remote", "list"], ["-C", alice.path, "remote"]] {
            let result = try docver(arguments, in: alice)
            #expect(result.stdout == "origin\t\(remote.path)\n", "\(arguments)")
        }
        let json = try #require(try parseCLIJSON(docver("remote", "--json", in: alice)) as? [[String: String]])
        #expect(json == [["name": "origin", "url": remote.path]])
        let unknown = try docver("remote", "bogus", in: alice)
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("Usage: docver remote "), "\(unknown.stderr)")
        #expect(!unknown.stderr.contains("docver remote list"), "\(unknown.stderr)")
    }

    @Test func everyRemoteSubcommandPrintsJSON() throws {
        let scratch = try Scratch()
        let alice = try container(scratch)
        let created = scratch.path("made.git").path
        let add = try #require(try parseCLIJSON(docver("remote", "add", "origin", created, "--create", "--json", in: alice)) as? [String: Any])
        #expect(add["name"] as? String == "origin")
        #expect(add["url"] as? String == created)
        #expect(add["kind"] as? String == "local")
        #expect(add["created"] as? Bool == true)
        let url = "ssh://nas.invalid/notes.git"
        let set = try #require(try parseCLIJSON(docver("remote", "set-url", "origin", url, "--json", in: alice)) as? [String: Any])
        #expect(set["url"] as? String == url)
        #expect(set["kind"] as? String == "network")
        #expect(set["created"] as? Bool == false)
        let rename = try #require(try parseCLIJSON(docver("remote", "rename", "origin", "nas", "--json", in: alice)) as? [String: Any])
        #expect(rename["name"] as? String == "nas")
        #expect(rename["previousName"] as? String == "origin")
        let remove = try #require(try parseCLIJSON(docver("remote", "remove", "nas", "--json", in: alice)) as? [String: Any])
        #expect(remove["name"] as? String == "nas")
        #expect((remove["kept"] as? [Any])?.isEmpty == true)
        #expect(try docver("remote", in: alice).stdout.isEmpty)
    }

    @Test func cloneChecksALocalURLFirstAndAdvisesWithoutSetURL() throws {
        let scratch = try Scratch()
        let missing = scratch.path("nothing.git").path
        let local = try docver("clone", missing, "phone", "--device", "phone", in: scratch.url)
        expectOneErrorLine(
            local, "no git repository at \(missing)", hint: "clone needs an existing bare repository; 'docver init' starts a new container")
        let url = "git://127.0.0.1:\(try freeLocalPort())/nothing-listens.git"
        let network = try docver("clone", url, "phone", "--device", "phone", in: scratch.url)
        #expect(network.status == 1)
        #expect(network.stderrLines.first?.hasPrefix("docver: error: remote 'origin': ") == true, "\(network.stderr)")
        #expect(network.stderrLines.last == "hint: check the address and run clone again; nothing was created")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("phone").path))
    }

    @Test func renameMovesTheConfigTheRefspecAndTheFetchedBranches() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try container(scratch)
        let bob = try container(scratch, "bob")
        for root in [alice, bob] { #expect(try docver("remote", "add", "origin", remote.path, in: root).status == 0) }
        try Data("from bob\n".utf8).write(to: bob.appendingPathComponent("b.txt"))
        #expect(try docver("sync", in: bob).status == 0)
        #expect(try docver("sync", in: alice).status == 0)
        let bobTip = try runGit(["rev-parse", "refs/remotes/origin/docver/bob"], in: alice)

        let renamed = try docver("remote", "rename", "origin", "home", in: alice)
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(renamed.stdout == "renamed remote 'origin' to 'home'\n")
        #expect(try docver("remote", in: alice).stdout == "home\t\(remote.path)\n")
        #expect(try runGit(["config", "--get-all", "remote.home.fetch"], in: alice) == "+refs/heads/docver/*:refs/remotes/home/docver/*\n")
        #expect(try runGit(["rev-parse", "refs/remotes/home/docver/bob"], in: alice) == bobTip)
        #expect(try runGit(["for-each-ref", "--format=%(refname)", "refs/remotes/origin"], in: alice).isEmpty)

        // Sync by the new name brings bob's next save; plain git fetch uses the new refspec.
        try Data("again\n".utf8).write(to: bob.appendingPathComponent("b.txt"))
        #expect(try docver("sync", in: bob).status == 0)
        #expect(try docver("sync", "home", in: alice).status == 0)
        #expect(try String(contentsOf: alice.appendingPathComponent("b.txt"), encoding: .utf8) == "again\n")
        try runGit(["fetch", "-q", "home"], in: alice)
        try expectFsckClean(alice)

        // Missing names and taken names change nothing.
        let before = try state(alice)
        expectOneErrorLine(
            try docver("remote", "rename", "origin", "x", in: alice), "no such remote: origin",
            hint: "list remotes with 'docver remote list'")
        #expect(try docver("remote", "add", "other", remote.path, in: alice).status == 0)
        let withOther = try state(alice)
        expectOneErrorLine(try docver("remote", "rename", "home", "other", in: alice), "remote 'other' already exists")
        expectOneErrorLine(try docver("remote", "rename", "home", "bad name", in: alice), "invalid remote name 'bad name'")
        #expect(try state(alice) == withOther)
        #expect(before != withOther)
    }

    @Test func removeKeepsSavesNotYetIntegratedAndRefusesAMissingName() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try container(scratch)
        let bob = try container(scratch, "bob")
        for root in [alice, bob] { #expect(try docver("remote", "add", "origin", remote.path, in: root).status == 0) }
        try Data("a\n".utf8).write(to: alice.appendingPathComponent("a.txt"))
        #expect(try docver("sync", in: alice).status == 0)
        try Data("b\n".utf8).write(to: bob.appendingPathComponent("b.txt"))
        #expect(try docver("sync", in: bob).status == 0)
        // A plain git fetch brings bob's save to alice without integrating it.
        try runGit(["fetch", "-q", "origin"], in: alice)
        let bobTip = try runGit(["rev-parse", "refs/remotes/origin/docver/bob"], in: alice).trimmingCharacters(in: .newlines)

        let before = try state(alice)
        expectOneErrorLine(
            try docver("remote", "remove", "nosuch", in: alice), "no such remote: nosuch",
            hint: "list remotes with 'docver remote list'")
        expectOneErrorLine(
            try docver("remote", "rm", "nosuch", in: alice), "no such remote: nosuch",
            hint: "list remotes with 'docver remote list'")
        #expect(try state(alice) == before)

        let removed = try docver("remote", "remove", "origin", in: alice)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(
            removed.stdout == "removed remote 'origin'\nkept 1 fetched branch not yet integrated; the next sync or integrate brings their saves in\n")
        #expect(try docver("remote", in: alice).stdout.isEmpty)
        #expect(try runGit(["for-each-ref", "--format=%(refname)", "refs/remotes"], in: alice).isEmpty)
        let kept = try runGit(["for-each-ref", "--format=%(refname) %(objectname)", "refs/docver/kept"], in: alice)
        #expect(kept == "refs/docver/kept/origin/bob/\(bobTip) \(bobTip)\n")

        // The kept saves are integrated by the next integrate: nothing was lost.
        #expect(try docver("integrate", in: alice).status == 0)
        #expect(try String(contentsOf: alice.appendingPathComponent("b.txt"), encoding: .utf8) == "b\n")
        try expectFsckClean(alice)
    }

    @Test func setURLChecksTheNewURLAsAddDoes() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote()
        let alice = try container(scratch)
        try Data("a\n".utf8).write(to: alice.appendingPathComponent("a.txt"))
        #expect(try docver("remote", "add", "origin", remote.path, in: alice).status == 0)
        #expect(try docver("sync", in: alice).status == 0)
        let before = try state(alice)

        let moved = scratch.path("moved.git").path
        expectOneErrorLine(
            try docver("remote", "set-url", "origin", moved, in: alice), "no git repository at \(moved)",
            hint: "pass --create to make an empty bare repository there")
        expectOneErrorLine(
            try docver("remote", "set-url", "nosuch", remote.path, in: alice), "no such remote: nosuch",
            hint: "list remotes with 'docver remote list'")
        #expect(try state(alice) == before)
        #expect(!FileManager.default.fileExists(atPath: moved))

        let set = try docver("remote", "set-url", "origin", moved, "--create", in: alice)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout == "created an empty bare repository at \(moved)\nremote 'origin' now points at \(moved)\n")
        #expect(try runGit(["config", "remote.origin.url"], in: alice) == "\(moved)\n")
        #expect(try docver("sync", in: alice).status == 0)
        #expect(try runGit(["for-each-ref", "--format=%(refname)"], in: URL(fileURLWithPath: moved)) == "refs/heads/docver/alice\n")
    }

    // MARK: What a remote may be, checked at add and at sync

    /// A local remote that went away (or was replaced by a file) is named at sync, with the
    /// path and a way to make it again: not libgit2's "unsupported URL protocol".
    @Test func aLocalRemoteThatWentAwayIsNamedAtSyncWithTheWayBack() throws {
        let scratch = try Scratch()
        let alice = try container(scratch)
        try Data("hello\n".utf8).write(to: alice.appendingPathComponent("note.txt"))
        #expect(try docver("save", in: alice).status == 0)
        #expect(try docver("remote", "add", "origin", "../r.git", "--create", in: alice).status == 0)
        let path = scratch.path("r.git").path
        try FileManager.default.removeItem(atPath: path)
        let head = try runGit(["rev-parse", "HEAD"], in: alice)

        let gone = try docver("sync", in: alice)
        expectOneErrorLine(
            gone, "remote 'origin': no git repository at \(path)",
            hint: "if it moved, point 'origin' at it with 'docver remote set-url origin' and its new path; "
                + "to start again with an empty one: docver remote set-url origin \(path) --create")
        #expect(try runGit(["rev-parse", "HEAD"], in: alice) == head, "the save is still there")
        try Data("not a repository".utf8).write(to: URL(fileURLWithPath: path))
        expectOneErrorLine(
            try docver("sync", in: alice), "remote 'origin': \(path) is a file, not a git repository",
            hint: "point 'origin' at a bare git repository with 'docver remote set-url origin', or remove it with 'docver remote remove origin'")

        // The hint's command brings it back.
        try FileManager.default.removeItem(atPath: path)
        #expect(try docver("remote", "set-url", "origin", path, "--create", in: alice).status == 0)
        let again = try docver("sync", in: alice)
        #expect(again.status == 0, "\(again.stderr)")
    }

    /// libgit2 cannot push into a repository with a working tree, so add refuses one at once
    /// (a sync would fail at its push), naming a bare one to use; clone from another
    /// container says where to clone from instead. Nothing is changed or created.
    @Test func aRepositoryWithAWorkingTreeIsRefusedWithABareOneToUse() throws {
        let scratch = try Scratch()
        let alice = try container(scratch)
        let plain = scratch.path("plain")
        try runGit(["init", "-q", plain.path], in: scratch.url)
        let before = try state(alice)
        expectOneErrorLine(
            try docver("remote", "add", "plain", "../plain", in: alice),
            "\(plain.path) is a git repository with a working tree; a remote must be a bare repository, which a sync can push to",
            hint: "sync through a bare repository: git clone --bare \(plain.path) \(plain.path).git && docver remote add plain \(plain.path).git")
        // Its .git folder is the same repository, and --create does not make it bare.
        expectOneErrorLine(
            try docver("remote", "add", "plain", plain.path + "/.git", "--create", in: alice),
            "\(plain.path)/.git is a git repository with a working tree; a remote must be a bare repository, which a sync can push to",
            hint: "sync through a bare repository: git clone --bare \(plain.path)/.git \(plain.path).git && docver remote add plain \(plain.path).git"
        )
        #expect(try state(alice) == before)

        // Cloning from a container: from the repository it syncs through when it has one...
        let withRemote = try scratch.bareRemote("shared.git")
        #expect(try docver("remote", "add", "origin", withRemote.path, in: alice).status == 0)
        let fromAlice = try docver("clone", alice.path, "phone", "--device", "phone", in: scratch.url)
        expectOneErrorLine(
            fromAlice, "\(alice.path) is a git repository with a working tree; a remote must be a bare repository, which a sync can push to",
            hint: "clone from the repository it syncs through: docver clone \(withRemote.path) phone")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("phone").path))
        // ... else after giving it one; the hint's commands work.
        let bob = try container(scratch, "bob")
        try Data("from bob\n".utf8).write(to: bob.appendingPathComponent("b.txt"))
        #expect(try docver("save", in: bob).status == 0)
        let fromBob = try docver("clone", bob.path, "tablet", "--device", "tablet", in: scratch.url)
        let hint =
            "give it a bare repository to sync through, then clone from that: docver -C \(bob.path) remote add origin \(bob.path).git --create"
            + " && docver -C \(bob.path) sync && docver clone \(bob.path).git tablet"
        expectOneErrorLine(
            fromBob, "\(bob.path) is a git repository with a working tree; a remote must be a bare repository, which a sync can push to", hint: hint)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("tablet").path))
        let steps = try runProcess(
            "/bin/sh", ["-c", String(hint.split(separator: ":", maxSplits: 1)[1]).replacingOccurrences(of: "docver ", with: "\(docverExecutable) ")],
            in: scratch.url)
        #expect(steps.status == 0, "\(steps.stderr)")
        #expect(try String(contentsOf: scratch.path("tablet/b.txt"), encoding: .utf8) == "from bob\n")
    }

    /// add and set-url take only what a sync can go through; anything else is refused before
    /// the configuration changes (exit 1, as for an invalid name).
    @Test func unsupportedURLsAreRefusedAtAddAndChangeNothing() throws {
        let scratch = try Scratch()
        let alice = try container(scratch)
        #expect(try docver("remote", "add", "origin", try scratch.bareRemote().path, in: alice).status == 0)
        let before = try state(alice)
        for url in ["ftp://x/y", "rsync://host/path.git", "mailto://a@b"] {
            expectOneErrorLine(
                try docver("remote", "add", "weird", url, in: alice),
                "unsupported remote URL '\(url)': use a local path, user@host:path, or a file://, ssh://, git://, http:// or https:// URL")
            expectOneErrorLine(
                try docver("remote", "set-url", "origin", url, in: alice),
                "unsupported remote URL '\(url)': use a local path, user@host:path, or a file://, ssh://, git://, http:// or https:// URL")
        }
        #expect(try state(alice) == before)
        // Every supported kind is stored without contacting it.
        for (index, url) in [
            "ssh://nas.invalid/n.git", "git://nas.invalid/n.git", "http://nas.invalid/n.git",
            "https://nas.invalid/n.git", "alice@nas.invalid:n.git", "HTTPS://nas.invalid/n.git",
        ].enumerated() {
            let added = try docver("remote", "add", "r\(index)", url, in: alice)
            #expect(added.status == 0, "\(url): \(added.stderr)")
        }
        let cloned = try docver("clone", "ftp://x/y", "phone", in: scratch.url)
        expectOneErrorLine(
            cloned, "unsupported remote URL 'ftp://x/y': use a local path, user@host:path, or a file://, ssh://, git://, http:// or https:// URL")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("phone").path))
    }

    /// A regular file is called a file, not a non-empty destination, with or without --create.
    @Test func aFileIsNoRepository() throws {
        let scratch = try Scratch()
        let alice = try container(scratch)
        let file = scratch.path("file.patch")
        try Data("--- a\n".utf8).write(to: file)
        let before = try state(alice)
        for create in [["--create"], []] {
            expectOneErrorLine(
                try docver(["remote", "add", "z", "../file.patch"] + create, in: alice),
                "\(file.path) is a file, not a git repository",
                hint:
                    "a remote is a bare git repository; to make an empty one beside the file: docver remote add z \(scratch.path("file.git").path) --create"
            )
        }
        #expect(try state(alice) == before)
        #expect(try String(contentsOf: file, encoding: .utf8) == "--- a\n")
        expectOneErrorLine(
            try docver("clone", file.path, "phone", in: scratch.url), "\(file.path) is a file, not a git repository",
            hint: "clone needs an existing bare repository; 'docver init' starts a new container")
    }

    /// One unreachable remote among several: the others are fetched from, integrated and
    /// pushed to; then the sync fails naming the one it missed and the ones it synced.
    @Test func syncReachesEveryRemoteItCanAndNamesTheOthers() throws {
        let scratch = try Scratch()
        let home = try scratch.bareRemote("home.git")
        let alice = try container(scratch)
        let bob = try container(scratch, "bob")
        for root in [alice, bob] { #expect(try docver("remote", "add", "home", home.path, in: root).status == 0) }
        try Data("from bob\n".utf8).write(to: bob.appendingPathComponent("b.txt"))
        #expect(try docver("sync", in: bob).status == 0)
        let far = "git://127.0.0.1:\(try freeLocalPort())/nothing-listens.git"
        #expect(try docver("remote", "add", "far", far, in: alice).status == 0)
        try Data("from alice\n".utf8).write(to: alice.appendingPathComponent("a.txt"))

        let sync = try docver("sync", in: alice)
        #expect(sync.status == 1)
        #expect(
            sync.stdout == "saved 1 changed document before syncing\nintegrated saves from other devices\n"
                + "b.txt: updated to bob's (version \(try runGit(["rev-parse", "--short=12", "refs/remotes/home/docver/bob"], in: alice).trimmingCharacters(in: .newlines)))\n"
                + "pushed to home\n", "\(sync.stdout)")
        #expect(sync.stderrLines.count == 2, "\(sync.stderr)")
        #expect(sync.stderrLines.first?.hasPrefix("docver: error: could not sync with remote 'far' (") == true, "\(sync.stderr)")
        #expect(sync.stderrLines.first?.hasSuffix("); synced with 'home'") == true, "\(sync.stderr)")
        #expect(sync.stderrLines.last == "hint: check where it points with 'docver remote list'; saves stay here until a sync reaches far")
        // The reachable remote has alice's save, and bob's arrived here.
        #expect(try runGit(["rev-parse", "refs/heads/docver/alice"], in: home) == runGit(["rev-parse", "HEAD"], in: alice))
        #expect(try String(contentsOf: alice.appendingPathComponent("b.txt"), encoding: .utf8) == "from bob\n")

        // --json: the report, with the remote it missed; valid against the schema; exit 1.
        let gone = scratch.path("gone.git")
        #expect(try docver("remote", "add", "gone", gone.path, "--create", in: alice).status == 0)
        try FileManager.default.removeItem(at: gone)
        let json = try docver("sync", "--json", in: alice)
        #expect(json.status == 1)
        let value = try JSONValue.parse(json.stdoutData)
        #expect(try JSONSchemaCLITests.validator("sync").problems(in: value) == [], "\(json.stdout)")
        let object = try #require(try parseJSON(json.stdoutData) as? [String: Any])
        #expect(object["pushed"] as? [String] == ["home"])
        let unreachable = try #require(object["unreachable"] as? [[String: String]])
        #expect(unreachable.map { $0["remote"] } == ["far", "gone"])
        #expect(unreachable.last?["error"] == "no git repository at \(gone.path)")
        #expect(json.stderrLines.first?.hasPrefix("docver: error: could not sync with remotes 'far' (") == true, "\(json.stderr)")
        #expect(json.stderrLines.first?.hasSuffix("and 'gone' (no git repository at \(gone.path)); synced with 'home'") == true, "\(json.stderr)")
        #expect(json.stderrLines.last == "hint: check where they point with 'docver remote list'; saves stay here until a sync reaches far and gone")

        // Only unreachable remotes named: nothing synced, said so.
        let none = try docver("sync", "far", "gone", in: alice)
        #expect(none.status == 1 && none.stdout.isEmpty, "\(none.stdout)")
        #expect(none.stderrLines.first?.hasSuffix("; no remote was synced") == true, "\(none.stderr)")
    }
}
