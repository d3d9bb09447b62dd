import Foundation
import Synchronization

/// docver's JSON-RPC 2.0 server (docs/PROTOCOL.md): what `docver serve` speaks over stdin and
/// stdout, one JSON object per line.
///
/// The server reads nothing and writes nothing itself: the caller hands it each line it read
/// (``handle(_:)``) and receives each line to write through `output`, which the server calls
/// with one whole line at a time (never two at once; a long answer in parts through
/// `outputPart` when the caller gives one), from the thread of the request's task
/// or from the observer's thread for notifications. Requests are answered one at a time, in
/// the order they arrive. After `initialize`, notifications report every change to the
/// container, whoever made it (``ContainerObserver``).
public final class ProtocolServer: Sendable {
    /// The protocol's version: `major.minor`. A minor version adds methods, notifications or
    /// fields; a major version changes or removes them (docs/PROTOCOL.md, "Versions").
    public static let protocolVersion = "1.0"

    /// The methods, as `initialize` lists them.
    public static let methods = [
        "initialize", "shutdown", "status", "ls", "conflicts", "versions", "show", "diff", "save", "sync", "resolve",
        "replace", "markResolved", "removeOtherVersions", "restore", "download", "evict", "kv.get", "kv.set", "kv.remove",
        "kv.list",
    ]

    /// The notifications the server sends.
    public static let notifications = ContainerObserver.notifications

    let container: Container
    private let serverVersion: String
    private let hint: @Sendable (DocverError) -> String?
    private let output: @Sendable (String) -> Void
    /// Writes text as it is, no newline added; nil when the caller takes whole lines only.
    private let outputPart: (@Sendable (String) -> Void)?
    /// Held while a line is written: a response and a notification never interleave.
    private let writing = Mutex(())
    private let observer = Mutex<ContainerObserver?>(nil)

    /// A server for `container`. `hint` gives the advice for a failure (the CLI's, which
    /// quotes its commands); `output` writes one line (without its newline). With
    /// `outputPart`, which writes the text it is given as it is (the newline included when
    /// there is one), a long answer (`ls`) is written in parts as it is encoded instead of
    /// as one line built whole; the parts of one line still come one after another, with
    /// nothing between them.
    public init(
        container: Container, serverVersion: String,
        hint: @escaping @Sendable (DocverError) -> String? = { _ in nil },
        output: @escaping @Sendable (String) -> Void,
        outputPart: (@Sendable (String) -> Void)? = nil
    ) {
        self.container = container
        self.serverVersion = serverVersion
        self.hint = hint
        self.output = output
        self.outputPart = outputPart
    }

    /// Answers one line (a request, or a notification, which gets no answer). Returns false
    /// once `shutdown` was answered: the caller stops reading and calls ``stop()``.
    public func handle(_ line: Data) async -> Bool {
        let request: ProtocolRequest
        do {
            request = try ProtocolRequest(line: line)
        } catch {
            send(ProtocolResponse<NoResult>(id: ProtocolID(node: error.id), result: nil, error: error))
            return true
        }
        do {
            let result = try await answer(request)
            if let id = request.id {
                if let list = result as? ItemList, let outputPart {
                    sendInParts(id: ProtocolID(node: id), list, outputPart)
                } else {
                    send(ProtocolResponse(id: ProtocolID(node: id), result: AnyResult(value: result), error: nil))
                }
            }
        } catch {
            if let id = request.id {
                send(ProtocolResponse<NoResult>(id: ProtocolID(node: id), result: nil, error: protocolError(for: error)))
            }
        }
        return request.method != "shutdown"
    }

    /// Stops the notifications (the observer's thread ends).
    public func stop() {
        observer.withLock { $0 }?.stop()
    }

    /// Writes one message as one line.
    func send(_ message: some Encodable) {
        let line: String
        do {
            line = try ProtocolEncoding.line(message)
        } catch {
            line =
                (try? ProtocolEncoding.line(
                    ProtocolResponse<NoResult>(
                        id: ProtocolID(node: nil), result: nil,
                        error: ProtocolError(.internalError, "could not encode a message: \(error)")))) ?? ""
        }
        writing.withLock { _ in output(line) }
    }

