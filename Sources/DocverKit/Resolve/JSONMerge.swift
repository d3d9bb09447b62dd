import Foundation

/// Structural three-way merge of JSON documents that changes only what a side changed.
///
/// The result is the current version's bytes ("ours") with the other version's changes
/// ("theirs", relative to their common base) applied in place: a member nobody touched keeps
/// its exact text (number spelling, string escapes), its position and its layout. Objects
/// changed on both sides are merged key by key; any other value changed to different values
/// on both sides is a conflict, reported by its JSON path (`$.a.b`).
///
/// Values are compared by meaning, not by spelling: strings by their decoded text, numbers by
/// their exact decimal value (`1.0` and `1`, `1e3` and `1000` are the same number; `-0` and
/// `0` are not), objects as key→value maps whatever their order, arrays element by element.
/// A side that only re-spelled or re-laid-out a value has not changed it.
enum JSONMerge {
    /// Containers nested deeper than this are refused as not valid JSON (no stack overflow).
    static let maximumDepth = 512

    static func merge(path: String, base: Data?, ours: Data, theirs: Data) throws -> Data {
        func parse(_ data: Data, _ side: String) throws -> Document {
            do { return try Document(data) } catch let SyntaxError.duplicateKey(key, location) {
                throw DocverError.notMergeable(
                    document: path,
                    reason:
                        "the \(side) version is not valid JSON for merging: the key \"\(key)\" appears more than once in \(location)")
            } catch {
                throw DocverError.notMergeable(document: path, reason: "the \(side) version is not valid JSON")
            }
        }
        let baseDocument = try base.map { try parse($0, "base") }
        let oursDocument = try parse(ours, "current")
        let theirsDocument = try parse(theirs, "other")
        if let base, ours == base { return theirs }
        if ours == theirs || theirs == base { return ours }

        var merger = Merger(ours: oursDocument.bytes, theirs: theirsDocument.bytes)
        let root = oursDocument.root.range
        let merged = merger.merge(
            baseDocument?.root, oursDocument.root, theirsDocument.root, path: "$",
            indent: lineIndent(oursDocument.bytes, at: root.lowerBound))
        guard merger.conflicts.isEmpty, let merged else {
            throw DocverError.mergeFailed(
                document: path,
                reasons: merger.conflicts.map { "\($0) changed to different values on both devices" })
        }
        let bytes = oursDocument.bytes
        return Data(bytes[..<root.lowerBound]) + Data(merged) + Data(bytes[root.upperBound...])
    }

    /// True when both are valid JSON of the same value (by the comparison the merge uses).
    static func sameValue(_ a: Data, _ b: Data) -> Bool {
        if a == b { return true }
        guard let x = try? Document(a), let y = try? Document(b) else { return false }
        return x.root.sameValue(as: y.root)
    }

    // MARK: Merging

    private struct Merger {
        let ours: [UInt8]
        let theirs: [UInt8]
        var conflicts: [String] = []
        /// One level of indentation in theirs and in ours (nil when they show none): a value
        /// copied from theirs is re-indented level for level.
        private let units: (theirs: [UInt8], ours: [UInt8])?

        init(ours: [UInt8], theirs: [UInt8]) {
            self.ours = ours
            self.theirs = theirs
            if let theirsUnit = indentUnit(theirs), let oursUnit = indentUnit(ours) {
                units = (theirsUnit, oursUnit)
            } else {
                units = nil
            }
        }

        /// The merged text of one value; nil when the value is absent from the result.
        /// `indent` is the indentation of the line the value starts on in the result: a value
        /// copied from theirs is re-indented to it.
        mutating func merge(
            _ base: Node?, _ ours: Node?, _ theirs: Node?, path: String,
            indent: [UInt8]
        ) -> [UInt8]? {
            if Node.same(ours, theirs) || Node.same(theirs, base) { return ours.map { Array(self.ours[$0.range]) } }
            if let ours, let theirs, case let .object(mine) = ours.value, case let .object(other) = theirs.value {
                var baseObject: Object?
                if case let .object(object)? = base?.value { baseObject = object }
                return mergeObjects(baseObject, ours, mine, theirs, other, path: path)
            }
            if Node.same(ours, base) { return theirs.map { theirsText($0, indent: indent) } }
            conflicts.append(path)
            return ours.map { Array(self.ours[$0.range]) }
        }

