import Foundation

extension Container {
    /// How far ahead of this machine's clock a received save may be dated before its device
    /// is named (docs/RESOLVING.md, "A wrong clock").
    static let clockAheadTolerance: Int64 = 5 * 60

    /// Names each device whose saves, among those a sync brought (reachable from `new`, not
    /// from `old`), are dated more than five minutes ahead of this device's clock: once per
    /// device while its clock stays ahead (the devices told about are kept in
    /// `.git/docver/clock-ahead`; a device whose newest save arrives dated right again is
    /// forgotten, so a later jump ahead is named again).
    func checkClocks(from old: ObjectID?, to new: ObjectID, in repository: Repository, into report: inout SyncReport) throws {
        guard old != new else { return }
        let now = Repository.Identity.clampedSeconds(commitClock.now())
        // Per device with saves among the arrivals: its name and its newest save's date.
        var newest: [String: (name: String, seconds: Int64)] = [:]
        let walk = try repository.revwalk(from: [new], hiding: old.map { [$0] } ?? [], topological: false)
        let told = ClockAheadFile.read(files.clockAhead)
        while let id = try walk.next() {
            let commit = try repository.commit(id)
            let seconds = Repository.Identity.clampedSeconds(commit.author.time)
            // (Whose save it is matters only for a save ahead, or to learn that a device named
            // before dates its saves right again: a long join parses no message otherwise.)
            guard told.isEmpty ? seconds - now > Self.clockAheadTolerance : true else { continue }
            let device = commit.device
            guard device != CommitIdentity.integrationDevice, device.id != self.device.id else { continue }
            if seconds > newest[device.id]?.seconds ?? .min { newest[device.id] = (device.name, seconds) }
        }
        guard !newest.isEmpty else { return }
        var stillTold = told
        for (id, save) in newest.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            let ahead = save.seconds - now
            if ahead <= Self.clockAheadTolerance {
                stillTold.remove(id)
            } else if !told.contains(id) {
                stillTold.insert(id)
                report.warnings.append(
                    "\(save.name)'s clock is \(Self.durationText(ahead)) ahead of this one; "
                        + "its saves win latest-date contests until it is fixed")
            }
        }
        if stillTold != told { try ClockAheadFile.write(stillTold, to: files.clockAhead) }
    }

    /// "365 days", "3 hours", "12 minutes": the largest unit, rounded to the nearest.
    static func durationText(_ seconds: Int64) -> String {
        let (count, unit): (Int64, String) =
            seconds >= 86_400
            ? ((seconds + 43_200) / 86_400, "day")
            : seconds >= 3_600 ? ((seconds + 1_800) / 3_600, "hour") : ((seconds + 30) / 60, "minute")
        return "\(count) \(unit)\(count == 1 ? "" : "s")"
    }
}
