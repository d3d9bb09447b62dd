import Foundation

// docs/FORMAT.md, "Authors": who a commit says saved it.

/// The author and committer docver writes, and how it reads them back.
enum CommitIdentity {
    /// A device's saves: its name, `<id>@docver`, the local time and offset.
    static func device(_ device: Device, at date: Date) -> Repository.Identity {
        Repository.Identity(name: device.name, email: "\(device.id)@docver", time: date,
                            offsetMinutes: Int32(TimeZone.current.secondsFromGMT(for: date) / 60))
    }

    /// Integrations: a fixed identity and the newest parent's date in UTC, so that every
    /// device integrating the same heads writes the same commit.
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