        /// Theirs's text of a value, re-indented from its line's indentation to `indent`.
        private func theirsText(_ node: Node, indent: [UInt8]) -> [UInt8] {
            reindent(theirs[node.range], from: lineIndent(theirs, at: node.range.lowerBound), to: indent, units: units)
        }

        private enum Output {
            /// Ours's member at this index, with this value text.
            case ours(Int, [UInt8])
            /// A member theirs added, with this value text.
            case theirs(Member, [UInt8])
        }

        /// Merges two objects key by key, keeping ours's members in place with ours's layout;
        /// the members theirs added follow ours's last one, in theirs's order.
        private mutating func mergeObjects(
            _ base: Object?, _ oursNode: Node, _ mine: Object,
            _ theirsNode: Node, _ other: Object, path: String
        ) -> [UInt8] {
            let members = mine.members, source = ours
            let open = oursNode.range.lowerBound, close = oursNode.range.upperBound - 1
            // What separates member i from what precedes it ("{" or the previous value).
            func prefix(_ index: Int) -> ArraySlice<UInt8> {
                source[(index == 0 ? open + 1 : members[index - 1].value.range.upperBound)..<members[index].keyRange.lowerBound]
            }
            var separator: [UInt8] = [], colon: [UInt8] = [], addedIndent: [UInt8] = []
            if let last = members.last {
                separator = members.count >= 2 ? Array(prefix(members.count - 1)) : [UInt8(ascii: ",")] + prefix(0)
                colon = Array(ours[last.keyRange.upperBound..<last.value.range.lowerBound])
                if let newline = separator.lastIndex(of: UInt8(ascii: "\n")) {
                    addedIndent = Array(separator[(newline + 1)...].prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
                } else {
                    addedIndent = lineIndent(ours, at: last.value.range.upperBound)
                }
            }

            var outputs: [Output] = []
            for (index, member) in members.enumerated() {
                if let text = merge(
                    base?.member(member.key)?.value, member.value, other.member(member.key)?.value,
                    path: path + "." + member.name, indent: lineIndent(ours, at: member.value.range.lowerBound))
                {
                    outputs.append(.ours(index, text))
                }
            }
            for member in other.members where mine.member(member.key) == nil {
                if let text = merge(
                    base?.member(member.key)?.value, nil, member.value, path: path + "." + member.name,
                    indent: addedIndent)
                {
                    outputs.append(.theirs(member, text))
                }
            }

            if members.isEmpty {
                // Nothing of ours to copy the layout from: theirs's object, with only the
                // members it added, re-indented to where ours's object stands.
                guard !outputs.isEmpty else { return Array(ours[oursNode.range]) }
                let added = Set(outputs.compactMap { if case let .theirs(member, _) = $0 { member.key } else { nil } })
                let text = JSONMerge.render(theirsNode, in: theirs, keeping: other.members.indices.filter { added.contains(other.members[$0].key) })
                return reindent(
                    text[...], from: lineIndent(theirs, at: theirsNode.range.lowerBound),
                    to: lineIndent(ours, at: oursNode.range.lowerBound), units: units)
            }
            guard !outputs.isEmpty else { return [UInt8(ascii: "{"), UInt8(ascii: "}")] }
            var result: [UInt8] = [UInt8(ascii: "{")]
            for (position, output) in outputs.enumerated() {
                switch output {
                case let .ours(index, text):
                    result += position == 0 ? prefix(0) : prefix(index)
                    result += ours[members[index].keyRange.lowerBound..<members[index].value.range.lowerBound]
                    result += text
                case let .theirs(member, text):
                    result += position == 0 ? prefix(0)[...] : separator[...]
                    result += theirs[member.keyRange]
                    result += colon
                    result += text
                }
            }
            result += ours[members[members.count - 1].value.range.upperBound..<close]
            result.append(UInt8(ascii: "}"))
            return result
        }
    }

