import Foundation

// The messages of docver's JSON-RPC 2.0 protocol (docs/PROTOCOL.md): requests as they are
// read, responses and notifications as they are written, and the error object. Requests are
// read with the library's own strict JSON reader (Format/JSONText.swift), which keeps numbers
// as written: `kv.set` stores 1 as an int and 1.5 as a double, as `docver kv set --type json`.

/// A request or notification from the client, as read from one line.
struct ProtocolRequest {
    /// The request's id (a string or a number); nil for a notification, which gets no answer.
    let id: JSONNode?
    let method: String
    let params: ProtocolParameters

    /// Reads one line. Throws ``ProtocolError`` with -32700 when it is not JSON and -32600
    /// when it is JSON but no request; the error carries the id when one could be read.
    init(line: Data) throws(ProtocolError) {
        let node: JSONNode
        do {
            node = try JSONReader.parse(line)
        } catch {
            throw ProtocolError(.parseError, "not valid JSON: \(error.message) (at byte \(error.offset))")
        }
        guard case let .object(members) = node else {
            throw ProtocolError(
                .invalidRequest,
                isArray(node)
                    ? "batches are not supported: send one request per line" : "a request is a JSON object")
        }
        let fields = ProtocolParameters(members: members, context: "the request")
        var id: JSONNode?
        if let given = fields.member("id") {
            switch given {
            case .string, .number: id = given
            default: throw ProtocolError(.invalidRequest, "the id must be a string or a number")
            }
        }
        guard case .string("2.0")? = fields.member("jsonrpc") else {
            throw ProtocolError(.invalidRequest, "\"jsonrpc\": \"2.0\" is missing", id: id)
        }
        guard case let .string(method)? = fields.member("method") else {
            throw ProtocolError(.invalidRequest, "the method must be a string", id: id)
        }
        switch fields.member("params") {
        case nil: params = ProtocolParameters(members: [], context: method)
        case let .object(members)?: params = ProtocolParameters(members: members, context: method)
        default: throw ProtocolError(.invalidParams, "params must be an object (named parameters)", id: id)
        }
        self.id = id
        self.method = method
    }
}

private func isArray(_ node: JSONNode) -> Bool {
    if case .array = node { return true }
    return false
}

/// A request's named parameters, read with the checks that turn a wrong one into -32602
/// (invalid params) naming it.
struct ProtocolParameters {
    let members: [JSONNode.Member]
    /// The method, for messages.
    let context: String

    func member(_ name: String) -> JSONNode? {
        members.first { $0.key == name }?.value
    }

    private func wrong(_ name: String, _ expected: String) -> ProtocolError {
        ProtocolError(.invalidParams, "\(context): \"\(name)\" must be \(expected)")
    }

    func string(_ name: String) throws(ProtocolError) -> String {
        guard let value = try optionalString(name) else {
            throw ProtocolError(.invalidParams, "\(context): the parameter \"\(name)\" is missing")
        }
        return value
    }

    func optionalString(_ name: String) throws(ProtocolError) -> String? {
        switch member(name) {
        case nil, .null?: return nil
        case let .string(text)?: return text
        default: throw wrong(name, "a string")
        }
    }

    func bool(_ name: String, default value: Bool = false) throws(ProtocolError) -> Bool {
        switch member(name) {
        case nil, .null?: return value
        case let .bool(flag)?: return flag
        default: throw wrong(name, "true or false")
        }
    }

    func strings(_ name: String) throws(ProtocolError) -> [String] {
        switch member(name) {
        case nil, .null?: return []
        case let .array(elements)?:
            var result: [String] = []
            for element in elements {
                guard case let .string(text) = element else { throw wrong(name, "an array of strings") }
                result.append(text)
            }
            return result
        default: throw wrong(name, "an array of strings")
        }
    }

    /// A parameter that names one of `choices`.
    func choice(_ name: String, _ choices: [String], default value: String? = nil) throws(ProtocolError) -> String {
        guard let given = try optionalString(name) ?? value else {
            throw ProtocolError(.invalidParams, "\(context): the parameter \"\(name)\" is missing (one of \(choices.joined(separator: ", ")))")
        }
        guard choices.contains(given) else { throw wrong(name, "one of \(choices.joined(separator: ", "))") }
        return given
    }

