import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    /// `docver kv`: the container's key-value store (NSUbiquitousKeyValueStore).
    struct KeyValue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "kv",
            abstract: "Read and write the key-value store: small values that sync with the documents.",
            discussion: """
                Values live in .docver/kv/ (one file per key) and are saved as saves of this device; \
                'docver sync' syncs them. Concurrent writes to a key end with the same value everywhere \
                (latest save, then greater device id); 'kv history KEY' keeps the others.
                """,
            subcommands: [Get.self, SetValue.self, Remove.self, List.self, History.self, Watch.self]
        )

        @OptionGroup var global: GlobalOptions
    }
}

extension Docver.KeyValue {
    /// The types `kv set --type` accepts.
    enum ValueType: String, ExpressibleByArgument, CaseIterable {
        case string, int, double, bool, data, json
    }

    // MARK: The --json contract (docs/CLI.md)

    typealias ValueOutput = KeyValueValueOutput
    typealias EntryOutput = KeyValueEntryOutput

    struct VersionOutput: Encodable {
        let id: String
        let key: String
        let type: String?
        let value: ValueOutput?
        let removed: Bool
        let modified: Date
        let device: String
        let deviceName: String
        let role: String

        init(_ version: KeyValueVersion) {
            id = version.id
            key = version.key
            type = version.value?.typeName
            value = version.value.map(ValueOutput.init)
            removed = version.value == nil
            modified = version.modified
            device = version.device.id
            deviceName = version.device.name
            role = version.role.rawValue
        }
    }

    struct ChangeOutput: Encodable {
        let keys: [String]
        let reason: String
    }

    /// A value on one line for listings: strings as they are, containers as JSON, control
    /// characters made visible.
    static func text(of value: PropertyListValue) -> String {
        switch value {
        case let .string(text): DocverError.printable(text)
        case let .data(data): data.base64EncodedString()
        case .array, .dictionary: DocverError.printable(value.jsonText)
        default: value.jsonText
        }
    }

    static func sortedKeys(_ keys: some Sequence<String>) -> [String] {
        keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    // MARK: Subcommands

    struct Get: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a key's value.",
            discussion: "A string is printed as it is; data as Base64; arrays and dictionaries as JSON.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The key.") var key: String

