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

    /// The reference keeping, for inspection, the head `commit` of `device`'s branch on
    /// `remote` that was refused because a save in it is not signed by the device it claims
    /// (docs/SECURITY.md, "Signed saves"). Never integrated, never pushed.
    static func refused(remote: String, device: String, commit: String) -> String {
        "refs/docver/refused/\(remote)/\(device)/\(commit)"
    }

    /// The remote and device of a fetched branch (`refs/remotes/R/docver/D`) or a kept save
    /// (`refs/docver/kept/R/D/COMMIT`); nil for any other reference.
    static func remoteAndDevice(of reference: String) -> (remote: String, device: String)? {
        let parts = reference.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 5, parts[0] == "refs", parts[1] == "remotes", parts[3] == "docver" { return (parts[2], parts[4]) }
        if parts.count == 6, parts[0] == "refs", parts[1] == "docver", parts[2] == "kept" { return (parts[3], parts[4]) }
        return nil
    }
}

extension Device {
    /// The device's own branch.
    var branch: String { RefName.branch(ofDevice: id) }
}