    /// A document's path, relative to the container's root.
    func document(_ name: String = "document") throws -> DocumentPath {
        try DocumentPath(string(name))
    }

    func optionalDocument(_ name: String = "document") throws -> DocumentPath? {
        try optionalString(name).map(DocumentPath.init)
    }
}

/// The error object of a JSON-RPC response (docs/PROTOCOL.md, "Errors").
public struct ProtocolError: Error, Encodable, Sendable {
    /// The numeric codes: JSON-RPC's own, and docver's in the range the specification leaves
    /// to servers.
    public enum Code: Int, Sendable {
        /// The line is not JSON.
        case parseError = -32700
        /// JSON, but not a request object.
        case invalidRequest = -32600
        /// No such method.
        case methodNotFound = -32601
        /// A parameter is missing or of the wrong type.
        case invalidParams = -32602
        /// A failure inside the server itself.
        case internalError = -32603
        /// The operation was refused or failed: `data` says why, with docver's error code.
        case operationFailed = -32000
        /// A request that came after `shutdown` was answered.
        case shuttingDown = -32001
    }

    /// docver's error, as `--json` reports it (docs/schemas/error.schema.json, without the
    /// exit code), and a partial result where the operation did part of its work (a sync
    /// that reached some remotes only).
    public struct Details: Encodable, Sendable {
        public let failure: FailureOutput
        public let result: SyncOutput?

        public func encode(to encoder: any Encoder) throws {
            try failure.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(result, forKey: .result)
        }

        enum CodingKeys: String, CodingKey { case result }
    }

    public let code: Int
    public let message: String
    public let data: Details?
    /// The id of the request it answers, when known (not encoded here: it belongs to the response).
    let id: JSONNode?

    init(_ code: Code, _ message: String, id: JSONNode? = nil) {
        self.code = code.rawValue
        self.message = message
        data = nil
        self.id = id
    }

    init(failure error: DocverError, hint: String?) {
        code = Code.operationFailed.rawValue
        message = error.description
        var partial: SyncOutput?
        if case let .syncIncomplete(report) = error { partial = SyncOutput(report) }
        data = Details(failure: FailureOutput(code: error.code, message: error.description, hint: hint), result: partial)
        id = nil
    }

    /// Any other failure (one the library did not type), as `--json` reports it: code `failed`.
    init(failedWith message: String) {
        code = Code.operationFailed.rawValue
        self.message = message
        data = Details(failure: FailureOutput(code: "failed", message: message, hint: nil), result: nil)
        id = nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
        try container.encodeIfPresent(data, forKey: .data)
    }

    enum CodingKeys: String, CodingKey { case code, message, data }
}

/// A request's id as it came, written back in its response.
struct ProtocolID: Encodable {
    let node: JSONNode?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch node {
        case let .string(text)?: try container.encode(text)
        case let .number(text)?:
            if let integer = Int64(text) { try container.encode(integer) } else { try container.encode(Double(text) ?? 0) }
        default: try container.encodeNil()  // unknown: an unreadable request's answer has a null id
        }
    }
}

/// A response: `result` or `error`, never both.
struct ProtocolResponse<Result: Encodable>: Encodable {
    let id: ProtocolID
    let result: Result?
    let error: ProtocolError?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("2.0", forKey: .jsonrpc)
        try container.encode(id, forKey: .id)
        if let error {
            try container.encode(error, forKey: .error)
        } else if let result {
            try container.encode(result, forKey: .result)
        } else {
            try container.encodeNil(forKey: .result)
        }
    }

    enum CodingKeys: String, CodingKey { case jsonrpc, id, result, error }
}

/// A notification from the server: a method and its params, no id.
struct ProtocolNotification<Params: Encodable & Sendable>: Encodable, Sendable {
    let method: String
    let params: Params

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("2.0", forKey: .jsonrpc)
        try container.encode(method, forKey: .method)
        try container.encode(params, forKey: .params)
    }

    enum CodingKeys: String, CodingKey { case jsonrpc, method, params }
}

/// A method's result, whatever its type.
struct AnyResult: Encodable {
    let value: any Encodable & Sendable

    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

/// Nothing: the result of `shutdown` (`null`).
struct NoResult: Encodable, Sendable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}

enum ProtocolEncoding {
    /// One line of compact JSON, keys sorted, dates as the CLI's `--json` writes them.
    static func line(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(DateInput.iso8601(date))
        }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
