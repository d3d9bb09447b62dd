import Foundation

// Adding, renaming, re-pointing and removing the git remotes devices sync through, with git's
// meanings (`git remote add|rename|set-url|remove`).

extension Container {
    /// Adds a remote after checking where it points: a local repository must be a bare
    /// repository (or is created as an empty one when `creatingRepository`; see
    /// ``checkRemoteRepository(at:)``); a network URL must have a scheme libgit2 syncs through
    /// (``RemoteLocation/isSupported``) and is stored without contacting it. Nothing is created
    /// or changed when this throws.
    ///
    /// With `onDemand`, the remote keeps the contents this device leaves out: every fetch from
    /// it brings only the contents of each device's newest save, and an older version's
    /// contents come from it when a command reads them, as on a device made with
    /// `clone --on-demand`. What this device has already stays.
    ///
    /// - Returns: whether a bare repository was created.
    @discardableResult
    public func addRemote(_ name: String, location: RemoteLocation, creatingRepository: Bool, onDemand: Bool = false) throws -> Bool {
        guard Remote.isValidName(name) else { throw DocverError.invalidRemoteName(name) }
        return try withWriteLock { repository in
            guard try Remote.lookup(name, in: repository) == nil else { throw DocverError.remoteExists(name) }
            let created = try prepare(location, creating: creatingRepository)
            _ = try Remote.create(name, url: location.url, fetchSpec: RefName.fetchSpec(name), in: repository)
            if onDemand { try repository.makePromisor(name) }
            return created
        }
    }

    /// Points an existing remote at another URL, checked as ``addRemote(_:location:creatingRepository:)``
    /// checks it. The remote-tracking branches stay until the next fetch updates them.
    ///
    /// - Returns: whether a bare repository was created.
    @discardableResult
    public func setRemoteURL(_ name: String, location: RemoteLocation, creatingRepository: Bool) throws -> Bool {
        try withWriteLock { repository in
            guard try Remote.lookup(name, in: repository) != nil else { throw DocverError.noSuchRemote(name) }
            let created = try prepare(location, creating: creatingRepository)
            try Remote.setURL(name, to: location.url, in: repository)
            return created
        }
    }

    /// Makes an existing remote keep the contents this device leaves out, as
    /// ``addRemote(_:location:creatingRepository:onDemand:)`` does for a new one: later fetches
    /// from it bring only the contents of each device's newest save, and ``evict(_:force:)``
    /// can free what is here (needs git). Returns false when the remote already did.
    @discardableResult
    public func keepDocumentsOnDemand(from name: String) throws -> Bool {
        try withWriteLock { repository in
            guard try Remote.lookup(name, in: repository) != nil else { throw DocverError.noSuchRemote(name) }
            guard try !repository.promisorRemotes().contains(name) else { return false }
            try repository.makePromisor(name)
            repository.promisors = nil
            return true
        }
    }

    /// Renames a remote: its configuration, its fetch refspec and its remote-tracking branches
    /// (`refs/remotes/<old>/docver/*` become `refs/remotes/<new>/docver/*`).
    public func renameRemote(_ name: String, to newName: String) throws {
        guard Remote.isValidName(newName) else { throw DocverError.invalidRemoteName(newName) }
        try withWriteLock { repository in
            guard try Remote.lookup(name, in: repository) != nil else { throw DocverError.noSuchRemote(name) }
            guard name != newName else { return }
            guard try Remote.lookup(newName, in: repository) == nil else { throw DocverError.remoteExists(newName) }
            try Remote.rename(name, to: newName, fetchSpec: RefName.fetchSpec(newName), in: repository)
        }
    }

    /// Removes a remote and its remote-tracking branches. A fetched device branch whose saves
    /// this device has not integrated yet is kept first as `refs/docver/kept/<remote>/<device>/<id>`
    /// (as for a rewritten branch, docs/FORMAT.md), so the next sync or integrate still brings
    /// its saves in: removing a remote never loses a version.
    ///
    /// - Returns: the references kept.
    @discardableResult
    public func removeRemote(_ name: String) throws -> [String] {
        try withWriteLock { repository in
            guard try Remote.lookup(name, in: repository) != nil else { throw DocverError.noSuchRemote(name) }
            let head = try headCommit(repository)
            let prefix = RefName.trackingPrefix(name)
            var kept: [String] = []
            for (reference, tip) in try repository.references(matching: prefix + "*") {
                if let head, try repository.isAncestorOrSame(tip, of: head) { continue }
                let device = String(reference.dropFirst(prefix.count))
                let keptName = RefName.kept(remote: name, device: device, commit: tip.description)
                if try repository.referenceTarget(keptName) == nil {
                    try repository.updateReference(
                        keptName, to: tip, expected: nil,
                        message: "docver: keep saves of removed remote \(name)")
                }
                kept.append(keptName)
            }
            try Remote.delete(name, in: repository)
            return kept
        }
    }

    /// Checks that a local path can be a remote, as ``addRemote(_:location:creatingRepository:)``,
    /// ``clone(from:to:device:progress:)`` and a sync check it: a bare git repository. Throws
    /// ``DocverError/noRepositoryAt(_:)`` (nothing there, or a folder that is no repository),
    /// ``DocverError/fileNotRepository(_:)`` or ``DocverError/repositoryHasWorkingTree(_:)``.
    public static func checkRemoteRepository(at path: String) throws {
        switch Repository.isBare(at: path) {
        case true?: return
        // libgit2's local transport pushes only into bare repositories ("local push doesn't
        // (yet) support pushing to non-bare repos"), and a sync pushes.
        case false?: throw DocverError.repositoryHasWorkingTree(path)
        case nil:
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw DocverError.fileNotRepository(path)
            }
            throw DocverError.noRepositoryAt(path)
        }
    }

    /// Checks a location before it is stored; creates the bare repository when asked.
    private func prepare(_ location: RemoteLocation, creating: Bool) throws -> Bool {
        guard case let .local(path) = location else {
            guard location.isSupported else { throw DocverError.unsupportedRemoteURL(location.url) }
            return false
        }
        // A repository in the working tree would be saved as a document (a folder with an
        // extension is a package): refuse it, whether it exists or not.
        let rootPath = root.standardizedFileURL.path
        if path == rootPath || path.hasPrefix(rootPath + "/") { throw DocverError.remoteInsideContainer(path) }
        do {
            try Self.checkRemoteRepository(at: path)
            return false
        } catch DocverError.noRepositoryAt where creating {
            // Nothing there, or a folder: made into an empty bare repository if it is empty.
        }
        if (try? FileSystem.contentsOfDirectory(path))?.isEmpty == false { throw DocverError.destinationNotEmpty(path) }
        try DocverError.wrapping { try Repository.createBare(at: path) }
        return true
    }
}
