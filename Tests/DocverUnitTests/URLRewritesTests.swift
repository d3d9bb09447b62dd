import Testing

@testable import DocverKit

/// git's `url.<base>.insteadOf` and `pushInsteadOf`, applied by docver itself since libgit2's
/// remote lookup leaks memory (ConfigSnapshot); RemoteLookupTests compares the result with
/// libgit2's and git's on a real config.
@Suite struct URLRewritesTests {
    let rewrites = URLRewrites(entries: [
        ("url./srv/git/.insteadof", "alias:"),
        ("url./srv/team/.insteadof", "alias:team/"),
        ("url./srv/other/.insteadof", "alias:team/"),  // as long as the one before: the first wins
        ("url.ssh://push.example/.pushinsteadof", "alias:"),
        ("url.ignored/.insteadof", ""),  // an empty prefix rewrites nothing
        ("remote.origin.url", "alias:x"),
        ("url.insteadof", "alias:"),  // no base
    ])

    @Test func theLongestPrefixWinsAndTheFirstOfEquals() {
        #expect(rewrites.insteadOf.count == 4 && rewrites.pushInsteadOf.count == 1)
        #expect(rewrites.fetchURL("alias:notes.git") == "/srv/git/notes.git")
        #expect(rewrites.fetchURL("alias:team/notes.git") == "/srv/team/notes.git")
        #expect(rewrites.fetchURL("https://example.com/x.git") == "https://example.com/x.git")
    }

    @Test func thePushURLIsThePushurlRewrittenElseTheURLByPushInsteadOf() {
        #expect(rewrites.pushURL(url: "alias:notes.git", pushURL: nil) == "ssh://push.example/notes.git")
        #expect(rewrites.pushURL(url: "alias:notes.git", pushURL: "alias:team/p.git") == "/srv/team/p.git")
        #expect(rewrites.pushURL(url: "alias:notes.git", pushURL: "") == "ssh://push.example/notes.git")
        #expect(rewrites.pushURL(url: "https://example.com/x.git", pushURL: nil) == nil)
        #expect(rewrites.pushURL(url: "x", pushURL: "/srv/p.git") == "/srv/p.git")
    }
}
