internal import Clibgit2
import Foundation

// A fetch from a bare repository on this machine, without libgit2's local transport.
//
// libgit2 1.5's local transport builds a new pack of everything the fetch wants: it reads
// every object, searches deltas for it (two threads), compresses it again, and then indexes
// what it just wrote. On a join of 8 devices × 800 saves that was two thirds of docver's CPU
// time, where `git clone --no-local` lets `upload-pack` send the deltas already stored. git
// itself copies or hard-links a local repository's packs (`git clone --local`); this does
// the same, except that every pack goes through libgit2's indexer as a received pack would,
// so each object is inflated and hashed (its id checked) before docver trusts it.

extension Repository {
    /// Fetches the references of the bare repository at `path` whose names start with
    /// `sourcePrefix` into references named with `destinationPrefix` instead (forced, as a
    /// `+` refspec does; none is deleted), bringing the objects by indexing the packs of that
    /// repository that hold an object missing here and copying its loose objects.
    ///
    /// Returns false, having moved no reference, when some wanted commit is still missing
    /// afterwards (a repository being repacked meanwhile, an unreadable object): the caller
    /// then fetches through libgit2's transport. `progress` receives the indexer's counts.
    func fetchLocally(
        from path: String, sourcePrefix: String, destinationPrefix: String, message: String,
        bigSize: Int64 = pieceByPieceSize, progress: ((TransferCounts) -> Void)?
    ) throws -> Bool {
        let source = try Repository(opening: path, search: false)
        // A reference whose name git refuses (a file put under refs/ by hand) is ignored, as
        // git ignores it, rather than failing the whole fetch on the name it would get here.
        let heads = try source.references(matching: sourcePrefix + "*").filter { head in
            Self.isValidReferenceName(head.name)
                && Self.isValidReferenceName(destinationPrefix + head.name.dropFirst(sourcePrefix.count))
        }
        if try heads.contains(where: { try !objectExists($0.target) }) {
            let packs = source.gitDirectory + "objects/pack"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: packs)) ?? []
            // A pack becomes part of a repository when its index is there (git and libgit2
            // write the index last): a pack without one is still being written. A pack
            // indexed here before has the same name here (libgit2 names a pack by its checksum).
            var wanted: [(pack: String, objects: Int)] = []
            for name in names.sorted() where name.hasSuffix(".idx") {
                let stem = String(name.dropLast(".idx".count))
                let pack = packs + "/" + stem + ".pack"
                guard FileManager.default.fileExists(atPath: pack),
                    !FileManager.default.fileExists(atPath: gitDirectory + "objects/pack/" + stem + ".idx"),
                    incomingObjects.map({ !FileManager.default.fileExists(atPath: $0 + "/pack/" + stem + ".idx") }) ?? true,
                    let objects = try missingObjects(packIndex: packs + "/" + name)
                else { continue }
                wanted.append((pack, objects))
            }
            // One count over all the packs, so the reports only grow.
            var reporter = IndexerProgress(report: progress, totalObjects: wanted.reduce(0) { $0 + $1.objects })
            let folder = (incomingObjects ?? gitDirectory + "objects") + "/pack"
            for (pack, objects) in wanted {
                do {
                    // A pack of whole objects holding a big one is copied and checked a piece at
                    // a time (PackImport.swift); any other goes through libgit2's indexer.
                    let index = String(pack.dropLast(".pack".count)) + ".idx"
                    if let entries = PackImport.candidate(index: index, pack: pack, bigSize: bigSize) {
                        let before = reporter.bytes
                        let done = reporter.doneObjects
                        let total = reporter.totalObjects
                        let report = reporter.report
                        _ = try PackImport.importPack(pack, entries: entries, into: folder) { copied in
                            report?(TransferCounts(objects: done, totalObjects: total, indexedObjects: done, bytes: before + copied))
                        }
                        reporter.bytes = before + ((FileStat(path: pack)?.size).map { Int($0) } ?? 0)
                        report?(
                            TransferCounts(
                                objects: done + objects, totalObjects: total, indexedObjects: done + objects, bytes: reporter.bytes))
                    } else {
                        try indexPack(at: pack, reporter: &reporter)
                    }
                } catch let error as GitError where error.code == .invalid {
                    // A damaged pack: libgit2's transport would read the same bytes.
                    throw error
                } catch {
                    return false
                }
                reporter.doneObjects += objects
            }
            let corruption: Error?
            do {
                corruption = try copyLooseObjects(from: source)
            } catch {
                return false
            }
            var odb: OpaquePointer?
            try check(git_repository_odb(&odb, pointer))
            defer { git_odb_free(odb) }
            _ = git_odb_refresh(odb)
            guard try heads.allSatisfy({ try objectExists($0.target) }) else {
                // libgit2's transport would read the same damaged file, and inflate it forever.
                if let corruption { throw corruption }
                return false
            }
        }
        let current = Dictionary(
            try references(matching: destinationPrefix + "*").map { ($0.name, $0.target) },
            uniquingKeysWith: { first, _ in first })
        for (name, target) in heads {
            let local = destinationPrefix + name.dropFirst(sourcePrefix.count)
            if current[local] != target { try forceReference(local, to: target, message: message) }
        }
        return true
    }

    /// When the pack index at `path` lists an object this repository lacks, the number of
    /// objects it lists (0 when it cannot be read as a version 2 index, which git has written
    /// since 2009: the pack is then indexed in any case); nil when every object is here.
    private func missingObjects(packIndex path: String) throws -> Int? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return 0 }
        return try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Int? in
            let header = 8, fanout = 256 * 4
            guard bytes.count >= header + fanout, bytes[0] == 0xFF, bytes[1] == 0x74, bytes[2] == 0x4F, bytes[3] == 0x63
            else { return 0 }
            func bigEndian(_ offset: Int) -> Int {
                (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
            }
            guard bigEndian(4) == 2 else { return 0 }
            let count = bigEndian(header + 255 * 4)
            let start = header + fanout
            guard bytes.count >= start + count * 20 else { return 0 }
            var odb: OpaquePointer?
            try check(git_repository_odb(&odb, pointer))
            defer { git_odb_free(odb) }
            var oid = git_oid()
            for index in 0..<count {
                withUnsafeMutableBytes(of: &oid.id) { raw in
                    raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[(start + index * 20)..<(start + index * 20 + 20)]))
                }
                if git_odb_exists(odb, &oid) != 1 { return count }
            }
            return nil
        }
    }

    /// Feeds the pack file at `path` to libgit2's indexer, which checks every object's id and
    /// writes the pack and its index into this repository (under temporary names, renamed
    /// when complete).
    private func indexPack(at path: String, reporter: inout IndexerProgress) throws {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer))
        defer { git_odb_free(odb) }
        var options = git_indexer_options()
        try check(git_indexer_options_init(&options, UInt32(GIT_INDEXER_OPTIONS_VERSION)))
        try withUnsafeMutablePointer(to: &reporter) { reporterPointer in
            if reporterPointer.pointee.report != nil {
                options.progress_cb = indexerProgressCallback
                options.progress_cb_payload = UnsafeMutableRawPointer(reporterPointer)
            }
            var indexer: OpaquePointer?
            // Into the quarantine when there is one (Repository+Incoming.swift).
            try check(git_indexer_new(&indexer, (incomingObjects ?? gitDirectory + "objects") + "/pack", 0, odb, &options))
            defer { git_indexer_free(indexer) }
            guard let file = fopen(path, "rb") else {
                throw GitError(code: .notFound, message: "cannot open \(path)", function: "fopen")
            }
            defer { fclose(file) }
            var stats = git_indexer_progress()
            let size = 1 << 20
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let count = fread(buffer, 1, size, file)
                // (The indexer counts objects; bytes are what a transport would have received.)
                reporterPointer.pointee.bytes += count
                if count > 0 { try check(git_indexer_append(indexer, buffer, count, &stats)) }
                if count < size {
                    if ferror(file) != 0 { throw GitError(code: .other(-1), message: "cannot read \(path)", function: "fread") }
                    break
                }
            }
            try check(git_indexer_commit(indexer, &stats))
        }
    }

    /// Copies the loose objects of `source` this repository lacks, each read (inflated) there
    /// and written here under the id its contents hash to. A truncated or damaged one is left
    /// where it is (it may be unreachable there, as after an interrupted write) and the first
    /// such error is returned: the caller reports it when a wanted commit is missing.
    private func copyLooseObjects(from source: Repository) throws -> Error? {
        var corruption: Error?
        let objects = source.gitDirectory + "objects"
        let hex = Set("0123456789abcdef")
        var sourceODB: OpaquePointer?, odb: OpaquePointer?
        try check(git_repository_odb(&sourceODB, source.pointer))
        defer { git_odb_free(sourceODB) }
        try check(git_repository_odb(&odb, pointer))
        defer { git_odb_free(odb) }
        for folder in (try? FileManager.default.contentsOfDirectory(atPath: objects)) ?? []
        where folder.count == 2 && folder.allSatisfy(hex.contains) {
            for file in (try? FileManager.default.contentsOfDirectory(atPath: objects + "/" + folder)) ?? []
            where file.count == 38 && file.allSatisfy(hex.contains) {
                guard let id = ObjectID(hex: folder + file), try !objectExists(id) else { continue }
                // libgit2 would inflate a truncated loose object forever.
                do {
                    try source.refuseTruncatedLooseObject(id)
                } catch {
                    if corruption == nil { corruption = error }
                    continue
                }
                // A big blob is copied a piece at a time (issue 29).
                if try copyBigBlob(id, from: source) { continue }
                var object: OpaquePointer?
                var raw = id.raw
                try check(git_odb_read(&object, sourceODB, &raw))
                defer { git_odb_object_free(object) }
                var written = git_oid()
                try check(
                    git_odb_write(
                        &written, odb, git_odb_object_data(object), git_odb_object_size(object),
                        git_odb_object_type(object)))
            }
        }
        return corruption
    }
}

/// The indexer's counts over several packs, reported as one fetch's.
private struct IndexerProgress {
    var report: ((TransferCounts) -> Void)?
    /// The objects of every pack to index.
    var totalObjects: Int
    /// The objects of the packs already indexed.
    var doneObjects = 0
    /// The bytes read from every pack so far.
    var bytes = 0
}

private let indexerProgressCallback: git_indexer_progress_cb = { stats, payload in
    guard let stats, let payload else { return 0 }
    let reporter = payload.assumingMemoryBound(to: IndexerProgress.self)
    let done = reporter.pointee.doneObjects
    reporter.pointee.report?(
        TransferCounts(
            objects: done + Int(stats.pointee.received_objects),
            totalObjects: max(reporter.pointee.totalObjects, done + Int(stats.pointee.total_objects)),
            indexedObjects: done + Int(stats.pointee.indexed_objects),
            bytes: reporter.pointee.bytes))
    return 0
}
