import Foundation

extension PropertyListValue {
    /// Reads a value from ordinary JSON: an object is a dictionary, an array an array, a
    /// string a string, `true`/`false` a bool, a number without fraction or exponent that
    /// fits 64 bits an int, any other number a double.
    ///
    /// Throws ``DocverError/invalidValue(_:)`` for text that is not JSON and for `null`
    /// (anywhere), which is not a property-list value.
    public init(jsonText: String) throws {
        let node: JSONNode
        do {
            node = try JSONReader.parse(Data(jsonText.utf8))
        } catch {
            throw DocverError.invalidValue("not valid JSON: \(error.message) (at byte \(error.offset))")
        }
        self = try Self.value(of: node)
    }

    static func value(of node: JSONNode) throws -> PropertyListValue {
        switch node {
        case let .object(members):
            var result: [String: PropertyListValue] = [:]
            for member in members {
                guard result.updateValue(try value(of: member.value), forKey: member.key) == nil else {
                    throw DocverError.invalidValue("the member \"\(member.key)\" appears twice")
                }
            }
            return .dictionary(result)
        case let .array(elements): return .array(try elements.map(value(of:)))
        case let .string(text): return .string(text)
        case let .bool(flag): return .bool(flag)
        case .null: throw DocverError.invalidValue("null is not a property-list value")
        case let .number(text):
            if JSONNode.isIntegerLiteral(text), let integer = Int64(text) { return .int(integer) }
            guard let number = Double(text), number.isFinite else {
                throw DocverError.invalidValue("\(text) is not a finite number")
            }
            return .double(number)
        }
    }

    /// The value as ordinary, compact JSON (data as a Base64 string, dictionary members
    /// sorted by the UTF-8 bytes of their keys). Reading it back with ``init(jsonText:)``
    /// gives the same value, except that data becomes a string.
    public var jsonText: String {
        switch self {
        case let .string(text): JSONWriter.string(text)
        case let .data(data): "\"" + data.base64EncodedString() + "\""
        case let .int(number): String(number)
        case let .double(number): JSONWriter.double(number)
        case let .bool(flag): flag ? "true" : "false"
        case let .array(elements): "[" + elements.map(\.jsonText).joined(separator: ",") + "]"
        case let .dictionary(members):
            "{"
                + members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                .map { JSONWriter.string($0.key) + ":" + $0.value.jsonText }.joined(separator: ",") + "}"
        }
    }
}
