import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The CLI's shortcut to a running agent for `docver status` and `docver conflicts`: the
/// container is found, and the agent asked, without libgit2 (whose initialisation alone,
/// decoding the CA bundle, costs more than the agent's answer).
///
/// The normal path reads the device from git's config and the branch's tip with libgit2, then
/// asks the agent for its answer under that tip. The shortcut reads the tip from git's files
/// instead (``RefFiles``), the device from `HEAD` (`ref: refs/heads/docver/<device>`), and
/// sends both with a signature of git's config files; the agent answers only when it is that
/// device, its config files are the ones it read the device from (so its device id and name
/// are what libgit2 would read now), and its answer is current for that tip. Anything in
/// doubt gives nil: the caller then takes the normal path, which gives the same output.
public enum AgentShortcut {
    /// The status as ``Agent/cachedStatus(of:timeout:)`` would serve it to a ``Container``
    /// opened at `directory` (or the nearest container above it), with that container's
    /// device; nil when in doubt.
    public static func status(from directory: String, timeout milliseconds: Int = 20) -> (device: Device, status: ContainerStatus)? {
        guard let place = Place(from: directory) else { return nil }
        let files = MetadataFiles(gitDirectory: place.gitDirectory)
        // As `cachedStatus`: a checkout cut short leaves the working tree to be repaired first.
        guard FileStat(path: files.intent) == nil, FileStat(path: files.checkoutPending) == nil,
            let answer = place.ask("shortcut-status", limit: nil, timeout: milliseconds),
            let served = try? JSONDecoder().decode(ShortcutStatus.self, from: Data(answer.utf8)),
            served.device == place.device, let status = served.status.status,
            Device.isValidID(served.device)
        else { return nil }
        return (Device(unchecked: served.device, name: served.deviceName), status)
    }

    /// Every conflict as ``Container/conflicts(_:)`` would list it for a ``Container``
    /// opened at `directory` (or the nearest container above it); nil when in doubt.
    public static func conflicts(from directory: String, timeout milliseconds: Int = 20) -> [Conflict]? {
        guard let place = Place(from: directory),
            let answer = place.ask("shortcut-conflicts", limit: ListingText.limit, timeout: milliseconds)
        else { return nil }
        return ListingText.decodeConflicts(Data(answer.utf8))
    }

    /// The shortcut status's answer: the served status with the device it belongs to.
    struct ShortcutStatus: Codable {
        var device: String
        var deviceName: String
        var status: ServedStatus
    }

    /// Where the container is and what its files say, found without libgit2.
    struct Place {
        let gitDirectory: String
        let device: String
        /// This device's branch's tip, or nil before its first save.
        let head: String?
        let signature: String

        /// The container at `directory` or above it, found as libgit2's search finds it
        /// (each folder up to the root, not across file systems); nil for anything else than
        /// a plain `.git` folder whose `HEAD` is on a docver branch.
        init?(from directory: String) {
            let environment = ProcessInfo.processInfo.environment
            guard !environment.keys.contains(where: { $0.hasPrefix("GIT_CONFIG") }),
                var folder = FileSystem.realPath(directory), let start = FileStat(path: folder), start.isDirectory
            else { return nil }
            var found: String?
            while found == nil {
                guard !Self.isGitDirectory(folder) else { return nil }  // libgit2 opens that one (bare)
                let candidate = folder == "/" ? "/.git" : folder + "/.git"
                if let stat = FileStat(path: candidate) {
                    // A `.git` file (a linked worktree, a submodule): the normal path knows those.
                    guard stat.isDirectory, Self.isGitDirectory(candidate) else { return nil }
                    found = candidate
                    break
                }
                guard folder != "/" else { return nil }
                let parent = (folder as NSString).deletingLastPathComponent
                guard let above = FileStat(path: parent), above.device == start.device else { return nil }
                folder = parent
            }
            guard let gitDirectory = found,
                case let .symbolic(branch) = RefFiles.value(of: "HEAD", gitDirectory: gitDirectory),
                branch.hasPrefix("refs/heads/docver/")
            else { return nil }
            let device = String(branch.dropFirst("refs/heads/docver/".count))
            guard Device.isValidID(device), let value = RefFiles.value(of: branch, gitDirectory: gitDirectory),
                let signature = AgentShortcut.configSignature(gitDirectory: gitDirectory, environment: environment)
            else { return nil }
            switch value {
            case let .commit(id): head = id
            case .absent: head = nil
            case .symbolic: return nil
            }
            self.gitDirectory = gitDirectory
            self.device = device
            self.signature = signature
        }

