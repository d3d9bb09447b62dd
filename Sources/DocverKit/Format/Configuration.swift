import Foundation

// docs/FORMAT.md, "Configuration": what docver writes into `.git/config` and `.git/hooks`.

/// docver's keys in the repository's git config.
enum ConfigKey {
    static let device = "docver.device"
    static let deviceName = "docver.deviceName"
    static let formatVersion = "docver.formatVersion"
    /// The agent's settings (docs/AGENT.md): seconds of quiet before an autosave, seconds
    /// between polls of the remotes, the longest wait between retries while offline, extra
    /// ignore patterns (multi-valued) and whether the default ignore patterns apply.
    static let agentQuietDelay = "docver.agent.quietDelay"
    static let agentPollInterval = "docver.agent.pollInterval"
    static let agentMaximumBackoff = "docver.agent.maxBackoff"
    static let agentIgnore = "docver.agent.ignore"
    static let agentDefaultIgnores = "docver.agent.defaultIgnores"
    /// How remotes are reached (docs/FORMAT.md, "Configuration"; docs/SECURITY.md): seconds a
    /// connection may take to open, seconds a transfer may go without progress, an ssh private
    /// key, a known_hosts file, and a PEM file of HTTPS certificates trusted as they are.
    static let networkConnectTimeout = "docver.network.connectTimeout"
    static let networkStallTimeout = "docver.network.stallTimeout"
    static let networkSSHKey = "docver.network.sshKey"
    static let networkKnownHosts = "docver.network.knownHosts"
    static let networkTrustedCertificates = "docver.network.trustedCertificates"
    /// Signed saves (docs/SECURITY.md): the SSH key this device signs its commits with, and
    /// the allowed-signers file (git's `gpg.ssh.allowedSignersFile` format, principals are
    /// device ids) that, when set, decides whose decisions count.
    static let signingKey = "docver.signingKey"
    static let allowedSigners = "docver.allowedSigners"
    /// git's own threshold of loose objects above which `git gc --auto` packs them (default
    /// 6,700; 0 turns automatic packing off). docver honours it as `git commit` does.
    static let gitAutoPackThreshold = "gc.auto"
    static let gitAutoPackDefault = 6_700
    /// git's number of packs above which `git gc --auto` puts them into one (default 50; 0:
    /// no limit).
    static let gitAutoPackLimit = "gc.autoPackLimit"
    static let gitAutoPackLimitDefault = 50
    /// The largest file, in bytes (a `k`, `m` or `g` suffix multiplies by 1024 as in git),
    /// that this device accepts from a remote (docs/SECURITY.md, "Size ceiling"); 0: no limit.
    static let maximumDocumentSize = "docver.maxDocumentSize"
    /// Its value when unset: 512 MiB.
    static let defaultMaximumDocumentSize: Int64 = 512 << 20
    /// The largest version, in bytes (suffixes as above), a content merge (`resolve --strategy
    /// merge` or `--tool`) reads: a merge holds every version in memory; 0: no limit.
    static let maximumMergeSize = "docver.maxMergeSize"
    /// Its value when unset: 64 MiB.
    static let defaultMaximumMergeSize: Int64 = 64 << 20
    /// git's `core.bigFileThreshold`: `diff` takes flat files at least this big (suffixes as
    /// above) for binary and compares them by id, reading neither side; 0: no such files.
    static let bigFileThreshold = "core.bigFileThreshold"
    /// Its value when unset, as git's: 512 MiB.
    static let defaultBigFileThreshold: Int64 = 512 << 20

    /// A size in bytes set with `key` (`k`, `m` or `g` multiply by 1024 as in git), or
    /// `defaultValue` when unset; nil when it is 0 (no limit).
    static func byteSize(_ key: String, default defaultValue: Int64, in repository: Repository) throws -> Int64? {
        guard let text = try repository.configString(key)?.trimmingCharacters(in: .whitespaces) else { return defaultValue }
        let multipliers: [Character: Int64] = ["k": 1 << 10, "m": 1 << 20, "g": 1 << 30]
        var digits = Substring(text), multiplier: Int64 = 1
        if let last = text.last?.lowercased().first, let factor = multipliers[last] {
            digits = digits.dropLast()
            multiplier = factor
        }
        guard let number = Int64(digits), number >= 0, number <= Int64.max / multiplier else {
            throw DocverError.invalidValue("'\(text)' for \(key): give bytes, with k, m or g for KiB, MiB or GiB, or 0 for no limit")
        }
        return number == 0 ? nil : number * multiplier
    }
    /// Like git's `fetch.unpackLimit`: a save of fewer documents writes each new file as a
    /// loose object; a save of this many or more writes the new files up to 1 MiB into one
    /// pack (docs/FORMAT.md, "Objects").
    static let saveUnpackLimit = "docver.saveUnpackLimit"
    /// Its value when unset (git's `fetch.unpackLimit` default).
    static let defaultSaveUnpackLimit = 100
    /// An integer setting as git reads it (``gitInteger(_:)``), or `defaultValue` when it is
    /// unset, unreadable or not such an integer (as git's own gc settings are taken: a bad
    /// value never stops a write).
    static func integer(_ key: String, default defaultValue: Int, in repository: Repository) -> Int {
        (try? repository.configString(key)).flatMap { $0.flatMap(gitInteger) } ?? defaultValue
    }

    /// An integer as git config writes it: decimal with an optional `k`, `m` or `g` suffix;
    /// nil when it is not one, or does not fit.
    static func gitInteger(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let multipliers: [Character: Int] = ["k": 1 << 10, "m": 1 << 20, "g": 1 << 30]
        if let last = trimmed.last, let multiplier = multipliers[last] {
            guard let number = Int(trimmed.dropLast()) else { return nil }
            let (product, overflow) = number.multipliedReportingOverflow(by: multiplier)
            return overflow ? nil : product
        }
        return Int(trimmed)
    }

    /// The format version this build writes.
    static let currentFormatVersion = "1"
}

/// The `prepare-commit-msg` hook that makes a plain `git commit` on the checkout carry the
/// device trailers, so docver reads it as a save of this device.
enum CommitHook {
    static let name = "prepare-commit-msg"
    /// The line that tells docver's hook (of any version) from one the user wrote.
    static let marker = "# Installed by docver: marks plain git commits made here as saves of this device."

    static let script = """
        #!/bin/sh
        \(marker)
        case "$2" in merge|squash) exit 0 ;; esac
        id=$(git config \(ConfigKey.device)) || exit 0
        name=$(git config \(ConfigKey.deviceName) || echo "$id")
        grep -q '^\(Trailer.device):' "$1" && exit 0
        git interpret-trailers --in-place --if-exists add --trailer "\(Trailer.device): $id" --trailer "\(Trailer.deviceName): $name" --trailer "\(Trailer.plainCommit): 1" "$1"

        """
}
