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
