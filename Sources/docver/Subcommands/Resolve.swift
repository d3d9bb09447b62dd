import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Resolve: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resolve conflicts with a strategy: latest-date, merge, choose or tool.",
            discussion: """
                latest-date  the version with the latest modification date becomes current; as in sync, an edit
                             beats a deletion, however new the deletion.
                merge        three-way merge against the common base (text, JSON, packages, .gitattributes drivers).
                choose       --keep ID wins; without it, on a terminal, pick interactively.
                tool         your merge tool, as 'git mergetool' runs it: --tool NAME, or git's merge.tool; it gets
                             $BASE, $LOCAL (the current version), $REMOTE (a conflict version) and $MERGED.
                Without --strategy: on a terminal, pick interactively (choose); elsewhere, --strategy is required.
                Other versions are marked resolved and removed (kept with --keep-versions).
                With --markers, overlapping edits are saved with conflict markers and the conflict stays open:
                edit the markers away, then 'docver save DOC' and 'docver mark-resolved DOC'.
                """)

        enum StrategyName: String, ExpressibleByArgument, CaseIterable {
            case latestDate = "latest-date"
            case merge, choose, tool
        }

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Documents to resolve.", completion: .custom(Completions.documents)) var documents: [String] = []
        @Flag(help: "Resolve every document in conflict.") var all = false
        @Option(help: "latest-date, merge, choose or tool (default on a terminal: choose interactively).") var strategy: StrategyName?
        @Option(
            help: ArgumentHelp(
                "The merge tool to run (implies --strategy tool): a name git knows (vimdiff, meld, kdiff3, code…) or one set with mergetool.NAME.cmd. '--tool' alone uses git's merge.tool.",
                valueName: "name"))
        var tool: String?
        /// `--tool` with no name after it (git's merge.tool), rewritten to this hidden flag before
        /// parsing (``rewritingOptionalValues(_:)``): an option cannot take a value only sometimes.
        @Flag(name: .customLong("tool-from-config"), help: .hidden) var toolFromConfig = false
        /// Whether a merge tool was asked for, by name or not.
        var wantsTool: Bool { tool != nil || toolFromConfig }
        @Option(
            name: .customLong("keep"), help: ArgumentHelp("With --strategy choose: the version to keep (implies choose).", valueName: "id"),
            completion: .custom(Completions.versions))
        var keep: String?
        /// `--version ID`, the option's first spelling, still accepted: rewritten to this name
        /// before parsing (``rewritingOptionalValues(_:)``), so that a bare `--version` stays
        /// the program's, which the help lists. Hidden; kept apart from `keep` so that giving
        /// both is refused.
        @Option(name: .customLong(Self.oldKeepSpelling), help: .hidden) var keepByOldName: String?
        static let oldKeepSpelling = "version-as-keep"
        /// The version to keep, under either spelling.
        var version: String? { keep ?? keepByOldName }
        @Flag(help: "Mark the other versions resolved but keep them readable.") var keepVersions = false
        @Flag(help: "Print what would happen and change nothing.") var dryRun = false
        @Flag(help: "With --strategy merge: save overlapping text edits with conflict markers and leave the conflict open.")
        var markers = false

        func validate() throws {
            if all == !documents.isEmpty { throw ValidationError("name documents or pass --all (not both)") }
            if keep != nil && keepByOldName != nil { throw ValidationError("--keep and --version name the same thing; pass one") }
            if version != nil && (strategy ?? .choose) != .choose { throw ValidationError("--keep goes with --strategy choose") }
            if wantsTool && (strategy ?? .tool) != .tool { throw ValidationError("--tool goes with --strategy tool") }
            if wantsTool && version != nil { throw ValidationError("--tool and --keep are two strategies; pass one") }
            if chosenStrategy == .tool && dryRun { throw ValidationError("a merge tool is interactive and cannot be dry-run; leave out --dry-run") }
            if markers && strategy != .merge { throw ValidationError("--markers goes with --strategy merge") }
            if strategy == nil && version == nil && !wantsTool && !Self.onTerminal {
                throw ValidationError(
                    """
                    name a strategy: --strategy latest-date (the latest version becomes current), \
                    --strategy merge (a three-way merge), or --strategy choose --keep ID (that version becomes current); \
                    on a terminal, without --strategy, docver asks which version to keep
                    """)
            }
        }

        typealias JSON = ResolveOutput

        func run(in container: Container) async throws {
            let targets = all ? try container.conflicts().map(\.document) : try documents.map(DocumentArguments(container, global).path)
            if targets.isEmpty && all {
                if output.json { try Terminal.printJSON([JSON]()) } else { print("no conflicts") }
                return
            }
            var results: [JSON] = []
            var failed = false
            for document in targets {
                do {
                    let outcome = try await resolveOne(document, in: container)
                    // A merge tool's resolution is recorded as a merge; the JSON names the tool strategy asked for.
                    results.append(JSON(outcome, of: document, strategy: chosenStrategy == .tool ? "tool" : nil, dryRun: dryRun))
                    if !output.json { print(outcome.summary) }
                    if case .mergedWithMarkers = outcome.resolution {
                        failed = true
                        if !output.json && outcome.save != nil { Terminal.hint(Advice.afterMarkers(in: document)) }
                    }
                } catch let error as DocverError {
                    failed = true
                    results.append(JSON(failure: error, of: document, strategy: chosenStrategy.rawValue, dryRun: dryRun))
                    if !output.json || targets.count == 1 { Terminal.error(error) }
                }
            }
            if output.json { try Terminal.printJSON(results) }
            if failed { throw ExitCode.failure }
        }

        /// The two options of `resolve` whose value is optional, rewritten before parsing (an
        /// option cannot be declared to take a value only sometimes):
        /// - `--version ID` (and `--version=ID`), the first spelling of `--keep`, becomes the
        ///   hidden `--version-as-keep ID`; a bare `--version` (no value follows, or an option
        ///   does) is left alone: it prints the program's version, as the help says;
        /// - a bare `--tool` (last, or before an option) becomes the hidden `--tool-from-config`
        ///   (git's `merge.tool`); `--tool NAME` stays.
        static func rewritingOptionalValues(_ arguments: [String]) -> [String] {
            var index = 0
            // Up to the subcommand: global options (`-C <path>` and `--color <when>` take a value).
            while index < arguments.count, arguments[index].hasPrefix("-") {
                if ["-C", "--color"].contains(arguments[index]) { index += 1 }
                index += 1
            }
            guard index < arguments.count, arguments[index] == "resolve" else { return arguments }
            var result = Array(arguments[...index])
            index += 1
            while index < arguments.count {
                let argument = arguments[index]
                if argument == "--" { result += arguments[index...]; break }
                // `--tool` at the end or before another option: git's merge.tool.
                if argument == "--tool", index + 1 == arguments.count || arguments[index + 1].hasPrefix("-") {
                    result.append("--tool-from-config")
                    index += 1
                    continue
                }
                if argument == "--version", index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") {
                    result += ["--" + oldKeepSpelling, arguments[index + 1]]
                    index += 2
                    continue
                }
                result.append(argument.hasPrefix("--version=") ? "--\(oldKeepSpelling)=" + argument.dropFirst("--version=".count) : argument)
                index += 1
            }
            return result
        }

        /// Whether the chooser can ask: standard input and output are a terminal.
        static var onTerminal: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

        /// The strategy named, or tool (with --tool), or choose (with --keep, or interactively on a terminal).
        var chosenStrategy: StrategyName { strategy ?? (wantsTool ? .tool : .choose) }

        private func resolveOne(_ document: DocumentPath, in container: Container) async throws -> ResolutionOutcome {
            switch chosenStrategy {
            case .latestDate:
                return try await container.resolve(document, using: LatestDateStrategy(), keepVersions: keepVersions, dryRun: dryRun)
            case .merge:
                return try await container.resolve(document, using: MergeStrategy(markers: markers), keepVersions: keepVersions, dryRun: dryRun)
            case .tool:
                let mergeTool = try container.mergeTool(named: tool)
                return try await container.resolve(document, using: MergeToolStrategy(tool: mergeTool), keepVersions: keepVersions, dryRun: false)
            case .choose:
                if let version {
                    // A version id goes through as given; @, @-N and @{DATE} are looked up first.
                    let id =
                        try VersionSpecifier(version) == VersionSpecifier.id(version.lowercased())
                        ? version : DocumentArguments(container, global).find(VersionSpecifier(version), of: document).id
                    return try await container.resolve(
                        document, using: UserChoiceStrategy.version(id),
                        keepVersions: keepVersions, dryRun: dryRun)
                }
                guard Self.onTerminal else {
                    let conflict = try container.conflicts(document).first
                    let listing = ([conflict?.current].compactMap { $0 } + (conflict?.conflicts ?? [])).map {
                        "\($0.shortID) (\($0.device.name), \(Terminal.date($0.modified)))"
                    }
                    guard conflict != nil else { throw DocverError.notInConflict(document.path) }
                    throw DocverError.choiceRequired(document: document.path, versions: listing)
                }
                let strategy = UserChoiceStrategy { conflict in try InteractiveChooser(container: container).choose(conflict) }
                return try await container.resolve(document, using: strategy, keepVersions: keepVersions, dryRun: dryRun)
            }
        }
    }
}

