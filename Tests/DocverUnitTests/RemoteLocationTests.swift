import DocverKit
import Foundation
import Testing

/// Which remote URLs are local paths (checked, and made with --create) and which are network
/// URLs (stored as given), as git reads them.
@Suite struct RemoteLocationTests {
    private let here = URL(fileURLWithPath: "/home/alice/notes")

    @Test func pathsAndFileURLsAreLocalAndAbsolute() {
        #expect(RemoteLocation("/srv/notes.git", relativeTo: here) == .local(path: "/srv/notes.git"))
        #expect(RemoteLocation("../sync/notes.git", relativeTo: here) == .local(path: "/home/alice/sync/notes.git"))
        #expect(RemoteLocation("notes.git", relativeTo: here) == .local(path: "/home/alice/notes/notes.git"))
        #expect(RemoteLocation("./a/../b.git", relativeTo: here) == .local(path: "/home/alice/notes/b.git"))
        #expect(RemoteLocation("file:///srv/notes.git", relativeTo: here) == .local(path: "/srv/notes.git"))
        #expect(RemoteLocation("file:///srv/with%20space.git", relativeTo: here) == .local(path: "/srv/with space.git"))
        #expect(RemoteLocation("/srv/a:b.git", relativeTo: here) == .local(path: "/srv/a:b.git"), "a colon after a slash is a path")
    }

    @Test func networkURLsAreKeptAsGiven() {
        for url in [
            "git://127.0.0.1:9418/notes.git", "ssh://alice@nas/srv/notes.git", "https://example.com/notes.git",
            "nas:srv/notes.git", "alice@nas:/srv/notes.git",
        ] {
            #expect(RemoteLocation(url, relativeTo: here) == .network(url: url), "\(url)")
            #expect(RemoteLocation(url, relativeTo: here).url == url)
        }
    }

    @Test func aPasswordInAURLIsShownAsStars() {
        let cases = [
            "https://alice:s3cret@example.com/notes.git": "https://alice:***@example.com/notes.git",
            "ssh://alice:s3cret@nas:2222/srv/notes.git": "ssh://alice:***@nas:2222/srv/notes.git",
            // An unescaped @ in the password: hidden whole, up to the last @ of the host part.
            "https://alice:p@ss@example.com/notes.git": "https://alice:***@example.com/notes.git",
            "https://alice:p%40ss@example.com/a@b.git": "https://alice:***@example.com/a@b.git",
            // Nothing to hide.
            "https://alice@example.com/notes.git": "https://alice@example.com/notes.git",
            "https://alice:@example.com/notes.git": "https://alice:@example.com/notes.git",
            "https://example.com/user@x/notes.git": "https://example.com/user@x/notes.git",
            "alice@nas:/srv/notes.git": "alice@nas:/srv/notes.git",
            "/srv/a:b@c.git": "/srv/a:b@c.git",
        ]
        for (url, shown) in cases {
            #expect(RemoteLocation.redacted(url) == shown, "\(url)")
            #expect(RemoteLocation(url, relativeTo: here).url == url, "stored as given")
        }
        let url = "https://alice:p%40ss-word@example.com/notes.git"
        #expect(
            RemoteLocation.redacting("failed to reach \(url) as alice:p@ss-word, p%40ss-word", of: url)
                == "failed to reach https://alice:***@example.com/notes.git as alice:***, ***")
    }

    @Test func onlyAPasswordOverPlainHTTPTravelsInClearText() {
        #expect(RemoteLocation("http://alice:pw@example.com/n.git", relativeTo: here).sendsPasswordInClearText)
        #expect(RemoteLocation("HTTP://alice:pw@example.com/n.git", relativeTo: here).sendsPasswordInClearText)
        for url in [
            "https://alice:pw@example.com/n.git", "http://alice@example.com/n.git", "http://example.com/n.git",
            "ssh://alice:pw@nas/n.git", "/srv/http:/a:b@c.git",
        ] {
            #expect(!RemoteLocation(url, relativeTo: here).sendsPasswordInClearText, "\(url)")
        }
    }
}
