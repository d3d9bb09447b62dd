import Foundation

// docs/FORMAT.md, "References": where each device's saves live, locally and on remotes.

/// The names and globs of the references docver reads and writes.
enum RefName {
    /// A device's own branch: `refs/heads/docver/<device>`.
    static func branch(ofDevice id: String) -> String { "refs/heads/docver/\(id)" }

    /// Where a fetch from `remote` keeps the devices' branches: `refs/remotes/<remote>/docver/`.
    static func trackingPrefix(_ remote: String) -> String { "refs/remotes/\(remote)/docver/" }

    /// The refspec fetching every device's branch from `remote`.
    static func fetchSpec(_ remote: String) -> String { "+refs/heads/docver/*:\(trackingPrefix(remote))*" }

    /// The refspec pushing this device's branch, and only it.
    static func pushSpec(_ device: Device) -> String { "\(device.branch):\(device.branch)" }

    /// Every device branch in this repository.
    static let allDeviceBranches = "refs/heads/docver/*"

    /// Every fetched device branch, from every remote.
    static let allTrackingBranches = "refs/remotes/*/docver/*"

    /// Saves kept from a device branch that a remote rewrote, so none is lost.
    static let allKept = "refs/docver/kept/*"

    /// The reference keeping `commit`, seen on `device`'s branch on `remote` before a rewrite.
    static func kept(remote: String, device: String, commit: String) -> String {
        "refs/docver/kept/\(remote)/\(device)/\(commit)"
    }
}

extension Device {
    /// The device's own branch.
    var branch: String { RefName.branch(ofDevice: id) }
}
