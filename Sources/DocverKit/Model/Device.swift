import Foundation

/// A device that saves documents into a container: one branch of history per device.
public struct Device: Hashable, Sendable, Codable {
    /// The stable identifier: letters, digits, `-` and `_`.
    public let id: String
    /// The display name, such as "Alice's iPad".
    public let name: String

    /// Creates a device, validating its id and name.
    public init(id: String, name: String? = nil) throws {
        guard Self.isValidID(id) else { throw DocverError.invalidDeviceID(id) }
        let displayName = name ?? id
        guard !displayName.isEmpty, displayName.count <= 200,
              !displayName.contains(where: { $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true })
        else { throw DocverError.invalidDeviceName(displayName) }
        self.id = id
        self.name = displayName
    }

    init(unchecked id: String, name: String) {
        self.id = id
        self.name = name
    }

    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }
}

extension UInt8 {
    var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