    /// Writes the response holding `list` as ``send(_:)`` would, byte for byte, in parts of
    /// 512 documents encoded one after another: the answer's memory is the documents', not
    /// the line's. The response's keys in the order the encoder sorts them: id, jsonrpc,
    /// result.
    private func sendInParts(id: ProtocolID, _ list: ItemList, _ outputPart: @Sendable (String) -> Void) {
        guard let idText = try? ProtocolEncoding.line(id) else {
            send(ProtocolResponse(id: id, result: AnyResult(value: list), error: nil))
            return
        }
        writing.withLock { _ in
            outputPart("{\"id\":" + idText + ",\"jsonrpc\":\"2.0\",\"result\":[")
            var start = 0
            while start < list.items.count {
                let end = min(start + 512, list.items.count)
                // An array of plain values, which always encodes; were it ever to fail, the
                // line is ended as invalid JSON rather than as a shorter list.
                guard let part = try? ProtocolEncoding.line(list.items[start..<end].map(ItemOutput.init)) else {
                    outputPart("\u{0}\n")
                    return
                }
                outputPart((start == 0 ? "" : ",") + part.dropFirst().dropLast())
                start = end
            }
            outputPart("]}\n")
        }
    }

    private func protocolError(for error: any Error) -> ProtocolError {
        switch error {
        case let error as ProtocolError: return error
        case let error as DocverError: return ProtocolError(failure: error, hint: hint(error))
        default:
            return ProtocolError(failedWith: DocverError.printable(error.localizedDescription))
        }
    }

    // MARK: The methods

    private func answer(_ request: ProtocolRequest) async throws -> any Encodable & Sendable {
        let params = request.params
        let container = container
        switch request.method {
        case "initialize": return try await initialize(params)
        case "shutdown":
            stop()
            return NoResult()
        case "status":
            return try await offCooperativePool { StatusOutput(try container.status(), device: container.device) }
        case "ls":
            let query = try Self.query(params)
            return try await offCooperativePool { ItemList(items: try container.query(query)) }
        case "conflicts":
            let document = try params.optionalDocument()
            return try await offCooperativePool {
                let conflicts = try container.conflicts(document)
                if let document, conflicts.isEmpty, try container.currentVersion(of: document) == nil {
                    throw DocverError.noSuchDocument(document.path)
                }
                return conflicts.map(ConflictOutput.init)
            }
        case "versions":
            let document = try params.document()
            let all = try params.bool("all")
            return try await offCooperativePool {
                VersionsOutput(document: document, try container.versions(of: document, includingResolved: all))
            }
        case "show":
            let document = try params.document()
            let specifier = try VersionSpecifier(params.optionalString("version") ?? "@")
            return try await offCooperativePool {
                let version = try container.version(specifier, of: document)
                return ShowOutput(version, contents: try container.contents(of: version))
            }
        case "diff":
            let document = try params.document()
            let from = try params.optionalString("from") ?? "@"
            let to = try params.optionalString("to") ?? "working"
            return try await offCooperativePool {
                DiffOutput(
                    try container.diff(
                        document, from: Self.side(from, of: document, in: container),
                        to: Self.side(to, of: document, in: container)))
            }
        case "save":
            let documents = try params.strings("documents").map(DocumentPath.init)
            let message = try params.optionalString("message")
            return try await offCooperativePool {
                SaveOutput(try container.save(documents.isEmpty ? nil : documents, message: message))
            }
        case "sync": return try await sync(params)
        case "resolve": return try await resolve(params)
        case "replace", "restore":
            let document = try params.document()
            let specifier = try VersionSpecifier(params.string("version"))
            let restoring = request.method == "restore"
            return try await offCooperativePool {
                let version = try container.version(specifier, of: document)
                let result = restoring ? try container.restore(document, to: version.id) : try container.replace(document, with: version.id)
                return DocumentSaveOutput(document, result)
            }
        case "download":
            let documents = try params.strings("documents").map(DocumentPath.init)
            let all = try params.bool("all")
            guard all != !documents.isEmpty else {
                throw ProtocolError(.invalidParams, "download: name \"documents\" or pass \"all\": true, not both")
            }
            return try await offCooperativePool { DownloadOutput(try container.download(all ? nil : documents)) }
        case "evict":
            let documents = try params.strings("documents").map(DocumentPath.init)
            guard !documents.isEmpty else { throw ProtocolError(.invalidParams, "evict: \"documents\" names none") }
            let force = try params.bool("force")
            return try await offCooperativePool { EvictOutput(try container.evict(documents, force: force)) }
        case "markResolved":
            let document = try params.document()
            let versions = try params.strings("versions")
            let force = try params.bool("force")
            return try await offCooperativePool {
                let ids = try versions.map { try Self.versionID($0, of: document, in: container) }
                return DocumentSaveOutput(document, try container.markResolved(document, versions: ids, force: force))
            }
        case "removeOtherVersions":
            let document = try params.document()
            let force = try params.bool("force")
            return try await offCooperativePool {
                DocumentSaveOutput(document, try container.removeOtherVersions(of: document, force: force))
            }
        case "kv.get":
            let key = try params.string("key")
            return try await offCooperativePool {
                try KeyValueQuota.validate(key: key)
                guard let value = try KeyValueStore(container: container).object(forKey: key) else { throw DocverError.noSuchKey(key) }
                return KeyValueEntryOutput(key: key, value: value)
            }
        case "kv.set":
            let key = try params.string("key")
            let value = try Self.keyValue(params)
            return try await offCooperativePool {
                try KeyValueQuota.validate(key: key)
                let store = try KeyValueStore(container: container)
                try store.set(value, forKey: key)
                return KeyValueSetOutput(key: key, value: value, save: try store.save())
            }
        case "kv.remove":
            let key = try params.string("key")
            return try await offCooperativePool {
                try KeyValueQuota.validate(key: key)
                let store = try KeyValueStore(container: container)
                guard store.object(forKey: key) != nil else { throw DocverError.noSuchKey(key) }
                try store.removeObject(forKey: key)
                return KeyValueRemoveOutput(key: key, save: try store.save())
            }
        case "kv.list":
            return try await offCooperativePool {
                let values = try KeyValueStore(container: container).dictionaryRepresentation
                return values.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                    .map { KeyValueEntryOutput(key: $0, value: values[$0]!) }
            }
        default:
            throw ProtocolError(.methodNotFound, "no such method: \(request.method)")
        }
    }

