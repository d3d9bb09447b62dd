import Foundation

/// The limits of a key-value store, the same as Apple's for `NSUbiquitousKeyValueStore`.
public enum KeyValueQuota {
    /// At most this many keys.
    public static let maximumKeys = 1024
    /// At most this many bytes in all: the sum of the sizes of the keys' files (each file
    /// holds the key, its type and its value; see docs/FORMAT.md).
    public static let maximumBytes = 1_048_576
    /// A key is at most this many bytes of UTF-8.
    public static let maximumKeyBytes = 64

    /// Throws ``DocverError/invalidKey(_:reason:)`` unless `key` can be stored: 1 to 64 bytes
    /// of UTF-8, no control characters (keys appear on lines of commit messages and output).
    public static func validate(key: String) throws {
        guard !key.isEmpty else { throw DocverError.invalidKey(key, reason: "it is empty") }
        let bytes = key.utf8.count
        guard bytes <= maximumKeyBytes else {
            throw DocverError.invalidKey(key, reason: "it is \(bytes) bytes of UTF-8; at most \(maximumKeyBytes) are allowed")
        }
        guard !key.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw DocverError.invalidKey(key, reason: "control characters are not allowed")
        }
    }
}

/// How much of its quota a key-value store uses.
public struct KeyValueUsage: Hashable, Sendable, Codable {
    /// The number of keys.
    public var keys: Int
    /// The bytes of all the keys' files.
    public var bytes: Int

    public init(keys: Int, bytes: Int) {
        self.keys = keys
        self.bytes = bytes
    }

    /// True when a quota is exceeded.
    public var exceedsQuota: Bool { keys > KeyValueQuota.maximumKeys || bytes > KeyValueQuota.maximumBytes }
}

/// Values of other devices that arrived in this device's key-value store: Apple's
/// `didChangeExternallyNotification`, with its changed keys and reason.
public struct KeyValueStoreChange: Hashable, Sendable {
    /// Why the values changed. Apple's fourth reason, an iCloud account change, has no
    /// analogue: a container's device identity is fixed when the container is created.
    public enum Reason: String, Hashable, Sendable, Codable {
        /// Another device's values arrived (a sync or an integration).
        case serverChange = "server-change"
        /// The first values from other devices arrived in a store that was empty on this
        /// device (a new device, or one that never used the store).
        case initialSync = "initial-sync"
        /// Values arrived, and the store is now over a quota (``KeyValueQuota``): writes that
        /// would add to it are refused until keys are removed.
        case quotaViolation = "quota-violation"
    }

    /// The keys whose values changed, sorted by their UTF-8 bytes.
    public let keys: [String]
    public let reason: Reason

    public init(keys: [String], reason: Reason) {
        self.keys = keys
        self.reason = reason
    }
}

/// One saved state of a key: a value, or its removal.
public struct KeyValueVersion: Hashable, Sendable {
    /// How this state relates to the key's current value.
    public enum Role: String, Hashable, Sendable, Codable {
        /// The key's value now (or its removal).
        case current
        /// A later write, made with this one in view, replaced it.
        case superseded
        /// It lost under the per-key rule to a write made without it in view (a concurrent
        /// write on another device), and no later write saw it: its value is only in history.
        case lost
    }

    /// The save that wrote it (a commit id).
    public let id: String
    public let key: String
    /// The value; nil for a removal.
    public let value: PropertyListValue?
    /// The save's date (whole seconds): the modification date the rule compares.
    public let modified: Date
    public let device: Device
    public let role: Role
}
