internal import Clibgit2
import Foundation

/// A read-only snapshot of a repository's config, every level (the repository's, the user's,
/// the system's), as libgit2 reads it. Owns its `git_config`.
///
/// docver never hands libgit2 a regular expression to match against config entries. libgit2
/// 1.5.1 built with PCRE2 (Debian's package) leaks the match block, with PCRE2's 20 KiB of
/// match frames, each time such an expression does not match an entry: `git_regexp_match`
/// returns before freeing it (fixed in libgit2 1.6, pull request 6382). `git_remote_list`,
/// `git_remote_lookup` (its `insteadOf` rewriting) and `git_config_iterator_glob_new` match
/// every entry of the config that way, so an agent looking up its remotes at every poll grew
/// by about 0.4 MB a second. Entries are picked here from a plain iteration instead.
final class ConfigSnapshot {
    private let pointer: OpaquePointer

    init(of repository: Repository) throws {
        var handle: OpaquePointer?
        try check(git_repository_config_snapshot(&handle, repository.pointer))
        pointer = handle!
    }

    deinit { git_config_free(pointer) }

    /// The value of `key` (the last one of a key set more than once), or nil when it is not set.
    func string(_ key: String) throws -> String? {
        var value: UnsafePointer<CChar>?
        let result = git_config_get_string(&value, pointer, key)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result)
        return value.map { String(cString: $0) }
    }

    /// The boolean value of `key` as git reads it (`true`, `yes`, `on`, `1`…), or nil when it
    /// is not set. Throws for a value that is no boolean.
    func bool(_ key: String) throws -> Bool? {
        var value: Int32 = 0
        let result = git_config_get_bool(&value, pointer, key)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result)
        return value != 0
    }

    /// Every value of the multi-valued `key`, in the config's order.
    func strings(_ key: String) throws -> [String] {
        var iterator: OpaquePointer?
        // Without a pattern for the values: no regular expression is matched.
        try check(git_config_multivar_iterator_new(&iterator, pointer, key, nil))
        defer { git_config_iterator_free(iterator) }
        return try Self.drain(iterator).compactMap(\.value)
    }

    /// Every entry whose name passes `include`, in the config's order. Names are as libgit2
    /// gives them: section and variable in lower case, a subsection as written
    /// (`remote.Origin.url`).
    func entries(where include: (String) -> Bool) throws -> [(name: String, value: String)] {
        var iterator: OpaquePointer?
        try check(git_config_iterator_new(&iterator, pointer))
        defer { git_config_iterator_free(iterator) }
        return try Self.drain(iterator).compactMap { entry in
            guard include(entry.name), let value = entry.value else { return nil }
            return (entry.name, value)
        }
    }

    private static func drain(_ iterator: OpaquePointer?) throws -> [(name: String, value: String?)] {
        var result: [(name: String, value: String?)] = []
        var entry: UnsafeMutablePointer<git_config_entry>?
        while true {
            let code = git_config_next(&entry, iterator)
            if code == GIT_ITEROVER.rawValue { return result }
            try check(code)
            if let entry {
                result.append((String(cString: entry.pointee.name), entry.pointee.value.map { String(cString: $0) }))
            }
        }
    }
}

/// git's URL rewriting: `url.<base>.insteadOf <prefix>` replaces a remote URL's `<prefix>` by
/// `<base>`, and `url.<base>.pushInsteadOf` does so for the URL pushed to; the longest prefix
/// wins, the first of equally long ones. What `git_remote_lookup` does, without its leak
/// (see ``ConfigSnapshot``).
struct URLRewrites: Equatable {
    struct Rule: Equatable {
        var base: String
        var prefix: String
    }

    var insteadOf: [Rule] = []
    var pushInsteadOf: [Rule] = []

    init(insteadOf: [Rule] = [], pushInsteadOf: [Rule] = []) {
        self.insteadOf = insteadOf
        self.pushInsteadOf = pushInsteadOf
    }

    /// The rules of `entries` (config names as libgit2 gives them: `url.<base>.insteadof`).
    init(entries: [(name: String, value: String)]) {
        for (name, value) in entries where name.hasPrefix("url.") {
            let rest = name.dropFirst("url.".count)
            if rest.hasSuffix(".pushinsteadof") {
                pushInsteadOf.append(Rule(base: String(rest.dropLast(".pushinsteadof".count)), prefix: value))
            } else if rest.hasSuffix(".insteadof") {
                insteadOf.append(Rule(base: String(rest.dropLast(".insteadof".count)), prefix: value))
            }
        }
    }

    /// `url` rewritten by the rule of `rules` with the longest prefix of it, or nil when none applies.
    static func rewrite(_ url: String, by rules: [Rule]) -> String? {
        var best: Rule?
        var length = 0
        for rule in rules where rule.prefix.utf8.count > length && url.utf8.starts(with: rule.prefix.utf8) {
            best = rule
            length = rule.prefix.utf8.count
        }
        guard let best else { return nil }
        return best.base + String(decoding: Array(url.utf8.dropFirst(length)), as: UTF8.self)
    }

    /// The URL fetched from, for a remote whose `url` is `url`.
    func fetchURL(_ url: String) -> String { Self.rewrite(url, by: insteadOf) ?? url }

    /// The URL pushed to, for a remote whose `url` and `pushurl` are these: its `pushurl`
    /// rewritten by `insteadOf`; else its `url` rewritten by `pushInsteadOf`; else nil (the
    /// fetch URL).
    func pushURL(url: String?, pushURL: String?) -> String? {
        if let pushURL, !pushURL.isEmpty { return Self.rewrite(pushURL, by: insteadOf) ?? pushURL }
        guard let url, !url.isEmpty else { return nil }
        return Self.rewrite(url, by: pushInsteadOf)
    }
}
