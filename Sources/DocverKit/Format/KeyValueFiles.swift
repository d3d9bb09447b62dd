import Foundation

// docs/FORMAT.md, "The key-value store": one file per key under `.docver/kv/`, in a canonical
// JSON form that names its key, so that git shows each key's history and no two keys ever
// hold the same bytes.

/// Where the key-value store lives in a container's tree, and how a key's file is written.
enum KeyValueFiles {
    /// The store's folder, inside docver's reserved `.docver` area.
    static let folder = DocumentPath.reservedArea + "/kv"

    /// The path of a key's file in the tree: `.docver/kv/<encoded key>.json`.
    static func path(ofKey key: String) -> String { folder + "/" + fileName(ofKey: key) }

    /// A key's file name: its UTF-8 bytes with every byte other than ASCII letters, digits,
    /// `-`, `_` and `.` written as `%XX` (uppercase hexadecimal), a leading `.` too; then
    /// `.json`. `bg` → `bg.json`, `a/b` → `a%2Fb.json`, `.x` → `%2Ex.json`.
    static func fileName(ofKey key: String) -> String {
        var name = ""
        for (index, byte) in key.utf8.enumerated() {
            let plain =
                byte.isASCIIAlphanumeric || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || (byte == UInt8(ascii: ".") && index > 0)
            if plain {
                name.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                name += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return name + ".json"
    }

    /// The file's bytes: a JSON object with the members `key`, `type` and `value`, in that
    /// order, one per line, indented by two spaces, ending with a newline.
    ///
    /// `value` is written by `type`: a string as a JSON string, data as a Base64 string, an
    /// int as a JSON integer, a double with a `.` or an exponent, a bool as `true`/`false`.
    /// Arrays and dictionaries hold *tagged* elements: each one an object with a single
    /// member named after its type (`{"int":1}`, `{"data":"AAE="}`), written without spaces;
    /// dictionary members are sorted by the UTF-8 bytes of their keys.
    static func contents(key: String, value: PropertyListValue) -> Data {
        let text = "{\n  \"key\": \(JSONWriter.string(key)),\n  \"type\": \"\(value.typeName)\",\n  \"value\": \(plain(value))\n}\n"
        return Data(text.utf8)
    }

    /// A key file's key and value; nil when the bytes are not a key file.
    static func parse(_ data: Data) -> (key: String, value: PropertyListValue)? {
        guard case let .object(members)? = try? JSONReader.parse(data), members.count == 3,
            let keyNode = members.first(where: { $0.key == "key" })?.value, case let .string(key) = keyNode,
            let typeNode = members.first(where: { $0.key == "type" })?.value, case let .string(type) = typeNode,
            let valueNode = members.first(where: { $0.key == "value" })?.value,
            let value = decode(valueNode, as: type)
        else { return nil }
        return (key, value)
    }

    // MARK: Values

    /// A value as its type writes it (the `value` member).
    private static func plain(_ value: PropertyListValue) -> String {
        switch value {
        case let .string(text): JSONWriter.string(text)
        case let .data(data): "\"" + data.base64EncodedString() + "\""
        case let .int(number): String(number)
        case let .double(number): JSONWriter.double(number)
        case let .bool(flag): flag ? "true" : "false"
        case let .array(elements): "[" + elements.map(tagged).joined(separator: ",") + "]"
        case let .dictionary(members):
            "{"
                + members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                .map { JSONWriter.string($0.key) + ":" + tagged($0.value) }.joined(separator: ",") + "}"
        }
    }

    /// An element of an array or dictionary: `{"<type>":<value>}`.
    private static func tagged(_ value: PropertyListValue) -> String {
        "{\"\(value.typeName)\":\(plain(value))}"
    }

    private static func decode(_ node: JSONNode, as type: String) -> PropertyListValue? {
        switch (type, node) {
        case let ("string", .string(text)): return .string(text)
        case let ("data", .string(text)): return Data(base64Encoded: text).map(PropertyListValue.data)
        case let ("int", .number(text)): return JSONNode.isIntegerLiteral(text) ? Int64(text).map(PropertyListValue.int) : nil
        case let ("double", .number(text)): return Double(text).flatMap { $0.isFinite ? .double($0) : nil }
        case let ("bool", .bool(flag)): return .bool(flag)
        case let ("array", .array(elements)):
            var result: [PropertyListValue] = []
            for element in elements {
                guard let value = untag(element) else { return nil }
                result.append(value)
            }
            return .array(result)
        case let ("dictionary", .object(members)):
            var result: [String: PropertyListValue] = [:]
            for member in members {
                guard let value = untag(member.value), result.updateValue(value, forKey: member.key) == nil else { return nil }
            }
            return .dictionary(result)
        default:
            return nil
        }
    }

    private static func untag(_ node: JSONNode) -> PropertyListValue? {
        guard case let .object(members) = node, members.count == 1 else { return nil }
        return decode(members[0].value, as: members[0].key)
    }
}

extension CommitMessage {
    /// A key-value save: `Set bg`, `Remove bg`, or `Set 3 keys` / `Remove 2 keys` /
    /// `Change 4 keys`; one body line per key, `set: <key>` or `removed: <key>`; the device
    /// trailers.
    static func keyValueSave(sets: [String], removals: [String], device: Device) -> CommitMessage {
        let count = sets.count + removals.count
        let subject =
            switch (sets.count, removals.count) {
            case (1, 0): "Set \(sets[0])"
            case (0, 1): "Remove \(removals[0])"
            case (_, 0): "Set \(count) keys"
            case (0, _): "Remove \(count) keys"
            default: "Change \(count) keys"
            }
        var message = CommitMessage(subject: subject)
        message.body = sets.map { "set: \($0)" } + removals.map { "removed: \($0)" }
        message.trailers = [(Trailer.device, device.id), (Trailer.deviceName, device.name)]
        return message
    }
}
