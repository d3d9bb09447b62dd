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
        guard !displayName.isEmpty, displayName.count <= Self.maximumNameLength,
            !displayName.contains(where: { $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true })
        else { throw DocverError.invalidDeviceName(displayName) }
        self.id = id
        self.name = displayName
    }

    init(unchecked id: String, name: String) {
        self.id = id
        self.name = name
    }

    /// The device id `init` and `clone` use when none is given: the host name's letters, digits,
    /// `-` and `_` (every other character becomes `-`, lowercased, at most 47 characters), then
    /// `-` and 8 hexadecimal digits of a hash (64-bit FNV-1a, low 32 bits) of the container's
    /// absolute path. Deterministic, so running `init` again gives the same id; the path part
    /// keeps two containers of one remote on one host apart (each device pushes its own branch).
    public static func defaultID(hostName: String, containerPath: String) -> String {
        var host = ""
        for scalar in hostName.lowercased().unicodeScalars {
            let keep = scalar.isASCII && (UInt8(scalar.value).isASCIIAlphanumeric || scalar == "-" || scalar == "_")
            let character: Character = keep ? Character(scalar) : "-"
            if character == "-" && host.last == "-" { continue }
            host.append(character)
        }
        host = String(host.trimmingCharacters(in: CharacterSet(charactersIn: "-")).prefix(47))
        if host.isEmpty { host = "device" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in containerPath.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(UInt32(truncatingIfNeeded: hash), radix: 16)
        return host + "-" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The device `init` and `clone` use for a container at `containerPath` when no id is
    /// given: ``defaultID(hostName:containerPath:)``, named by
    /// ``defaultName(hostName:containerPath:homeDirectory:)`` (or after the id when the host
    /// name is no valid device name).
    public static func defaultDevice(hostName: String, containerPath: String, homeDirectory: String? = nil) -> Device {
        let id = defaultID(hostName: hostName, containerPath: containerPath)
        let name = defaultName(hostName: hostName, containerPath: containerPath, homeDirectory: homeDirectory)
        return (try? Device(id: id, name: name)) ?? Device(unchecked: id, name: id)
    }

    /// The display name `init` and `clone` give a device when none is given: the host name and
    /// the container's path, `~/` standing for `homeDirectory`, such as "vm (~/notes-2)".
    ///
    /// Two default ids differ only when the host names or the paths differ, and so do the
    /// names: two containers on one host (the README's two-folder setup) are told apart in
    /// messages and conflict markers. A path too long for a name (200 characters) keeps its end.
    public static func defaultName(hostName: String, containerPath: String, homeDirectory: String? = nil) -> String {
        var place = containerPath
        if let home = homeDirectory.map({ $0.hasSuffix("/") ? String($0.dropLast()) : $0 }), !home.isEmpty,
            place.hasPrefix(home + "/")
        {
            place = "~" + place.dropFirst(home.count)
        }
        let room = maximumNameLength - hostName.count - 3
        if place.count > room { place = "…" + place.suffix(max(room - 1, 0)) }
        return "\(hostName) (\(place))"
    }

    /// The longest display name, in characters.
    static let maximumNameLength = 200

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
