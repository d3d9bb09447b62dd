import Foundation

// docs/FORMAT.md, "Authors": who a commit says saved it.

/// The author and committer docver writes, and how it reads them back.
enum CommitIdentity {
    /// A device's saves: its name, `<id>@docver`, the local time and offset.
    static func device(_ device: Device, at date: Date) -> Repository.Identity {
        Repository.Identity(
            name: device.name, email: "\(device.id)@docver", time: date,
            offsetMinutes: Int32(TimeZone.current.secondsFromGMT(for: date) / 60))
    }

    /// The author and committer of a device's commit on top of `parents` (docs/FORMAT.md,
    /// "Dates"): the author keeps the wall clock, what the latest-date rule reads; the
    /// committer is dated at least one second after every parent's committer, so that dates
    /// never run backwards along history even when a parent came from a device whose clock
    /// is ahead (a hybrid logical clock).
    static func device(
        _ device: Device, at wallClock: Date, after parents: [ObjectID],
        in repository: Repository
    ) throws -> (author: Repository.Identity, committer: Repository.Identity) {
        let author = self.device(device, at: wallClock)
        let ordered = try orderedDate(wallClock: wallClock, parents: parents, in: repository)
        return (author, self.device(device, at: ordered))
    }

    /// `wallClock`, or one second after the newest parent committer date when that is not
    /// earlier than it.
    static func orderedDate(wallClock: Date, parents: [ObjectID], in repository: Repository) throws -> Date {
        let wall = Repository.Identity.clampedSeconds(wallClock)
        let newestParent = try parents.map { try Repository.Identity.clampedSeconds(repository.commit($0).committer.time) }.max()
        guard let newestParent, newestParent >= wall else { return wallClock }
        return Date(timeIntervalSince1970: TimeInterval(Repository.Identity.clampedSeconds(newestParent + 1)))
    }

    /// Integrations: a fixed identity in UTC, author and committer both dated with the newest
    /// committer date among the parents, so that every device integrating the same heads writes
    /// the same commit. Dates do not run backwards (the newest parent's date is kept), and the
    /// rule is the one every earlier docver applies: a device running an older build writes
    /// the byte-identical integration, so a fleet mid-upgrade still converges on one commit
    /// instead of integrating each other's integrations forever.
    static func integration(of parents: [ObjectID], in repository: Repository) throws -> (author: Repository.Identity, committer: Repository.Identity)
    {
        let committed = try parents.map { try Repository.Identity.clampedSeconds(repository.commit($0).committer.time) }.max()!
        let identity = integration(at: Date(timeIntervalSince1970: TimeInterval(committed)))
        return (identity, identity)
    }

    /// The fixed identity of integrations, at `date` in UTC.
    static func integration(at date: Date) -> Repository.Identity {
        Repository.Identity(name: "docver", email: "docver@docver", time: date, offsetMinutes: 0)
    }

    /// The pseudo-device integrations are attributed to.
    static let integrationDevice = Device(unchecked: "docver", name: "docver integration")
}

/// Where a device's saves take their date from: the clock, or for a test that must replay a
/// session commit for commit, a sequence it chooses (which version is current, and what the
/// latest-date resolution keeps, depend on dates; so do the version ids).
struct CommitClock: Sendable {
    let now: @Sendable () -> Date
    static let system = CommitClock { Date() }
}

extension Commit {
    /// The saving device: from docver's trailers, or for commits without them, from the
    /// author (a device id written as `ID@docver`, else the author's email and name).
    var device: Device { device(trailers: trailers) }

    /// ``device`` from trailers already read: a large integration's message (thousands of
    /// conflict records) is worth parsing once.
    func device(trailers: [(key: String, value: String)]) -> Device {
        if trailers.contains(where: { $0.key == Trailer.integration }) { return CommitIdentity.integrationDevice }
        if let id = trailers.first(where: { $0.key == Trailer.device })?.value, Device.isValidID(id) {
            let name = trailers.first(where: { $0.key == Trailer.deviceName })?.value ?? id
            return Device(unchecked: id, name: name)
        }
        let author = self.author
        if author.email.hasSuffix("@docver") {
            let id = String(author.email.dropLast("@docver".count))
            if Device.isValidID(id) { return Device(unchecked: id, name: author.name) }
        }
        return Device(unchecked: author.email, name: author.name)
    }
}
