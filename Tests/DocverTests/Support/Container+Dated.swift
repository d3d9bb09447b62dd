@testable import DocverKit
import Foundation

extension Container {
    /// This container with every save dated `seconds` after a fixed moment, so a test decides
    /// which save is the newest whatever the machine's clock does.
    func dated(_ seconds: Int) -> Container {
        var dated = self
        let date = Date(timeIntervalSince1970: TimeInterval(1_750_000_000 + seconds))
        dated.commitClock = CommitClock { date }
        return dated
    }
}

extension Scratch {
    /// Devices named `ids` sharing one new bare remote, each saving at dates counted from the
    /// same fixed start (``Container/dated(_:)``), and the remote.
    func datedDevices(_ ids: String...) throws -> (devices: [Container], remote: URL) {
        let remote = try bareRemote()
        return (try ids.map { try device($0, remote: remote).dated(0) }, remote)
    }
}
