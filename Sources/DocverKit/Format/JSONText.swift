import Foundation

// A small JSON reader and writer for the key-value store's files (docs/FORMAT.md, "The
// key-value store"). Numbers keep their spelling, so an integer is never read through a
// Double (Int64.max survives) and `1` and `1.0` stay distinguishable.

/// A parsed JSON value. Object members keep their order.
enum JSONNode: Equatable, Sendable {
    /// One member of an object.
    struct Member: Equatable, Sendable {
        var key: String
        var value: JSONNode
    }

    case object([Member])
    case array([JSONNode])
    case string(String)
    /// The number as written (`-12`, `1.5e3`).
    case number(String)
    case bool(Bool)
    case null

    static func == (lhs: JSONNode, rhs: JSONNode) -> Bool {
        switch (lhs, rhs) {
        case let (.object(a), .object(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case (.null, .null): true
        default: false
        }
    }

    /// True for a number written without fraction or exponent.
    static func isIntegerLiteral(_ text: String) -> Bool {
        !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
    }
}

/// Why a text is not JSON; `offset` is the byte where reading stopped.
struct JSONSyntaxError: Error, Equatable {
    var message: String
    var offset: Int
}

/// Reads JSON (RFC 8259) from UTF-8 bytes.
struct JSONReader {
    /// Containers nested deeper than this are refused (no stack overflow on hostile input).
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var position = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses one JSON value filling the whole input (whitespace around it allowed).
    static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONNode {
        var reader = JSONReader(Array(data))
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.position == reader.bytes.count else { throw reader.error("unexpected text after the value") }
        return value
    }

    private func error(_ message: String) -> JSONSyntaxError { JSONSyntaxError(message: message, offset: position) }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private mutating func expect(_ literal: String) throws(JSONSyntaxError) {
        for byte in literal.utf8 {
            guard position < bytes.count, bytes[position] == byte else { throw error("expected '\(literal)'") }
            position += 1
        }
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONNode {
        guard depth < Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) levels deep") }
        guard position < bytes.count else { throw error("unexpected end of text") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            position += 1
            var members: [JSONNode.Member] = []
            var seen: Set<[UInt8]> = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object([]) }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a member name") }
                let key = try string()
                guard seen.insert(Array(key.utf8)).inserted else { throw error("the member \"\(key)\" appears twice") }
                skipWhitespace()
                try expect(":")
                skipWhitespace()
                members.append(JSONNode.Member(key: key, value: try value(depth: depth + 1)))
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end of text") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                try expect("}")
                return .object(members)
            }
        case UInt8(ascii: "["):
            position += 1
            var elements: [JSONNode] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array([]) }
            while true {
                skipWhitespace()
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end of text") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                try expect("]")
                return .array(elements)
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        default:
            return .number(try number())
        }
    }

    private mutating func number() throws(JSONSyntaxError) -> String {
        let start = position
        func digits(_ reader: inout JSONReader) -> Int {
            let from = reader.position
            while reader.position < reader.bytes.count, (0x30...0x39).contains(reader.bytes[reader.position]) { reader.position += 1 }
            return reader.position - from
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits(&self)
        guard integerDigits > 0 else { throw error("expected a value") }
        guard integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { throw error("a number has a leading zero") }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw error("expected digits after '.'") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw error("expected digits in the exponent") }
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        position += 1  // the opening quote
        var result: [UInt8] = []
        while true {
            guard position < bytes.count else { throw error("unterminated string") }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: result, as: UTF8.self) else { throw error("a string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw error("unterminated string") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): result.append(0x22)
                case UInt8(ascii: "\\"): result.append(0x5C)
                case UInt8(ascii: "/"): result.append(0x2F)
                case UInt8(ascii: "b"): result.append(0x08)
                case UInt8(ascii: "f"): result.append(0x0C)
                case UInt8(ascii: "n"): result.append(0x0A)
                case UInt8(ascii: "r"): result.append(0x0D)
                case UInt8(ascii: "t"): result.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
                        else { throw error("a lone surrogate in a string") }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("a lone surrogate in a string") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("a lone surrogate in a string")
                    }
                    result.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    throw error("an unknown escape in a string")
                }
            case 0x00..<0x20:
                throw error("a control character in a string")
            default:
                result.append(byte)
            }
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard position + 4 <= bytes.count,
            let value = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
        else { throw error("a \\u escape needs four hexadecimal digits") }
        position += 4
        return value
    }
}

/// Writes JSON in the store's canonical spelling.
enum JSONWriter {
    /// A string literal: `"` and `\` escaped, control characters as `\n`, `\t`, ... or
    /// `\u00XX`; everything else (including `/` and non-ASCII) as it is.
    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A finite double in Swift's shortest round-trip spelling, always with a `.` or an
    /// exponent so it reads back as a double (`1.0`, `0.1`, `1e-07`, `-0.0`).
    static func double(_ number: Double) -> String {
        let text = "\(number)"
        return JSONNode.isIntegerLiteral(text) ? text + ".0" : text
    }
}
