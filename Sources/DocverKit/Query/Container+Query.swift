import Foundation

extension Container {
    /// Every saved document with its current version, sorted by path.
    public func documents() throws -> [MetadataItem] { try query() }

    /// Runs a query once. While the container's agent runs and has the documents for the
    /// references as they are now, it answers; otherwise the query reads the repository.
    public func query(_ query: DocumentQuery = DocumentQuery()) throws -> [MetadataItem] {
        if let served = servedDocuments() {
            return query.results(withDownloadStatus(served))
        }
        return try computeQuery(query)
    }

    /// `items` with what the working tree says of their contents: evicted, or being
    /// downloaded (a running `download`'s progress file). Read at each query, never cached:
    /// an eviction moves no reference.
    func withDownloadStatus(_ items: [MetadataItem]) -> [MetadataItem] {
        let evicted = listedEvictions().isEmpty ? [:] : evictedDocuments()
        let downloading = DownloadProgressFile.read(files.downloading)
        guard !evicted.isEmpty || !downloading.isEmpty else { return items }
        return items.map { item in
            var item = item
            let key = ByteString(item.document.path)
            if evicted[key] != nil {
                item.isEvicted = true
                item.percentDownloaded = 0
            }
            if let percent = downloading[key] {
                item.isDownloading = true
                item.percentDownloaded = percent
            }
            return item
        }
    }

    /// Runs a query on the repository (never asks the agent). The unfiltered listing is cached
    /// per head and tracking branches (``DocumentListingCache``); the query filters and sorts it.
    func computeQuery(_ query: DocumentQuery) throws -> [MetadataItem] {
        try withRepository { repository in
            guard let head = try headCommit(repository) else { return [] }
            let trackingReferences = try repository.references(matching: RefName.allTrackingBranches)
            let trust = try SigningPolicy(repository: repository)?.key
            let cache = DocumentListingCache(files: files)
            let key = DocumentListingCache.key(head: head, tracking: trackingReferences, trust: trust)
            let items: [MetadataItem]
            if let cached = cache.listing(key: key) {
                items = cached
            } else {
                items = try documentListing(
                    at: head, tracking: trackingReferences.map(\.target),
                    known: cache.facts(), in: repository)
                cache.store(items, key: key)
            }
            return query.results(withDownloadStatus(items))
        }
    }

    /// Every document at `head` with its metadata, in tree order, computed from history.
    /// `known`: facts about immutable objects from an earlier listing (entry sizes, version
    /// commits' devices and dates), read instead of the objects.
    private func documentListing(
        at head: ObjectID, tracking: [ObjectID], known: DocumentListingCache.Facts,
        in repository: Repository
    ) throws -> [MetadataItem] {
        let conflicted = Set(try conflictState(in: repository).unresolvedByDocument().keys)
        var remoteChanged = Set<DocumentPath>()
        for tip in tracking where try !repository.isAncestorOrSame(tip, of: head) {
            let base = try repository.mergeBase(tip, head)
            let baseTree = try base.map { try repository.commit($0).treeID }
            for path in try repository.changedPaths(from: baseTree, to: repository.commit(tip).treeID) {
                remoteChanged.insert(DocumentPath.document(containingFile: path))
            }
        }
        let index = versionIndex(in: repository)
        let graph = VersionGraph(repository: repository, index: index)
        let entries = try documentEntries(in: repository.commit(head).treeID, repository: repository)
        // With the index, one walk shared by all documents finds each one's current version
        // and where its present run began; without it, each document walks on its own.
        let shared = index?.presentVersions(of: entries.map(\.0.path), from: head)
        let everDeleted = shared == nil ? [] : index?.deletedDocuments() ?? []
        // Uploaded: reachable from a tracking branch, i.e. not among the commits only this
        // device has (one walk, however many documents).
        let onlyHere: Set<ObjectID>? =
            tracking.isEmpty
            ? nil
            : try {
                var result = Set<ObjectID>()
                let walk = try repository.revwalk(from: [head], hiding: tracking, topological: false)
                while let id = try walk.next() { result.insert(id) }
                return result
            }()
        var dates: [ObjectID: Date] = [:]
        // Per version commit, its device and date, read once: a commit is shared by many
        // documents, and its device comes from parsing its message (a first save of 10,000
        // documents lists them all, so parsing it per document took seconds).
        var savers = known.savers
        var items: [MetadataItem] = []
        for (document, entry) in entries {
            let answer = shared?[ByteString(document.path)]
            let current: DocumentVersion
            if let answer {
                // The version holds the state the head holds: the head's entry, the
                // version commit's date and device.
                let saver =
                    try savers[answer.current]
                    ?? {
                        let commit = try repository.commit(answer.current)
                        return (commit.device, commit.author.time)
                    }()
                savers[answer.current] = saver
                current = try graph.version(
                    of: document, at: answer.current, device: saver.device,
                    modified: saver.modified, entry: entry, size: known.sizes[entry.id])
            } else {
                current = try graph.version(of: document, at: graph.introducingCommit(of: document.path, from: head))
            }
            let uploaded = onlyHere.map { !$0.contains(current.commitID) } ?? false
            let created: Date
            if let answer, answer.appearedAtRoot || !everDeleted.contains(ByteString(document.path)) {
                // Before its appearance the document never existed on this line: the
                // appearance is its oldest version.
                if let known = dates[answer.appeared] {
                    created = known
                } else {
                    created = try repository.commit(answer.appeared).author.time
                    dates[answer.appeared] = created
                }
            } else {
                created = try (graph.history(of: document, after: current, limit: nil).last ?? current).modified
            }
            items.append(
                MetadataItem(
                    document: document, created: created, current: current,
                    hasUnresolvedConflicts: conflicted.contains(document),
                    syncStatus: SyncStatus(isUploaded: uploaded, hasRemoteChanges: remoteChanged.contains(document))))
        }
        return items
    }

    /// Runs a query live: yields the gathered results first, then the new results each time
    /// they change, as saves and syncs happen in this process or another one. While the
    /// container's agent runs, the query subscribes to it and hears of every move of a
    /// reference at once; otherwise it polls the references every `pollInterval` (and tries
    /// to subscribe again at each poll). Each look and query runs off the cooperative pool.
    public func liveQuery(
        _ query: DocumentQuery = DocumentQuery(), pollInterval: Duration = .seconds(1),
        clock: any Clock<Duration> = ContinuousClock()
    ) -> AsyncThrowingStream<[MetadataItem], any Error> {
        let container = self
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    // Listening first: a move between the first look and the subscription is
                    // caught by the look every subscription begins with.
                    let changes = container.referenceChanges(pollInterval: pollInterval, clock: clock)
                    var signature = try await offCooperativePool { try container.referenceSignature() }
                    var last = try await offCooperativePool { try container.query(query) }
                    continuation.yield(last)
                    for await _ in changes {
                        if Task.isCancelled { break }
                        let now = try await offCooperativePool { try container.referenceSignature() }
                        guard now != signature else { continue }
                        signature = now
                        let results = try await offCooperativePool { try container.query(query) }
                        if results != last {
                            last = results
                            continuation.yield(results)
                        }
                    }
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

}
