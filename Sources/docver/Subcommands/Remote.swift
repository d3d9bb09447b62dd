import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct RemoteCommand: ContainerCommand {
        static let configuration = CommandConfiguration(
            commandName: "remote", abstract: "Manage the git remotes devices sync through.",
            discussion: "Without a subcommand: list the remotes.",
            // No default subcommand: `remote` lists by itself, so an unknown word
            // (`remote bogus`) is reported against `remote`, not against `remote list`.
            subcommands: [Add.self, Remove.self, Rename.self, SetURL.self, OnDemand.self, ListRemotes.self])

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run(in container: Container) async throws {
            try ListRemotes.list(container, json: output.json)
        }

        struct Add: ContainerCommand {
            static let configuration = CommandConfiguration(
                abstract: "Add a remote: a path, file://, ssh://, git://, http:// or https:// URL, or user@host:path.",
                discussion: """
                    A local path or file:// URL must be a bare git repository (--create makes an empty one there);
                    a network URL is stored without contacting it: the next sync reaches it.
                    """)
            @OptionGroup var global: GlobalOptions
            @OptionGroup var output: OutputOptions
            @Argument(help: "The remote's name.") var name: String
            @Argument(help: "The remote's URL.", completion: .directory) var url: String
            @Flag(help: "Create an empty bare repository at a local path that has none.") var create = false
            @Flag(
                name: .customLong("on-demand"),
                help: "Fetch from it only the newest versions' contents; older ones come from it when a command needs them (needs git).")
            var onDemand = false

            func run(in container: Container) async throws {
                let location = RemoteLocation(url, relativeTo: global.url)
                let created = try RemoteCommand.advising("add", name, create: create, container, global) {
                    try container.addRemote(name, location: location, creatingRepository: create, onDemand: onDemand)
                }
                RemoteCommand.warnIfInClearText(name, location)
                if output.json { return try Terminal.printJSON(RemoteChangeOutput(name: name, location: location, created: created)) }
                RemoteCommand.report("added remote '\(name)' (\(location.redactedURL))", location, created: created)
            }
        }

        struct Remove: ContainerCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove", abstract: "Remove a remote and its fetched branches (saves not yet integrated are kept).",
                aliases: ["rm"])
            @OptionGroup var global: GlobalOptions
            @Argument(help: "The remote's name.", completion: .custom(Completions.remotes)) var name: String
            @OptionGroup var output: OutputOptions

            func run(in container: Container) async throws {
                let kept = try container.removeRemote(name)
                if output.json { return try Terminal.printJSON(RemovedRemoteOutput(name: name, kept: kept)) }
                print("removed remote '\(name)'")
                if !kept.isEmpty {
                    let branches = kept.count == 1 ? "1 fetched branch" : "\(kept.count) fetched branches"
                    print("kept \(branches) not yet integrated; the next sync or integrate brings their saves in")
                }
            }
        }

        struct Rename: ContainerCommand {
            static let configuration = CommandConfiguration(abstract: "Rename a remote (its fetched branches move with it).")
            @OptionGroup var global: GlobalOptions
            @Argument(help: "The remote's name.", completion: .custom(Completions.remotes)) var name: String
            @Argument(help: "Its new name.") var newName: String
            @OptionGroup var output: OutputOptions

            func run(in container: Container) async throws {
                try container.renameRemote(name, to: newName)
                if output.json { return try Terminal.printJSON(RenamedRemoteOutput(name: newName, previousName: name)) }
                print("renamed remote '\(name)' to '\(newName)'")
            }
        }

        struct OnDemand: ContainerCommand {
            static let configuration = CommandConfiguration(
                commandName: "on-demand",
                abstract: "Keep documents on demand from an existing remote (as 'remote add --on-demand'; needs git).",
                discussion: """
                    Later syncs fetch from the remote only the newest versions' contents; older ones come \
                    from it when a command needs them, and 'docver evict' can free what this device has. \
                    What is here stays until evicted.
                    """)
            @OptionGroup var global: GlobalOptions
            @Argument(help: "The remote's name.", completion: .custom(Completions.remotes)) var name: String

            func run(in container: Container) async throws {
                if try container.keepDocumentsOnDemand(from: name) {
                    print(
                        "remote '\(name)' now keeps documents on demand: older versions' contents come from it when needed, and 'docver evict' frees what is here"
                    )
                } else {
                    print("remote '\(name)' already keeps documents on demand")
                }
            }
        }

        struct SetURL: ContainerCommand {
            static let configuration = CommandConfiguration(
                commandName: "set-url", abstract: "Point a remote at another URL (checked as for add).")
            @OptionGroup var global: GlobalOptions
            @Argument(help: "The remote's name.", completion: .custom(Completions.remotes)) var name: String
            @Argument(help: "The new URL.", completion: .directory) var url: String
            @Flag(help: "Create an empty bare repository at a local path that has none.") var create = false
            @OptionGroup var output: OutputOptions

            func run(in container: Container) async throws {
                let location = RemoteLocation(url, relativeTo: global.url)
                let created = try RemoteCommand.advising("set-url", name, create: create, container, global) {
                    try container.setRemoteURL(name, location: location, creatingRepository: create)
                }
                RemoteCommand.warnIfInClearText(name, location)
                if output.json { return try Terminal.printJSON(RemoteChangeOutput(name: name, location: location, created: created)) }
                RemoteCommand.report("remote '\(name)' now points at \(location.redactedURL)", location, created: created)
            }
        }

        struct ListRemotes: ContainerCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "List remotes.")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var output: OutputOptions

            func run(in container: Container) async throws {
                try Self.list(container, json: output.json)
            }

            static func list(_ container: Container, json: Bool) throws {
                let remotes = try container.remotes()
                // A password written into a URL is shown as `***`, as everywhere else.
                if json { return try Terminal.printJSON(remotes.map { RemoteOutput(name: $0.name, url: $0.redactedURL) }) }
                for remote in remotes { print("\(remote.name)\t\(remote.redactedURL)") }
            }
        }

        /// Runs add or set-url, turning a refused location into advice that names this remote
        /// and a path that would do: `docver remote add inside ../inside.git --create`.
        static func advising(
            _ command: String, _ name: String, create: Bool, _ container: Container, _ global: GlobalOptions,
            _ body: () throws -> Bool
        ) throws -> Bool {
            do {
                return try body()
            } catch let error as DocverError {
                let again = "docver remote \(command) \(Terminal.shellWord(name))"
                let hint: String
                switch error {
                case let .remoteInsideContainer(path):
                    let beside = container.root.deletingLastPathComponent().appendingPathComponent((path as NSString).lastPathComponent)
                    hint =
                        "put it outside the container, next to it for example: \(again) \(Terminal.shellWord(typed(beside, global)))\(create ? " --create" : "")"
                case let .repositoryHasWorkingTree(path):
                    let bare = Advice.bareSibling(of: path)
                    hint =
                        "sync through a bare repository: git clone --bare \(Terminal.shellWord(path)) \(Terminal.shellWord(bare)) && \(again) \(Terminal.shellWord(bare))"
                case let .fileNotRepository(path):
                    let file = path as NSString
                    let beside = (file.deletingLastPathComponent as NSString)
                        .appendingPathComponent((file.lastPathComponent as NSString).deletingPathExtension + ".git")
                    hint = "a remote is a bare git repository; to make an empty one beside the file: \(again) \(Terminal.shellWord(beside)) --create"
                default:
                    throw error
                }
                throw HintedFailure(error.description, hint: hint, kind: error.code)
            }
        }

        /// A path as short as it can be typed from the directory docver runs in: `../x.git`
        /// beside that directory, else absolute.
        private static func typed(_ url: URL, _ global: GlobalOptions) -> String {
            let here = global.url.standardizedFileURL.resolvingSymlinksInPath().path
            let parent = url.deletingLastPathComponent().standardizedFileURL.resolvingSymlinksInPath().path
            return parent == (here as NSString).deletingLastPathComponent ? "../" + url.lastPathComponent : url.path
        }

        /// A password in an `http://` URL crosses the network as it is: say so, once, when the
        /// URL is given.
        static func warnIfInClearText(_ name: String, _ location: RemoteLocation) {
            guard location.sendsPasswordInClearText else { return }
            Terminal.warning("the password in the URL of remote '\(name)' travels in clear text over http://; use https:// or ssh://")
        }

        /// What add and set-url did: a created repository, the URL, and for a network URL
        /// that it was not contacted.
        static func report(_ what: String, _ location: RemoteLocation, created: Bool) {
            if created { print("created an empty bare repository at \(location.url)") }
            switch location {
            case .local: print(what)
            case .network: print("\(what); not contacted: the next sync reaches it")
            }
        }
    }
}

/// `remote add --json` and `remote set-url --json`.
struct RemoteChangeOutput: Encodable {
    let name: String
    let url: String
    /// `local` (checked) or `network` (stored without contacting it).
    let kind: String
    let created: Bool

    init(name: String, location: RemoteLocation, created: Bool) {
        self.name = name
        url = location.redactedURL
        if case .local = location { kind = "local" } else { kind = "network" }
        self.created = created
    }
}

/// `remote list --json`: one remote, its URL with any password shown as `***`.
struct RemoteOutput: Encodable {
    let name: String
    let url: String
}

/// `remote remove --json`.
struct RemovedRemoteOutput: Encodable {
    let name: String
    let kept: [String]
}

/// `remote rename --json`.
struct RenamedRemoteOutput: Encodable {
    let name: String
    let previousName: String
}
