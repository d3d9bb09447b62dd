import Foundation

/// A JSON value as parsed, keeping booleans, integers and other numbers apart (Foundation's
/// `JSONSerialization` gives `NSNumber` for all three).
indirect enum JSONValue: Decodable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !array.isAtEnd { elements.append(try array.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            var members: [String: JSONValue] = [:]
            for key in object.allKeys { members[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(members)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let flag = try? single.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? single.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? single.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    static func parse(_ data: Data) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: data) }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Whether the value is of a JSON Schema type (an integer is also a number).
    func hasType(_ type: String) -> Bool {
        type == typeName || (type == "number" && typeName == "integer")
    }

    var description: String {
        switch self {
        case .null: "null"
        case let .bool(flag): "\(flag)"
        case let .integer(number): "\(number)"
        case let .number(number): "\(number)"
        case let .string(text): "\"\(text)\""
        case let .array(elements): "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case let .object(members): "{" + members.keys.sorted().map { "\"\($0)\": \(members[$0]!)" }.joined(separator: ", ") + "}"
        }
    }

    subscript(key: String) -> JSONValue? {
        if case let .object(members) = self { return members[key] }
        return nil
    }
}

/// Validates JSON values against the subset of JSON Schema (draft 2020-12) that
/// docs/schemas uses: `type` (a name or an array of names, so `["string", "null"]` is
/// nullable), `properties`, `required`, `additionalProperties` (a boolean or a schema),
/// `items`, `enum`, `const`, `anyOf`, `pattern`, `format: date-time` and `$ref` to
/// `#/$defs/NAME` (or any `#/a/b`) in the schema or in another schema file of its folder. The schemas `true` and `{}` accept anything. A keyword outside the subset
/// is reported as a problem, so a schema cannot silently ask for more than is checked.
///
/// A Debian machine has no python jsonschema, hence this small validator for the tests.
struct JSONSchemaValidator {
    let root: JSONValue

    /// The folder of the schema file, where references to other files are looked up.
    let directory: URL?

    init(schema: JSONValue, directory: URL? = nil) {
        root = schema
        self.directory = directory
    }

    init(contentsOf url: URL) throws {
        root = try JSONValue.parse(Data(contentsOf: url))
        directory = url.deletingLastPathComponent()
    }

    /// Every way `value` breaks the schema's definition `name` (`$defs/NAME`).
    func problems(in value: JSONValue, definition name: String) -> [String] {
        var found: [String] = []
        check(value, against: .object(["$ref": .string("#/$defs/\(name)")]), at: "$", into: &found)
        return found
    }

    /// A `$ref`: `#/a/b` in this schema, or `FILE` or `FILE#/a/b` in another schema file,
    /// relative to this one's folder (docs/schemas/protocol/ refers to the CLI's result schemas
    /// as `../save.schema.json`); the pointer's steps are member names.
    private func resolve(_ reference: String) -> (JSONSchemaValidator, JSONValue)? {
        let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let file = String(parts[0])
        let pointer = parts.count > 1 ? String(parts[1]) : ""
        var validator = self
        if !file.isEmpty {
            guard let directory,
                let loaded = try? JSONSchemaValidator(contentsOf: directory.appendingPathComponent(file).standardizedFileURL)
            else { return nil }
            validator = loaded
        }
        var target = validator.root
        for step in pointer.split(separator: "/") {
            guard let next = target[String(step)] else { return nil }
            target = next
        }
        return (validator, target)
    }

    static let keywords: Set<String> = [
        "$schema", "$id", "$defs", "title", "description", "type", "properties", "required",
        "additionalProperties", "items", "enum", "const", "anyOf", "pattern", "format", "$ref", "minimum", "maximum",
    ]

    /// A number's value, for `minimum` and `maximum`.
    private static func numeric(_ value: JSONValue?) -> Double? {
        switch value {
        case let .integer(number)?: Double(number)
        case let .number(number)?: number
        default: nil
        }
    }

    /// Every way `value` breaks the schema, as `path: problem` (empty when it conforms).
    func problems(in value: JSONValue) -> [String] {
        var found: [String] = []
        check(value, against: root, at: "$", into: &found)
        return found
    }

    private func check(_ value: JSONValue, against schemaValue: JSONValue, at path: String, into found: inout [String]) {
        if case let .bool(accepts) = schemaValue {
            if !accepts { found.append("\(path): no value is allowed here") }
            return
        }
        guard case let .object(schema) = schemaValue else {
            found.append("\(path): the schema here is neither an object nor a boolean")
            return
        }
        for keyword in schema.keys where !Self.keywords.contains(keyword) {
            found.append("\(path): the validator does not know the keyword '\(keyword)'")
        }
        if let reference = schema["$ref"] {
            guard case let .string(text) = reference, let (validator, target) = resolve(text) else {
                found.append("\(path): unresolved $ref \(reference)")
                return
            }
            validator.check(value, against: target, at: path, into: &found)
        }
        if let type = schema["type"] {
            let names: [String] =
                switch type {
                case let .string(name): [name]
                case let .array(names): names.compactMap { if case let .string(name) = $0 { name } else { nil } }
                default: []
                }
            if !names.contains(where: value.hasType) {
                found.append("\(path): expected \(names.joined(separator: " or ")), found \(value.typeName)")
                return
            }
        }
        if case let .array(options)? = schema["enum"], !options.contains(value) {
            found.append("\(path): \(value) is not one of \(options)")
        }
        if let constant = schema["const"], constant != value {
            found.append("\(path): \(value) is not \(constant)")
        }
        if case let .array(alternatives)? = schema["anyOf"] {
            let matches = alternatives.contains { alternative in
                var inner: [String] = []
                check(value, against: alternative, at: path, into: &inner)
                return inner.isEmpty
            }
            if !matches { found.append("\(path): \(value) matches none of anyOf") }
        }
        if let number = Self.numeric(value) {
            if let minimum = Self.numeric(schema["minimum"]), number < minimum { found.append("\(path): \(number) is below \(minimum)") }
            if let maximum = Self.numeric(schema["maximum"]), number > maximum { found.append("\(path): \(number) is above \(maximum)") }
        }
        if case let .string(text) = value {
            if case let .string(pattern)? = schema["pattern"], text.range(of: pattern, options: .regularExpression) == nil {
                found.append("\(path): '\(text)' does not match \(pattern)")
            }
            if schema["format"] == .string("date-time"), !Self.isDateTime(text) {
                found.append("\(path): '\(text)' is not an RFC 3339 date-time")
            }
        }
        if case let .object(object) = value {
            let properties: [String: JSONValue] = if case let .object(members)? = schema["properties"] { members } else { [:] }
            if case let .array(required)? = schema["required"] {
                for case let .string(name) in required where object[name] == nil {
                    found.append("\(path): missing required property '\(name)'")
                }
            }
            for (name, member) in object.sorted(by: { $0.key < $1.key }) {
                if let propertySchema = properties[name] {
                    check(member, against: propertySchema, at: path + "." + name, into: &found)
                } else if let additional = schema["additionalProperties"] {
                    if case .bool(false) = additional {
                        found.append("\(path): property '\(name)' is not in the schema")
                    } else {
                        check(member, against: additional, at: path + "." + name, into: &found)
                    }
                }
            }
        }
        if case let .array(elements) = value, let items = schema["items"] {
            for (index, element) in elements.enumerated() {
                check(element, against: items, at: "\(path)[\(index)]", into: &found)
            }
        }
    }

    /// RFC 3339: `2026-11-22T03:58:04Z` or with an offset, fractions of a second allowed.
    static func isDateTime(_ text: String) -> Bool {
        let pattern = #"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"#
        guard text.range(of: pattern, options: .regularExpression) != nil else { return false }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = text.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter.date(from: text) != nil
    }
}
