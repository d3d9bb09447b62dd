import Foundation
import Testing

@testable import DocverKit

/// docver reads a remote's config itself rather than through `git_remote_lookup` and
/// `git_remote_list`, which leak memory in libgit2 1.5.1 at every config entry (an agent
/// looks its remotes up at each poll; docs/PERFORMANCE.md). The remote it builds must be the
/// one libgit2 and git would use: the URL rewritten by `insteadOf`, the push URL, the fetch
/// refspecs, the tag and prune settings.
@Suite struct RemoteLookupTests {
    struct Seen: Equatable, CustomStringConvertible {
        var url: String
        var pushURL: String?
        var refspecs: [String]
        var fetch: Remote.FetchDefaults
        var description: String { "\(url) push \(pushURL ?? "-") \(refspecs) \(fetch)" }

        init(_ remote: Remote) {
            url = remote.url
            pushURL = remote.pushURL
            refspecs = remote.fetchRefspecs
            fetch = remote.fetchDefaults
        }
    }

    @Test func aRemoteIsWhatLibgit2AndGitMakeOfTheConfig() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        func config(_ arguments: String...) throws { _ = try alice.git(["config"] + arguments) }
        try alice.addRemote("origin", url: "alias:team/notes.git")
        try config("url./srv/git/.insteadOf", "alias:")
        try config("url./srv/team/.insteadOf", "alias:team/")  // the longest prefix wins
        try config("url.ssh://pushes.example/.pushInsteadOf", "alias:")
        try alice.addRemote("Mirror", url: "https://example.invalid/x.git")
        try config("remote.Mirror.pushurl", "alias:push.git")  // a push URL is rewritten by insteadOf
        try config("remote.Mirror.tagopt", "--no-tags")
        try config("remote.Mirror.prune", "true")
        // (A local path must hold a repository when the remote is added.)
        let tags = try scratch.bareRemote("tags.git").path, two = try scratch.bareRemote("two.git").path
        try alice.addRemote("tags", url: tags)
        try config("remote.tags.tagopt", "--tags")
        try config("fetch.prune", "yes")
        try config("remote.pushonly.pushurl", "/tmp/push-only.git")
        try alice.addRemote("twospecs", url: two)
        try config("--add", "remote.twospecs.fetch", "+refs/heads/main:refs/remotes/twospecs/main")
        try config("remote.twospecs.prune", "false")

        let names = ["Mirror", "origin", "pushonly", "tags", "twospecs"]
        try alice.withRepository { repository in
            #expect(try Remote.names(in: repository) == names)
            for name in names {
                let ours = try #require(try Remote.lookup(name, in: repository))
                let libgit2 = try #require(try Remote.lookupByLibgit2(name, in: repository))
                #expect(Seen(ours) == Seen(libgit2), "\(name)")
            }
            for missing in ["nothing", "origin2", "bad name", ""] {
                #expect(try Remote.lookup(missing, in: repository) == nil)
                #expect(try Remote.lookupByLibgit2(missing, in: repository) == nil)
            }
            let origin = try #require(try Remote.lookup("origin", in: repository))
            #expect(origin.url == "/srv/team/notes.git")
            #expect(origin.pushURL == "ssh://pushes.example/team/notes.git")
            #expect(origin.fetchDefaults == Remote.FetchDefaults(tags: .following, prune: true))
            let mirror = try #require(try Remote.lookup("Mirror", in: repository))
            #expect(mirror.pushURL == "/srv/git/push.git")
            #expect(mirror.fetchDefaults == Remote.FetchDefaults(tags: .none, prune: true))
        }
        // git's own reading of the same config.
        #expect(try alice.git(["remote"]).split(separator: "\n").map(String.init).sorted() == names.sorted())
        #expect(try alice.git(["remote", "get-url", "origin"]) == "/srv/team/notes.git\n")
        #expect(try alice.git(["remote", "get-url", "--push", "origin"]) == "ssh://pushes.example/team/notes.git\n")
        #expect(try alice.git(["remote", "get-url", "--push", "Mirror"]) == "/srv/git/push.git\n")
        #expect(
            try alice.remotes().map(\.url) == [
                "https://example.invalid/x.git", "/srv/team/notes.git", "",
                tags, two,
            ])
    }

    /// A sync fetches from and pushes to the URL as `insteadOf` rewrites it.
    @Test func aSyncReachesTheRemoteThroughInsteadOf() throws {
        let scratch = try Scratch()
        let remote = try scratch.bareRemote("notes.git")
        let bob = try scratch.device("bob", remote: remote)
        try bob.saveText("from bob\n", to: "bob.txt")
        try bob.sync()

        let alice = try scratch.device("alice")
        try alice.addRemote("origin", url: "alias:notes.git")
        _ = try alice.git(["config", "url.\(scratch.url.path)/.insteadOf", "alias:"])
        try alice.saveText("from alice\n", to: "alice.txt")
        try alice.sync()
        #expect(try alice.read("bob.txt") == "from bob\n")
        #expect(try runGit(["for-each-ref", "--format=%(refname)"], in: remote).contains("refs/heads/docver/alice"))
        try expectFsckClean(alice.root)
    }
}