    /// The result of `initialize`.
    struct InitializeResult: Encodable {
        struct Server: Encodable {
            let name: String
            let version: String
        }

        struct Capabilities: Encodable {
            let methods: [String]
            let notifications: [String]
        }

        let protocolVersion: String
        let server: Server
        let container: String
        let device: String
        let deviceName: String
        let capabilities: Capabilities
    }

    /// Answers with the protocol's version and what the server offers, and starts the
    /// notifications: the references are watched before the first state is taken, so any
    /// change after the answer is reported.
    private func initialize(_ params: ProtocolParameters) async throws -> InitializeResult {
        if let asked = try params.optionalString("protocolVersion"),
            asked.split(separator: ".").first != Self.protocolVersion.split(separator: ".").first
        {
            throw ProtocolError(.invalidParams, "protocol version \(asked) is not supported; this server speaks \(Self.protocolVersion)")
        }
        if observer.withLock({ $0 }) == nil {
            let container = container
            let send: @Sendable (any Encodable & Sendable) -> Void = { [weak self] notification in self?.send(notification) }
            let started = try await offCooperativePool { try ContainerObserver(container: container, send: send) }
            started.start()
            observer.withLock { $0 = started }
        }
        return InitializeResult(
            protocolVersion: Self.protocolVersion, server: .init(name: "docver", version: serverVersion),
            container: container.root.path, device: container.device.id, deviceName: container.device.name,
            capabilities: .init(methods: Self.methods, notifications: Self.notifications))
    }

    private func sync(_ params: ProtocolParameters) async throws -> SyncOutput {
        let remotes = try params.strings("remotes")
        let container = container
        send(ProtocolNotification(method: "syncStateChanged", params: SyncStateChange(state: .started, remotes: remotes)))
        // Progress as libgit2 reports it, at most one notification per tenth of its objects.
        let reported = Mutex<[String: Int]>([:])
        let progress: TransferProgressHandler = { [weak self] progress in
            let step = max(1, progress.totalObjects / 10)
            let key = progress.remote + progress.direction.rawValue
            let due = reported.withLock { last -> Bool in
                let tenth = progress.objects / step
                guard last[key] != tenth || progress.isComplete else { return false }
                last[key] = tenth
                return true
            }
            if due { self?.send(ProtocolNotification(method: "syncStateChanged", params: SyncStateChange(progress: progress))) }
        }
        do {
            let report = try await offCooperativePool { try container.sync(remotes.isEmpty ? nil : remotes, progress: progress) }
            send(ProtocolNotification(method: "syncStateChanged", params: SyncStateChange(finished: report)))
            return SyncOutput(report)
        } catch let error as DocverError {
            send(ProtocolNotification(method: "syncStateChanged", params: SyncStateChange(failed: error, hint: hint(error))))
            throw error
        }
    }