    /// An object's text with only the members at `kept` (ascending indices), each with the
    /// whitespace and comma that preceded it (the first with what followed "{").
    fileprivate static func render(_ node: Node, in source: [UInt8], keeping kept: [Int]) -> [UInt8] {
        guard case let .object(object) = node.value, let lastMember = object.members.last else { return Array(source[node.range]) }
        let members = object.members, open = node.range.lowerBound, close = node.range.upperBound - 1
        guard !kept.isEmpty else { return [UInt8(ascii: "{"), UInt8(ascii: "}")] }
        var result: [UInt8] = [UInt8(ascii: "{")]
        for (position, index) in kept.enumerated() {
            if position == 0 {
                result += source[open + 1..<members[0].keyRange.lowerBound]
                result += source[members[index].keyRange.lowerBound..<members[index].value.range.upperBound]
            } else {
                result += source[members[index - 1].value.range.upperBound..<members[index].value.range.upperBound]
            }
        }
        result += source[lastMember.value.range.upperBound..<close]
        result.append(UInt8(ascii: "}"))
        return result
    }
}

// MARK: Layout helpers

/// The spaces and tabs that begin the line holding `offset`.
private func lineIndent(_ bytes: [UInt8], at offset: Int) -> [UInt8] {
    var start = min(offset, bytes.count)
    while start > 0, bytes[start - 1] != UInt8(ascii: "\n") { start -= 1 }
    var end = start
    while end < bytes.count, bytes[end] == UInt8(ascii: " ") || bytes[end] == UInt8(ascii: "\t") { end += 1 }
    return Array(bytes[start..<end])
}

/// The indentation of one level: the shortest indentation of a line, when it is all spaces
/// or all tabs; nil when no line is indented.
private func indentUnit(_ bytes: [UInt8]) -> [UInt8]? {
    var shortest: ArraySlice<UInt8>?
    var index = 0
    while let newline = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) {
        var end = newline + 1
        while end < bytes.count, bytes[end] == UInt8(ascii: " ") || bytes[end] == UInt8(ascii: "\t") { end += 1 }
        let indent = bytes[(newline + 1)..<end]
        if !indent.isEmpty, end < bytes.count, bytes[end] != UInt8(ascii: "\n"), bytes[end] != UInt8(ascii: "\r"),
            indent.count < (shortest?.count ?? .max)
        {
            shortest = indent
        }
        index = end
    }
    guard let shortest, shortest.allSatisfy({ $0 == shortest.first }) else { return nil }
    return Array(shortest)
}

/// `text` with every line after the first that starts with `old` starting with `new` instead,
/// and, with `units`, each further level of theirs's indentation turned into one of ours.
/// JSON strings hold no raw line breaks, so every line break in a value is layout.
private func reindent(
    _ text: ArraySlice<UInt8>, from old: [UInt8], to new: [UInt8],
    units: (theirs: [UInt8], ours: [UInt8])?
) -> [UInt8] {
    let convertUnits = units.map { $0.theirs != $0.ours } ?? false
    guard old != new || convertUnits else { return Array(text) }
    var result: [UInt8] = []
    result.reserveCapacity(text.count)
    var index = text.startIndex
    while index < text.endIndex {
        let byte = text[index]
        result.append(byte)
        index += 1
        guard byte == UInt8(ascii: "\n"), text[index...].starts(with: old) else { continue }
        result += new
        index += old.count
        if let units, convertUnits {
            while text[index...].starts(with: units.theirs) {
                result += units.ours
                index += units.theirs.count
            }
        }
    }
    return result
}

// MARK: Syntax tree

extension JSONMerge {
    /// A parsed JSON text: its bytes and the tree of its values.
    struct Document {
        let bytes: [UInt8]
        let root: Node

        init(_ data: Data) throws {
            bytes = Array(data)
            var parser = Parser(bytes: bytes)
            root = try parser.parseDocument()
        }
    }

    /// One value and where its text lies in the source bytes.
    struct Node {
        enum Value {
            case null
            case bool(Bool)
            case number(Number)
            /// Decoded, as UTF-16 code units (so that a lone escaped surrogate is still a value,
            /// and no Unicode normalization makes two different keys equal).
            case string([UInt16])
            case array([Node])
            case object(Object)
        }

        var value: Value
        var range: Range<Int>

        static func same(_ a: Node?, _ b: Node?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case let (a?, b?): a.sameValue(as: b)
            default: false
            }
        }

