import Foundation

/// A merge tool the user has configured for git (`git mergetool`): a command that gets the
/// base, the current version (LOCAL), a conflict version (REMOTE) and the file to write the
/// result to (MERGED), as the environment variables `BASE`, `LOCAL`, `REMOTE` and `MERGED`.
public struct MergeTool: Sendable, Hashable {
    /// The tool's name (`meld`, or a name of the user's own).
    public let name: String
    /// A `/bin/sh` command line; it reads `$BASE`, `$LOCAL`, `$REMOTE` and `$MERGED`.
    public let command: String
    /// Whether the exit status says if the merge succeeded (`mergetool.<name>.trustExitCode`).
    /// Otherwise a result counts as made when the tool changed MERGED, as git decides.
    public let trustExitCode: Bool

    /// A tool given by its command.
    public init(name: String, command: String, trustExitCode: Bool) {
        self.name = name
        self.command = command
        self.trustExitCode = trustExitCode
    }

    /// The merge tools git knows by name without configuration, with git's command lines
    /// (`mergetool.<name>.path` replaces the program).
    static let builtIn: [String: (program: String, arguments: String, trustExitCode: Bool)] = [
        "vimdiff": ("vim", #"-f -d -c '4wincmd w | wincmd J' "$LOCAL" "$BASE" "$REMOTE" "$MERGED""#, false),
        "nvimdiff": ("nvim", #"-d -c '4wincmd w | wincmd J' "$LOCAL" "$BASE" "$REMOTE" "$MERGED""#, false),
        "meld": ("meld", #"--output="$MERGED" "$LOCAL" "$BASE" "$REMOTE""#, false),
        "kdiff3": (
            "kdiff3", #"--auto --L1 "$MERGED (Base)" --L2 "$MERGED (Local)" --L3 "$MERGED (Remote)" -o "$MERGED" "$BASE" "$LOCAL" "$REMOTE""#, true
        ),
        "vscode": ("code", #"--wait --merge "$REMOTE" "$LOCAL" "$BASE" "$MERGED""#, false),
        "code": ("code", #"--wait --merge "$REMOTE" "$LOCAL" "$BASE" "$MERGED""#, false),
    ]

    /// The names git knows without configuration, sorted.
    public static var builtInNames: [String] { builtIn.keys.sorted() }
}

extension Container {
    /// The merge tool named `name`, or without a name git's `merge.tool`, as `git mergetool`
    /// finds it: `mergetool.<name>.cmd` (with `mergetool.<name>.trustExitCode`), else one of
    /// ``MergeTool/builtInNames`` (its program replaced by `mergetool.<name>.path`).
    public func mergeTool(named name: String? = nil) throws -> MergeTool {
        try withRepository { repository in
            guard let name = try name ?? repository.configString("merge.tool"), !name.isEmpty else {
                throw DocverError.noMergeTool(
                    reason:
                        "no merge tool is configured; set one with 'git config merge.tool NAME' (\(MergeTool.builtInNames.joined(separator: ", ")), or your own with mergetool.NAME.cmd)"
                )
            }
            let trust = try repository.configString("mergetool.\(name).trustExitCode").map(Self.isTrue)
            if let command = try repository.configString("mergetool.\(name).cmd") {
                return MergeTool(name: name, command: command, trustExitCode: trust ?? false)
            }
            guard let known = MergeTool.builtIn[name] else {
                throw DocverError.noMergeTool(
                    reason:
                        "unknown merge tool '\(name)': set mergetool.\(name).cmd, or use one git knows (\(MergeTool.builtInNames.joined(separator: ", ")))"
                )
            }
            let program = try repository.configString("mergetool.\(name).path") ?? known.program
            return MergeTool(
                name: name, command: Self.shellQuoted(program) + " " + known.arguments,
                trustExitCode: trust ?? known.trustExitCode)
        }
    }

    /// Runs `tool` on a conflict's versions and returns the merged contents: once per
    /// conflict version, oldest first, each time with the result so far as LOCAL, the
    /// conflict version as REMOTE and their common base as BASE (as ``merge(_:markers:)``
    /// folds them). MERGED starts as git's three-way merge, with conflict markers where the
    /// versions overlap. Throws, and nothing is saved, when the tool fails (a non-zero exit
    /// with a trusted exit status, or MERGED left as it was) or leaves conflict markers.
    /// The tool runs in the container's folder with this process's terminal; this call blocks
    /// until it exits.
    func mergeWithTool(_ conflict: Conflict, tool: MergeTool) throws -> Resolution {
        try withRepository { repository in
            let document = conflict.document
            let (others, base) = try mergePlan(conflict, in: repository)
            guard case var .flat(merged) = try contents(of: conflict.current, in: repository) else {
                throw DocverError.notMergeable(
                    document: document.path, reason: "a merge tool merges files, and this is a package; use --strategy merge or choose a version")
            }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("docver-mergetool-\(UUID().uuidString)")
            try FileSystem.createDirectory(directory.path)
            defer { try? FileSystem.remove(directory.path) }
            let name = document.path.split(separator: "/").last.map(String.init) ?? "document"
            let stem = name.contains(".") ? String(name[..<name.lastIndex(of: ".")!]) : name
            let suffix = name.contains(".") ? String(name[name.lastIndex(of: ".")!...]) : ""
            func file(_ role: String) -> String { directory.appendingPathComponent(role.isEmpty ? name : "\(stem)_\(role)\(suffix)").path }
            for version in others {
                guard case let .flat(theirs) = try contents(of: version, in: repository) else {
                    throw DocverError.notMergeable(
                        document: document.path,
                        reason: "a merge tool merges files, and a version is a package; use --strategy merge or choose a version")
                }
                var baseData = Data()
                if case let .flat(data)? = try base(version) { baseData = data }
                let labels = (base: "base", ours: "\(conflict.current.device.name) (current)", theirs: "\(version.device.name) (\(version.shortID))")
                let start =
                    (try? mergeFlat(
                        path: document.path, type: document.type, base: baseData, ours: merged, theirs: theirs,
                        labels: labels, markers: true, in: repository
                    ).data) ?? merged
                let paths = (base: file("BASE"), local: file("LOCAL"), remote: file("REMOTE"), merged: file(""))
                try AtomicFile.write(baseData, to: paths.base)
                try AtomicFile.write(merged, to: paths.local)
                try AtomicFile.write(theirs, to: paths.remote)
                try AtomicFile.write(start, to: paths.merged)
                let before = FileStat(path: paths.merged).map { ($0.mtimeSeconds, $0.mtimeNanoseconds) }
                let status = try Subprocess.interactiveShell(
                    tool.command, directory: root,
                    environment: [
                        "BASE": paths.base, "LOCAL": paths.local, "REMOTE": paths.remote, "MERGED": paths.merged,
                    ])
                let result = FileSystem.contentsIfReadable(paths.merged)
                let after = FileStat(path: paths.merged).map { ($0.mtimeSeconds, $0.mtimeNanoseconds) }
                if tool.trustExitCode, status != 0 {
                    throw DocverError.mergeFailed(
                        document: document.path, reasons: ["merge tool '\(tool.name)' exited with status \(status); nothing was saved"])
                }
                guard let result else {
                    throw DocverError.mergeFailed(document: document.path, reasons: ["merge tool '\(tool.name)' left no result; nothing was saved"])
                }
                if !tool.trustExitCode, result == start, after.map({ [$0.0, $0.1] }) == before.map({ [$0.0, $0.1] }) {
                    throw DocverError.mergeFailed(
                        document: document.path,
                        reasons: [
                            "merge tool '\(tool.name)' left the result unchanged (exit status \(status)); nothing was saved"
                        ])
                }
                let left = ConflictMarkers.regions(in: result)
                if !left.isEmpty, ConflictMarkers.regions(in: merged).isEmpty, ConflictMarkers.regions(in: theirs).isEmpty {
                    let lines = left.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ", ")
                    throw DocverError.mergeFailed(
                        document: document.path,
                        reasons: [
                            "merge tool '\(tool.name)' left conflict markers (lines \(lines)); nothing was saved"
                        ])
                }
                merged = result
            }
            return .merged(.flat(merged))
        }
    }

    private static func isTrue(_ value: String) -> Bool {
        ["true", "yes", "on", "1"].contains(value.lowercased())
    }

    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// Resolves a conflict with the user's merge tool (``Container/mergeTool(named:)``): the
/// result is saved as a merge of every version, as ``MergeStrategy`` saves its own.
public struct MergeToolStrategy: ResolutionStrategy {
    /// The tool that is run.
    public let tool: MergeTool

    /// A strategy that runs `tool`.
    public init(tool: MergeTool) { self.tool = tool }
    /// Recorded as `merge`: the result is made from every version, as a merge is.
    public var name: String { "merge" }

    /// Runs the tool (off the cooperative pool: it takes as long as the user does).
    public func resolve(_ conflict: Conflict, in container: Container) async throws -> Resolution {
        let tool = tool
        return try await offCooperativePool { try container.mergeWithTool(conflict, tool: tool) }
    }
}
