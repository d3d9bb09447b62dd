import Foundation

/// A value the key-value store holds: the property-list types Apple's
/// `NSUbiquitousKeyValueStore` accepts (strings, data, numbers, Booleans, arrays and
/// dictionaries of them).
///
/// Numbers keep their kind: `.int(1)` and `.double(1)` are different values, as a getter for
/// one kind returns its zero value for the other. Doubles must be finite (the stored form is
/// JSON, which has no NaN or infinity).
public enum PropertyListValue: Hashable, Sendable {
    case string(String)
    case data(Data)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    /// The type's name as docs/FORMAT.md and the CLI spell it: `string`, `data`, `int`,
    /// `double`, `bool`, `array` or `dictionary`.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .data: "data"
        case .int: "int"
        case .double: "double"
        case .bool: "bool"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }

    /// The type names, in the order above.
    public static let typeNames = ["string", "data", "int", "double", "bool", "array", "dictionary"]

    /// The first reason this value cannot be stored, if any: a double that is not finite,
    /// anywhere inside it.
    var storageProblem: String? {
        switch self {
        case let .double(number) where !number.isFinite:
            return "\(number) is not a finite number"
        case let .array(elements):
            return elements.lazy.compactMap(\.storageProblem).first
        case let .dictionary(members):
            return members.values.lazy.compactMap(\.storageProblem).first
        default:
            return nil
        }
    }
}
