import DocverTestSupport
import Testing

@testable import DocverKit

/// The default device id: valid for any host name, deterministic, and different for
/// different container paths.
@Suite struct DeviceDefaultTests {
    @Test func theDefaultIDIsAValidDeterministicIDForAnyHostName() throws {
        var random = SeededRandom(seed: 0x15_0A)
        let alphabet = Array("abcXYZ019-_. é/\\\t\n\u{0}ü日本")
        for _ in 0..<2_000 {
            let host = String((0..<Int.random(in: 0...80, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let path = "/home/u/" + String((0..<Int.random(in: 1...30, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let id = Device.defaultID(hostName: host, containerPath: path)
            #expect(Device.isValidID(id), "\(host.debugDescription) → \(id)")
            #expect(id == Device.defaultID(hostName: host, containerPath: path))
            #expect(id.hasSuffix(String(Device.defaultID(hostName: "x", containerPath: path).suffix(9))), "the path part depends on the path only")
            let device = Device.defaultDevice(hostName: host, containerPath: path)
            #expect(device.id == id)
            #expect((try? Device(id: device.id, name: device.name)) != nil)
        }
        #expect(Device.defaultID(hostName: "Alice's Laptop.local", containerPath: "/a").hasPrefix("alice-s-laptop-local-"))
        #expect(Device.defaultID(hostName: "", containerPath: "/a").hasPrefix("device-"))
        // Different paths on one host: different ids (the hash of 1,000 paths has no collision).
        let ids = Set((0..<1_000).map { Device.defaultID(hostName: "host", containerPath: "/home/u/notes-\($0)") })
        #expect(ids.count == 1_000)
    }
}