        func run(in container: Container) async throws {
            try KeyValueQuota.validate(key: key)
            let store = try KeyValueStore(container: container)
            guard let value = store.object(forKey: key) else { throw DocverError.noSuchKey(key) }
            if output.json { return try Terminal.printJSON(EntryOutput(key: key, value: value)) }
            if case let .string(text) = value { print(text) } else { print(Docver.KeyValue.text(of: value)) }
        }
    }

    struct SetValue: ContainerCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set a key's value and save it as a save of this device.",
            discussion: """
                --type json reads arrays, dictionaries and scalars from JSON (an integer literal is an int, \
                any other number a double; null is refused). --type data reads Base64.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The value's type: string, int, double, bool, data (Base64) or json.") var type: ValueType = .string
        @Argument(help: "The key: 1 to 64 bytes of UTF-8, no control characters.") var key: String
        @Argument(help: "The value.") var value: String

        typealias JSON = KeyValueSetOutput

        func parsedValue() throws -> PropertyListValue {
            switch type {
            case .string: return .string(value)
            case .int:
                guard let number = Int64(value) else { throw DocverError.invalidValue("'\(value)' is not a 64-bit integer") }
                return .int(number)
            case .double:
                guard let number = Double(value), number.isFinite else {
                    throw DocverError.invalidValue("'\(value)' is not a finite number")
                }
                return .double(number)
            case .bool:
                switch value {
                case "true": return .bool(true)
                case "false": return .bool(false)
                default: throw DocverError.invalidValue("'\(value)' is not a bool: use true or false")
                }
            case .data:
                guard let data = Data(base64Encoded: value) else { throw DocverError.invalidValue("'\(value)' is not Base64") }
                return .data(data)
            case .json:
                return try PropertyListValue(jsonText: value)
            }
        }

        func run(in container: Container) async throws {
            try KeyValueQuota.validate(key: key)
            let parsed = try parsedValue()
            let store = try KeyValueStore(container: container)
            try store.set(parsed, forKey: key)
            let save = try store.save()
            if output.json {
                return try Terminal.printJSON(JSON(key: key, value: parsed, save: save))
            }
            let name = DocverError.printable(key)
            if let save {
                print("set \(name) (\(parsed.typeName)) in save \(Terminal.shortID(save))")
            } else {
                print("\(name) already has this value; nothing to save")
            }
        }
    }

    struct Remove: ContainerCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a key and save the removal as a save of this device.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The key.") var key: String

        typealias JSON = KeyValueRemoveOutput

        func run(in container: Container) async throws {
            try KeyValueQuota.validate(key: key)
            let store = try KeyValueStore(container: container)
            guard store.object(forKey: key) != nil else { throw DocverError.noSuchKey(key) }
            try store.removeObject(forKey: key)
            let save = try store.save()
            if output.json { return try Terminal.printJSON(JSON(key: key, save: save)) }
            print("removed \(DocverError.printable(key))" + (save.map { " in save \(Terminal.shortID($0))" } ?? ""))
        }
    }

    struct List: ContainerCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls", abstract: "List the keys with their types and values.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run(in container: Container) async throws {
            let values = try KeyValueStore(container: container).dictionaryRepresentation
            let keys = Docver.KeyValue.sortedKeys(values.keys)
            if output.json { return try Terminal.printJSON(keys.map { EntryOutput(key: $0, value: values[$0]!) }) }
            let width = keys.map { DocverError.printable($0).count }.max() ?? 0
            for key in keys {
                let value = values[key]!
                print("\(DocverError.printable(key).padded(to: width))  \(value.typeName.padded(to: 10)) \(Docver.KeyValue.text(of: value))")
            }
        }
    }

    struct History: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every saved value of a key, newest first.",
            discussion: """
                Roles: 'current' is the value now; 'superseded' a value a later write replaced; 'lost' a \
                value that lost to a concurrent write on another device (kept only in history).
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The key.") var key: String

        func run(in container: Container) async throws {
            let versions = try container.keyValueHistory(of: key)
            if output.json { return try Terminal.printJSON(versions.map(VersionOutput.init)) }
            guard !versions.isEmpty else { throw DocverError.noSuchKey(key) }
            let width = versions.map(\.device.name.count).max() ?? 0
            for version in versions {
                let value = version.value.map { "\($0.typeName) \(Docver.KeyValue.text(of: $0))" } ?? "(removed)"
                print(
                    "\(version.role.rawValue.padded(to: 10)) \(Terminal.shortID(version.id))  \(Terminal.date(version.modified))  "
                        + "\(version.device.name.padded(to: width))  \(value)")
            }
        }
    }

    struct Watch: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each change other devices make to the store, as it arrives (until interrupted).",
            discussion: """
                One line per change: '<reason>: <keys>', the reason being server-change, initial-sync or \
                quota-violation. With --json, one object per line: {"keys": [...], "reason": "..."}.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "Seconds between checks for changes.") var interval: Double = 1
        @Option(help: "Stop after this many changes.") var changes: Int?

        func validate() throws {
            if interval <= 0 { throw ValidationError("--interval must be positive") }
            if let changes, changes < 1 { throw ValidationError("--changes must be at least 1") }
        }

        func run(in container: Container) async throws {
            let store = try KeyValueStore(container: container)
            var count = 0
            let arrivals = store.changes(pollInterval: .milliseconds(Int(interval * 1000)))
            // The starting point is taken: every arrival from now on is printed. Scripts (and
            // the tests) wait for this line before they make a change on another device.
            Diagnostics.logger.debug("watching the store for changes every \(interval) s")
            for await change in arrivals {
                if output.json {
                    try Terminal.printJSON(ChangeOutput(keys: change.keys, reason: change.reason.rawValue), onOneLine: true)
                } else {
                    print("\(change.reason.rawValue): " + change.keys.map(DocverError.printable).joined(separator: " "))
                }
                fflush(nil)
                count += 1
                if let changes, count >= changes { return }
            }
        }
    }
}
