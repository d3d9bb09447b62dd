import Foundation

/// Where a remote's URL points: a repository on this machine, or one reached over a network.
///
/// A local path or `file://` URL can be checked (and created) before it is stored; a network
/// URL (`git://`, `ssh://`, `http://`, `https://`, scp-style `host:path`) is stored without
/// contacting it.
public enum RemoteLocation: Sendable, Hashable {
    /// A repository on this machine, at an absolute path.
    case local(path: String)
    /// A URL reached over a network; stored as given.
    case network(url: String)

    /// Classifies a URL as git does: `file://` and anything without a scheme or a `host:` prefix
    /// is a local path (relative paths are taken from `directory`).
    public init(_ url: String, relativeTo directory: URL) {
        if url.hasPrefix("file://") {
            let path = URL(string: url)?.path ?? String(url.dropFirst("file://".count))
            self = .local(path: URL(fileURLWithPath: path).standardizedFileURL.path)
            return
        }
        let isURL = url.contains("://")
        // scp-style: a colon before any slash, as git reads `host:path` (and `user@host:path`).
        let isScpLike = url.firstIndex(of: ":").map { colon in !url[..<colon].contains("/") } ?? false
        if isURL || isScpLike {
            self = .network(url: url)
        } else {
            // The base as a folder: without a trailing slash a URL's last component is a file,
            // and a relative path would resolve against its parent.
            let base = URL(fileURLWithPath: directory.path, isDirectory: true)
            self = .local(path: URL(fileURLWithPath: url, relativeTo: base).standardizedFileURL.path)
        }
    }

    /// The schemes of network URLs libgit2 syncs through (`file://` is a local path).
    static let networkSchemes: Set<String> = ["ssh", "git", "http", "https", "ssh+git", "git+ssh"]

    /// Whether a sync can go through this location: any local path, an scp-style address, or
    /// a URL whose scheme libgit2 has a transport for (not `ftp://`, say).
    public var isSupported: Bool {
        guard case let .network(url) = self, let separator = url.range(of: "://") else { return true }
        return Self.networkSchemes.contains(url[..<separator.lowerBound].lowercased())
    }

    /// The URL to store in the remote's configuration.
    public var url: String {
        switch self {
        case let .local(path): path
        case let .network(url): url
        }
    }
}
