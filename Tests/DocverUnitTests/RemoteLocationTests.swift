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
        for url in ["git://127.0.0.1:9418/notes.git", "ssh://alice@nas/srv/notes.git", "https://example.com/notes.git",
                    "nas:srv/notes.git", "alice@nas:/srv/notes.git"] {
            #expect(RemoteLocation(url, relativeTo: here) == .network(url: url), "\(url)")
            #expect(RemoteLocation(url, relativeTo: here).url == url)
        }
    }
}
