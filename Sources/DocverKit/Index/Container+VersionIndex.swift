import Foundation

extension Container {
    /// The version index covering every docver branch of the repository (this device's, the
    /// fetched ones, the kept ones), extended by the commits added since it was last written.
    ///
    /// With `document`, an index that answers questions about that document only (and is
    /// read in a fraction of the time); a graph given it must not be asked about another.
    ///
    /// nil when it cannot be built (a repository that libgit2 cannot walk, say): callers then
    /// answer by walking history, as before the index existed, so losing the index costs
    /// time, never correctness.
    func versionIndex(in repository: Repository, for document: DocumentPath? = nil) -> VersionIndex? {
        do {
            var tips = try repository.references(matching: RefName.allDeviceBranches).map(\.target)
            tips += try repository.references(matching: RefName.allTrackingBranches).map(\.target)
            tips += try repository.references(matching: RefName.allKept).map(\.target)
            if let head = try headCommit(repository) { tips.append(head) }
            let store = VersionIndexStore(file: files.versionIndex, repository: repository)
            // A question about one document reads only that document's entries.
            if let document { return try store.load(covering: Array(Set(tips)), document: document.path) }
            return try store.load(covering: Array(Set(tips)))
        } catch {
            return nil
        }
    }
}
