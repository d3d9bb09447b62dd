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

    /// Whether this is a repository on this machine.
    public var isLocal: Bool { if case .local = self { true } else { false } }

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

// MARK: Passwords in URLs

extension RemoteLocation {
    /// The URL with its password, if it has one, replaced by `***`, as git shows such URLs:
    /// `https://alice:***@host/notes.git`. Everything that prints a remote's URL prints this.
    public var redactedURL: String { Self.redacted(url) }

    /// Whether the URL carries a password over plain `http://`, where anyone on the way can
    /// read it.
    public var sendsPasswordInClearText: Bool {
        guard case let .network(url) = self, let parts = Self.userInfo(of: url) else { return false }
        return parts.password != nil && url.lowercased().hasPrefix("http://")
    }

    /// `url` with the password of its user information (`scheme://user:password@host`)
    /// replaced by `***`; any other URL or path unchanged.
    public static func redacted(_ url: String) -> String {
        guard let parts = userInfo(of: url), let password = parts.password else { return url }
        return url.replacingCharacters(in: password, with: "***")
    }

    /// `text` (an error message, say) with every appearance of the password of `url` taken
    /// out: the whole URL becomes its redacted form, then the password itself becomes `***`,
    /// as it is and percent-decoded, wherever a message quoted it (a password of fewer than
    /// 4 characters only within the URL: alone it would blank ordinary words).
    public static func redacting(_ text: String, of url: String) -> String {
        guard let parts = userInfo(of: url), let range = parts.password else { return text }
        var result = text.replacingOccurrences(of: url, with: redacted(url))
        let password = String(url[range])
        for secret in Set([password, password.removingPercentEncoding ?? password]) where secret.count >= 4 {
            result = result.replacingOccurrences(of: secret, with: "***")
        }
        return result
    }

    /// Where the user information of a `scheme://` URL is, and its password if it has one.
    ///
    /// The authority ends at the first `/`, `?` or `#` after `://`; the user information at
    /// its last `@`, so that a password with an unescaped `@` in it is hidden whole (git
    /// reads up to the first one, and would send the rest as part of the host); the password
    /// starts after the first `:` of the user information.
    static func userInfo(of url: String) -> (user: Range<String.Index>, password: Range<String.Index>?)? {
        guard let scheme = url.range(of: "://") else { return nil }
        let authorityEnd = url[scheme.upperBound...].firstIndex { "/?#".contains($0) } ?? url.endIndex
        let authority = url[scheme.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return nil }
        let info = scheme.upperBound..<at
        guard let colon = url[info].firstIndex(of: ":") else { return (info, nil) }
        let password = url.index(after: colon)..<at
        return (scheme.upperBound..<colon, password.isEmpty ? nil : password)
    }
}