/// The terminal chooser: lists the versions with device, age, size and a preview, shows diffs
/// on request, and returns the version the user picks (nil when they quit).
struct InteractiveChooser: Sendable {
    let container: Container

    func choose(_ conflict: Conflict) throws -> DocumentVersion? {
        let versions = [conflict.current] + conflict.conflicts
        print("\(conflict.document) is in conflict. Versions:")
        for (index, version) in versions.enumerated() {
            let role = index == 0 ? "current " : "conflict"
            print(
                "  \(index + 1)) \(role)  \(version.device.name)  \(Terminal.relative(version.modified)) (\(Terminal.absoluteDate(version.modified)))  \(Terminal.size(of: version))  \(try preview(version))"
            )
        }
        if let base = conflict.base { print("  b) base      \(base.device.name)  \(Terminal.relative(base.modified))  \(try preview(base))") }
        print("Type a number to keep that version, 'd N M' to diff two versions ('b' is the base), 'q' to cancel.")
        while true {
            print("choice> ", terminator: "")
            fflush(nil)  // flushes every stream; naming `stdout` is not concurrency-safe in Swift 6
            guard let line = readLine()?.trimmingCharacters(in: .whitespaces) else { return nil }
            let words = line.split(separator: " ").map(String.init)
            func pick(_ word: String) -> DocumentVersion? {
                if word == "b" { return conflict.base }
                guard let number = Int(word), versions.indices.contains(number - 1) else { return nil }
                return versions[number - 1]
            }
            if words.first == "q" { return nil }
            if words.count == 1, words[0] != "b", let version = pick(words[0]) { return version }
            if words.count == 3, words[0] == "d", let a = pick(words[1]), let b = pick(words[2]) {
                print(
                    PatchText.render(
                        [try container.diff(conflict.document, from: .version(a), to: .version(b))], labelled: true, colored: Terminal.style.enabled),
                    terminator: "")
                continue
            }
            let numbers = versions.indices.map { String($0 + 1) }
            let listed = numbers.count == 2 ? numbers.joined(separator: " or ") : numbers.dropLast().joined(separator: ", ") + " or " + numbers.last!
            let among = (numbers + (conflict.base == nil ? [] : ["b"]))
            let diffable = among.dropLast().joined(separator: ", ") + " and " + among.last!
            print("not understood: '\(line)'; valid: \(listed) (keep that version), 'd N M' with N and M among \(diffable) (diff), 'q' (cancel)")
        }
    }

    private func preview(_ version: DocumentVersion) throws -> String {
        switch try container.contents(of: version) {
        case let .flat(data):
            guard !data.contains(0) else { return "(binary)" }
            let first = String(decoding: data.prefix(200), as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            return "\"\(first.prefix(40))\""
        case let .package(package):
            return "\(package.files.count) components: " + package.files.keys.sorted().prefix(3).joined(separator: ", ")
        case .deleted:
            return "(deleted)"
        }
    }
}
