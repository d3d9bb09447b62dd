import ArgumentParser
import DocverKit

extension Docver {
    struct RemoteCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remote", abstract: "Manage the git remotes devices sync through.",
            subcommands: [Add.self, ListRemotes.self], defaultSubcommand: ListRemotes.self)

        struct Add: ContainerCommand {
            static let configuration = CommandConfiguration(abstract: "Add a remote: a path, file://, git://, ssh:// or https:// URL.")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var output: OutputOptions
            @Argument(help: "The remote's name.") var name: String
            @Argument(help: "The remote's URL.") var url: String

            func run(in container: Container) async throws {
                try container.addRemote(name, url: global.remoteURL(url))
                if output.json { return try Terminal.printJSON(RemoteOutput(name: name, url: global.remoteURL(url))) }
                print("added remote '\(name)' (\(global.remoteURL(url)))")
            }
        }

        struct ListRemotes: ContainerCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "List remotes.")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var output: OutputOptions

            func run(in container: Container) async throws {
                let remotes = try container.remotes()
                if output.json { return try Terminal.printJSON(remotes) }
                for remote in remotes { print("\(remote.name)\t\(remote.url)") }
            }
        }
    }
}