        func sameValue(as other: Node) -> Bool {
            switch (value, other.value) {
            case (.null, .null): return true
            case let (.bool(x), .bool(y)): return x == y
            case let (.number(x), .number(y)): return x == y
            case let (.string(x), .string(y)): return x == y
            case let (.array(x), .array(y)):
                return x.count == y.count && zip(x, y).allSatisfy { $0.sameValue(as: $1) }
            case let (.object(x), .object(y)):
                return x.members.count == y.members.count
                    && x.members.allSatisfy { member in
                        y.member(member.key).map { member.value.sameValue(as: $0.value) } ?? false
                    }
            default: return false
            }
        }
    }

    struct Member {
        var key: [UInt16]
        /// The key's text, quotes included.
        var keyRange: Range<Int>
        var value: Node

        var name: String { String(decoding: key, as: UTF16.self) }
    }

    struct Object {
        var members: [Member]
        var index: [[UInt16]: Int]

        func member(_ key: [UInt16]) -> Member? { index[key].map { members[$0] } }
    }

    /// A number's exact decimal value: ±digits × 10^exponent, the digits without leading or
    /// trailing zeros (none for zero). Numbers whose exponent does not fit are kept as text.
    struct Number: Equatable {
        var negative: Bool
        var digits: [UInt8]
        var exponent: Int
        var text: [UInt8]?
    }

    enum SyntaxError: Error {
        case invalid
        case tooDeep
        /// The key (decoded) and the path of the object holding it twice.
        case duplicateKey(String, String)
    }

    /// An RFC 8259 parser over UTF-8 bytes (a leading byte order mark is allowed) that remembers
    /// where each value's text lies.
    struct Parser {
        let bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func parseDocument() throws -> Node {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
            skipWhitespace()
            let root = try parseValue(depth: 0)
            skipWhitespace()
            guard position == bytes.count else { throw SyntaxError.invalid }
            return root
        }

        private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        private mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
        }

        private mutating func expect(_ byte: UInt8) throws {
            guard current == byte else { throw SyntaxError.invalid }
            position += 1
        }

        private mutating func parseValue(depth: Int) throws -> Node {
            let start = position
            guard let byte = current else { throw SyntaxError.invalid }
            switch byte {
            case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
            case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
            case UInt8(ascii: "\""): return Node(value: .string(try parseString()), range: start..<position)
            case UInt8(ascii: "t"): try literal("true"); return Node(value: .bool(true), range: start..<position)
            case UInt8(ascii: "f"): try literal("false"); return Node(value: .bool(false), range: start..<position)
            case UInt8(ascii: "n"): try literal("null"); return Node(value: .null, range: start..<position)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return Node(value: .number(try parseNumber()), range: start..<position)
            default: throw SyntaxError.invalid
            }
        }

        private mutating func literal(_ word: StaticString) throws {
            let count = word.utf8CodeUnitCount
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
            guard bytes.count - position >= count, bytes[position..<position + count].elementsEqual(expected) else {
                throw SyntaxError.invalid
            }
            position += count
        }

        private mutating func parseObject(depth: Int) throws -> Node {
            guard depth <= JSONMerge.maximumDepth else { throw SyntaxError.tooDeep }
            let start = position
            try expect(UInt8(ascii: "{"))
            var members: [Member] = []
            var index: [[UInt16]: Int] = [:]
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                position += 1
                return Node(value: .object(Object(members: [], index: [:])), range: start..<position)
            }
            while true {
                let keyStart = position
                guard current == UInt8(ascii: "\"") else { throw SyntaxError.invalid }
                let key = try parseString()
                let keyRange = keyStart..<position
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
                let value: Node
                do { value = try parseValue(depth: depth) } catch let SyntaxError.duplicateKey(duplicate, path) {
                    throw SyntaxError.duplicateKey(duplicate, "$." + String(decoding: key, as: UTF16.self) + path.dropFirst())
                }
                guard index[key] == nil else {
                    throw SyntaxError.duplicateKey(String(decoding: key, as: UTF16.self), "$")
                }
                index[key] = members.count
                members.append(Member(key: key, keyRange: keyRange, value: value))
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    position += 1
                    skipWhitespace()
                    continue
                }
                try expect(UInt8(ascii: "}"))
                return Node(value: .object(Object(members: members, index: index)), range: start..<position)
            }
        }

        private mutating func parseArray(depth: Int) throws -> Node {
            guard depth <= JSONMerge.maximumDepth else { throw SyntaxError.tooDeep }
            let start = position
            try expect(UInt8(ascii: "["))
            var elements: [Node] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                position += 1
                return Node(value: .array([]), range: start..<position)
            }
            while true {
                do { elements.append(try parseValue(depth: depth)) } catch let SyntaxError.duplicateKey(duplicate, path) {
                    throw SyntaxError.duplicateKey(duplicate, "$[\(elements.count)]" + path.dropFirst())
                }
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    position += 1
                    skipWhitespace()
                    continue
                }
                try expect(UInt8(ascii: "]"))
                return Node(value: .array(elements), range: start..<position)
            }
        }

        /// Parses a string (the position is at its opening quote) into UTF-16 code units.
        private mutating func parseString() throws -> [UInt16] {
            position += 1
            var units: [UInt16] = []
            while true {
                guard let byte = current else { throw SyntaxError.invalid }
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    return units
                case UInt8(ascii: "\\"):
                    position += 1
                    guard let escape = current else { throw SyntaxError.invalid }
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): units.append(UInt16(escape))
                    case UInt8(ascii: "b"): units.append(0x08)
                    case UInt8(ascii: "f"): units.append(0x0C)
                    case UInt8(ascii: "n"): units.append(0x0A)
                    case UInt8(ascii: "r"): units.append(0x0D)
                    case UInt8(ascii: "t"): units.append(0x09)
                    case UInt8(ascii: "u"):
                        var unit: UInt16 = 0
                        for _ in 0..<4 {
                            guard let digit = current.flatMap(hexValue) else { throw SyntaxError.invalid }
                            unit = unit << 4 | UInt16(digit)
                            position += 1
                        }
                        units.append(unit)
                    default: throw SyntaxError.invalid
                    }
                case 0x00..<0x20: throw SyntaxError.invalid
                case 0x20..<0x80:
                    units.append(UInt16(byte))
                    position += 1
                default:
                    // One UTF-8 encoded scalar, validated (no overlong forms, surrogates or
                    // values beyond U+10FFFF).
                    var iterator = bytes[position...].makeIterator()
                    var decoder = UTF8()
                    guard case let .scalarValue(scalar) = decoder.decode(&iterator) else { throw SyntaxError.invalid }
                    units += UTF16.encode(scalar).map { Array($0) } ?? []
                    position += UTF8.width(scalar)
                }
            }
        }

        private func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }

        private mutating func parseNumber() throws -> Number {
            let start = position
            let negative = current == UInt8(ascii: "-")
            if negative { position += 1 }
            func isDigit(_ byte: UInt8?) -> Bool { byte.map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? false }
            var digits: [UInt8] = []
            guard isDigit(current) else { throw SyntaxError.invalid }
            if current == UInt8(ascii: "0") {
                position += 1
            } else {
                while isDigit(current) { digits.append(bytes[position] - UInt8(ascii: "0")); position += 1 }
            }
            var exponent = 0
            if current == UInt8(ascii: ".") {
                position += 1
                guard isDigit(current) else { throw SyntaxError.invalid }
                while isDigit(current) { digits.append(bytes[position] - UInt8(ascii: "0")); exponent -= 1; position += 1 }
            }
            var overflow = false
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                position += 1
                var exponentNegative = false
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") {
                    exponentNegative = current == UInt8(ascii: "-")
                    position += 1
                }
                guard isDigit(current) else { throw SyntaxError.invalid }
                var written = 0
                while isDigit(current) {
                    let digit = Int(bytes[position] - UInt8(ascii: "0"))
                    if written < 100_000_000_000 { written = written * 10 + digit } else { overflow = true }
                    position += 1
                }
                exponent += exponentNegative ? -written : written
            }
            guard !overflow else {
                return Number(negative: negative, digits: [], exponent: 0, text: Array(bytes[start..<position]))
            }
            // Drop leading zeros (a fraction's), then trailing ones into the exponent.
            let first = digits.firstIndex { $0 != 0 } ?? digits.endIndex
            digits.removeSubrange(..<first)
            while digits.last == 0 { digits.removeLast(); exponent += 1 }
            if digits.isEmpty { exponent = 0 }
            return Number(negative: negative, digits: digits, exponent: exponent, text: nil)
        }
    }
}
