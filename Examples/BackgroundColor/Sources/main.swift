import DocverKit
import Foundation

// background-color: the key-value store's example, in the spirit of Apple's
// NSUbiquitousKeyValueStore sample: a laptop sets a background colour, the phone is told
// which keys changed after a sync and repaints; then both change it at the same time and
// end with the same colour, the other one kept in history.

@main
struct BackgroundColor {
    static func main() async {
        guard CommandLine.arguments.dropFirst() == ["demo"] else {
            FileHandle.standardError.write(Data("usage: BackgroundColor demo   two devices share a background colour (in a temporary folder)\n".utf8))
            exit(2)
        }
        do {
            try await demo()
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            exit(1)
        }
    }

    /// The colour as the seeds' example stores it: 0xBBGGRR in one integer.
    static func describe(_ value: Int64) -> String {
        String(format: "#%02X%02X%02X", Int(value & 0xFF), Int(value >> 8 & 0xFF), Int(value >> 16 & 0xFF))
    }

    static func demo() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("background-color-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let remote = folder.appendingPathComponent("remote.git")
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "init", "-q", "--bare", remote.path]
        try git.run()
        git.waitUntilExit()

        print("== 1. A laptop and a phone share a remote")
        let laptop = try Container.create(at: folder.appendingPathComponent("laptop"), device: Device(id: "laptop", name: "Laptop"))
        try laptop.addRemote("origin", url: remote.path)
        let phone = try Container.create(at: folder.appendingPathComponent("phone"), device: Device(id: "phone", name: "Phone"))
        try phone.addRemote("origin", url: remote.path)
        let laptopStore = try KeyValueStore(container: laptop)
        let phoneStore = try KeyValueStore(container: phone)

        // The phone listens as the app would to didChangeExternallyNotification.
        let changes = phoneStore.changes(pollInterval: .milliseconds(50))
        let listener = Task { () -> KeyValueStoreChange? in
            for await change in changes where change.keys.contains("bg") {
                print("phone: told that \(change.keys.joined(separator: ", ")) changed (\(change.reason.rawValue))")
                print("phone: repaints its background \(describe(phoneStore.longLong(forKey: "bg")))")
                return change
            }
            return nil
        }

        print("== 2. The laptop sets the background to green and synchronizes")
        try laptopStore.set(0x00FF00, forKey: "bg")
        try laptopStore.synchronize()
        print("laptop: background \(describe(laptopStore.longLong(forKey: "bg")))")

        print("== 3. The phone synchronizes")
        try phoneStore.synchronize()
        let received = await listener.value
        print("phone saw the change: \(received != nil ? "yes" : "no")")

        print("== 4. Both change the colour before seeing each other's change")
        try laptopStore.set(0x0000FF, forKey: "bg")  // red
        try phoneStore.set(0xFF0000, forKey: "bg")  // blue
        try laptopStore.synchronize()
        try phoneStore.synchronize()
        try laptopStore.synchronize()
        let laptopColour = describe(laptopStore.longLong(forKey: "bg"))
        let phoneColour = describe(phoneStore.longLong(forKey: "bg"))
        print("laptop: background \(laptopColour); phone: background \(phoneColour)")
        print("laptop and phone show the same colour: \(laptopColour == phoneColour ? "yes" : "no")")
        print("conflicts left open: \(try laptop.conflicts().count + phone.conflicts().count)")

        print("== 5. The other colour stays in history")
        for version in try laptopStore.history(ofKey: "bg") {
            let colour =
                version.value.map { value -> String in
                    if case let .int(number) = value { return describe(number) }
                    return value.jsonText
                } ?? "(removed)"
            print("  \(version.role.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(colour) by \(version.device.name)")
        }
        print("demo finished")
    }
}
