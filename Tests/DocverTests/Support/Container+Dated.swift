import Foundation

@testable import DocverKit

extension Container {
    /// This container with every save dated `seconds` after a fixed moment, so a test decides
    /// which save is the newest whatever the machine's clock does.
    func dated(_ seconds: Int) -> Container {
        var dated = self
        let date = Date(timeIntervalSince1970: TimeInterval(1_750_000_000 + seconds))
        dated.commitClock = CommitClock { date }
        return dated
    }

    /// This container with every save dated `seconds` after the next whole second: later than
    /// every save made so far at the machine's time, without waiting for the clock to get there.
    func datedFromNow(_ seconds: Int) -> Container {
        var dated = self
        let date = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) + 1 + TimeInterval(seconds))
        dated.commitClock = CommitClock { date }
        return dated
    }

    /// This container with every save dated `seconds` before the current whole second, in the
    /// past: a save a test makes afterwards at the machine's time is newer, at once.
    func datedBeforeNow(_ seconds: Int) -> Container {
        var dated = self
        let date = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) - TimeInterval(seconds))
        dated.commitClock = CommitClock { date }
        return dated
    }

    /// This container with its saves dated as `other`'s are.
    func dated(like other: Container) -> Container {
        var dated = self
        dated.commitClock = other.commitClock
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