        /// What libgit2 takes for a git directory: `HEAD`, `objects` and `refs` inside.
        static func isGitDirectory(_ path: String) -> Bool {
            FileStat(path: path + "/HEAD") != nil && FileStat(path: path + "/objects")?.isDirectory == true
                && FileStat(path: path + "/refs")?.isDirectory == true
        }

        /// Sends `<request> <device> <head> <signature>`; the answer, or nil when the agent has
        /// none (no agent, a silent one, or one that cannot vouch for it).
        func ask(_ request: String, limit: Int?, timeout milliseconds: Int) -> String? {
            let socket = MetadataFiles(gitDirectory: gitDirectory).agentSocket
            guard FileStat(path: socket) != nil,
                let answer = SocketClient.request(
                    "\(request) \(device) \(head ?? "none") \(signature)", path: socket,
                    timeout: milliseconds, limit: limit, rememberingSilence: true),
                !answer.hasPrefix(#"{"unavailable""#)
            else { return nil }
            return answer
        }
    }

    /// A fingerprint of the git config files libgit2 reads for the container at
    /// `gitDirectory` (the repository's, the global and XDG ones from `HOME` and
    /// `XDG_CONFIG_HOME`, the system's): each one's inode, size and modification time, or its
    /// absence. git replaces a config file on every change (a new inode), so a device id or
    /// name changed since the agent read it gives another fingerprint. Nil when one of them
    /// exists but cannot be examined.
    static func configSignature(gitDirectory: String, environment: [String: String]) -> String? {
        var text = ""
        for path in configFiles(gitDirectory: gitDirectory, environment: environment) {
            // stat, not lstat: a config file is often a symbolic link (dotfiles), and what
            // counts is the file it leads to.
            var info = stat()
            if stat(path, &info) == 0 {
                text += "\(path)\u{0}\(info.st_dev):\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)\u{0}"
            } else if errno == ENOENT || errno == ENOTDIR {
                text += "\(path)\u{0}-\u{0}"
            } else {
                return nil
            }
        }
        // FNV-1a, 64 bits: a change detector (the agent compares it with its own), no secret.
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16)
    }

    static func configFiles(gitDirectory: String, environment: [String: String]) -> [String] {
        var files = [gitDirectory + "/config"]
        if let home = environment["HOME"], !home.isEmpty {
            files.append(home + "/.gitconfig")
        }
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty {
            files.append(xdg + "/git/config")
        } else if let home = environment["HOME"], !home.isEmpty {
            files.append(home + "/.config/git/config")
        }
        files.append("/etc/gitconfig")
        return files
    }

    /// The signature the agent of `container` vouches for: the config files' fingerprint,
    /// taken before the device is read again from them and found to be the container's own;
    /// nil (the agent never answers the shortcut) when they include other files (an
    /// `include` or `includeIf` section, whose files the fingerprint does not cover), when
    /// the working tree is not the git directory's parent, or when anything is in doubt.
    static func vouchedSignature(for container: Container) -> String? {
        let environment = ProcessInfo.processInfo.environment
        guard !environment.keys.contains(where: { $0.hasPrefix("GIT_CONFIG") }),
            let signature = configSignature(gitDirectory: container.gitDirectory, environment: environment)
        else { return nil }
        for path in configFiles(gitDirectory: container.gitDirectory, environment: environment) {
            guard let data = FileSystem.contentsIfReadable(path) else {
                if FileStat(path: path) == nil { continue }
                return nil
            }
            guard let text = String(data: data, encoding: .utf8), !text.lowercased().contains("include") else { return nil }
        }
        guard let root = FileSystem.realPath(container.root.path), let gitDirectory = FileSystem.realPath(container.gitDirectory),
            gitDirectory == (root == "/" ? "/.git" : root + "/.git"),
            let (id, name) = try? container.withRepository({ repository in
                (try repository.configString(ConfigKey.device), (try? repository.configString(ConfigKey.deviceName)) ?? nil)
            }),
            id == container.device.id, (name ?? id) == container.device.name
        else { return nil }
        return signature
    }
}