    private func resolve(_ params: ProtocolParameters) async throws -> ResolveOutput {
        let document = try params.document()
        let strategy = try params.choice("strategy", ["latest-date", "merge", "choose"])
        let keep = try params.optionalString("keep")
        let keepVersions = try params.bool("keepVersions")
        let dryRun = try params.bool("dryRun")
        let markers = try params.bool("markers")
        if keep != nil && strategy != "choose" { throw ProtocolError(.invalidParams, "resolve: \"keep\" goes with the strategy choose") }
        if markers && strategy != "merge" { throw ProtocolError(.invalidParams, "resolve: \"markers\" goes with the strategy merge") }
        let container = container
        let outcome: ResolutionOutcome
        switch strategy {
        case "latest-date":
            outcome = try await container.resolve(document, using: LatestDateStrategy(), keepVersions: keepVersions, dryRun: dryRun)
        case "merge":
            outcome = try await container.resolve(document, using: MergeStrategy(markers: markers), keepVersions: keepVersions, dryRun: dryRun)
        default:
            guard let keep else { throw ProtocolError(.invalidParams, "resolve: the strategy choose needs \"keep\", the version to keep") }
            let id = try await offCooperativePool { try Self.versionID(keep, of: document, in: container) }
            outcome = try await container.resolve(document, using: UserChoiceStrategy.version(id), keepVersions: keepVersions, dryRun: dryRun)
        }
        return ResolveOutput(outcome, of: document, dryRun: dryRun)
    }

    // MARK: Reading parameters

    private static func query(_ params: ProtocolParameters) throws -> DocumentQuery {
        let sort = try params.choice("sort", DocumentQuery.SortKey.allCases.map(\.rawValue), default: "path")
        var since: Date?
        if let text = try params.optionalString("modifiedSince") {
            guard let date = DateInput.parse(text) else {
                throw ProtocolError(.invalidParams, "ls: \"modifiedSince\" must be an ISO 8601 date such as 2026-11-01T09:30:00Z")
            }
            since = date
        }
        let inConflict = try params.bool("inConflict")
        let downloadStatus = try params.optionalString("downloadStatus").map { text in
            guard let status = DownloadStatus(rawValue: text) else {
                throw ProtocolError(.invalidParams, "ls: \"downloadStatus\" must be notDownloaded, downloaded or current")
            }
            return status
        }
        return DocumentQuery(
            glob: try params.optionalString("glob"), types: Set(try params.strings("types")),
            hasUnresolvedConflicts: inConflict ? true : nil, modifiedSince: since,
            savedBy: try params.optionalString("savedBy"), downloadStatus: downloadStatus,
            sortKey: DocumentQuery.SortKey(rawValue: sort) ?? .path, descending: try params.bool("reverse"))
    }

    /// A version id as given goes through (the library says what it is not); `@`, `@-N` and
    /// `@{DATE}` are looked up in the document's versions.
    private static func versionID(_ text: String, of document: DocumentPath, in container: Container) throws -> String {
        let specifier = try VersionSpecifier(text)
        if case let .id(given) = specifier { return given }
        return try container.version(specifier, of: document).id
    }

    /// One side of `diff`: `working` (the working copy), or a version.
    private static func side(_ text: String, of document: DocumentPath, in container: Container) throws -> DiffSide {
        if text == "working" { return .workingTree }
        return .version(try container.version(VersionSpecifier(text), of: document))
    }

    /// `kv.set`'s value: ordinary JSON (an integer literal is an int, any other number a
    /// double; null is refused), or with `"type": "data"` a Base64 string.
    private static func keyValue(_ params: ProtocolParameters) throws -> PropertyListValue {
        guard let node = params.member("value") else { throw ProtocolError(.invalidParams, "kv.set: the parameter \"value\" is missing") }
        switch try params.choice("type", ["json", "data"], default: "json") {
        case "data":
            guard case let .string(text) = node, let data = Data(base64Encoded: text) else {
                throw ProtocolError(.invalidParams, "kv.set: a value of type data is a Base64 string")
            }
            return .data(data)
        default:
            return try PropertyListValue.value(of: node)
        }
    }
}
