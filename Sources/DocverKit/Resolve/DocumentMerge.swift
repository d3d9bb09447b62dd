import Foundation

/// Extensions merged line by line without further configuration.
let textExtensions: Set<String> = [
    "txt", "text", "md", "markdown", "rst", "org", "adoc", "tex", "csv", "tsv", "html", "htm", "xml", "svg",
    "css", "js", "ts", "swift", "c", "h", "cpp", "hpp", "py", "rb", "go", "rs", "java", "sh", "yaml", "yml",
    "toml", "ini", "cfg", "conf", "log", "srt", "vtt", "ics", "vcf", "note", "notes",
]

extension Container {
    /// Merges every version of a conflict into one, or explains why it cannot.
    func merge(_ conflict: Conflict, markers: Bool) throws -> Resolution {
        try withRepository { repository in
            let document = conflict.document
            let (others, baseOf) = try mergePlan(conflict, in: repository)
            var merged = try contents(of: conflict.current, in: repository)
            var clean = true
            var ourLabel = "\(conflict.current.device.name) (current)"
            for version in others {
                let base = try baseOf(version)
                let theirs = try contents(of: version, in: repository)
                let labels = (base: "base", ours: ourLabel, theirs: "\(version.device.name) (\(version.shortID))")
                let step = try mergeContents(
                    document: document, base: base, ours: merged, theirs: theirs,
                    labels: labels, markers: markers, in: repository)
                merged = step.contents
                clean = clean && step.clean
                ourLabel = "merged"
            }
            if clean, try !usesOpaqueMergeRule(document, merged, in: repository) {
                // A clean merge must hold every side's changes: merging any version into the
                // result again must change nothing. Otherwise an edit was dropped; refuse.
                for version in [conflict.current] + others {
                    // (The current version against the newest conflict version, as `Conflict.base`.)
                    let base = try baseOf(version == conflict.current ? conflict.conflicts[0] : version)
                    let again = try? mergeContents(
                        document: document, base: base, ours: merged,
                        theirs: contents(of: version, in: repository),
                        labels: ("base", "merged", "check"), markers: false, in: repository)
                    guard let again, again.clean, Self.equivalent(again.contents, merged, type: document.type) else {
                        throw DocverError.mergeFailed(
                            document: document.path,
                            reasons: [
                                "the changes of \(version.device.name) (\(version.shortID)) would not all be in the merge"
                            ])
                    }
                }
            }
            return clean ? .merged(merged) : .mergedWithMarkers(merged)
        }
    }

    /// What a content merge of a conflict folds, after the checks every content merge (the
    /// merge and the merge tool) makes before reading a version: a deletion, a file against a
    /// package, a version above the merge size, file modes changed differently. Each conflict
    /// version (`others`, oldest first: a stable fold) is merged with the current version
    /// against `base`, the state the two started from. The current state may be held by
    /// several versions (lines that reached the same bytes through different versions): the
    /// base is what all of them and the conflict version started from.
    func mergePlan(_ conflict: Conflict, in repository: Repository) throws
        -> (others: [DocumentVersion], base: (DocumentVersion) throws -> DocumentContents?)
    {
        let document = conflict.document
        let others = conflict.conflicts.sorted { Self.newestFirst($1, $0) }
        if let deletion = ([conflict.current] + others).first(where: \.isDeletion) {
            throw DocverError.notMergeable(
                document: document.path,
                reason: "\(deletion.device.name) deleted it while another device changed it; choose a version")
        }
        guard others.allSatisfy({ $0.kind == conflict.current.kind }) else {
            throw DocverError.notMergeable(document: document.path, reason: "one version is a file, another a package; choose a version")
        }
        try refuseLargeVersions(conflict, in: repository)
        _ = try mergedModes(of: conflict, refusing: true, in: repository)
        let graph = VersionGraph(repository: repository, index: versionIndex(in: repository))
        let currentSide = try graph.currentSide(conflict.current, path: document.path, head: headCommit(repository))
        return (others, { version in try self.mergeBase(of: currentSide, and: [version.commitID], document: document, graph: graph) })
    }

    /// Refuses a merge of a version larger than `docver.maxMergeSize` (default 64 MiB) before
    /// reading any: a content merge holds every version in memory, and a film is not merged.
    func refuseLargeVersions(_ conflict: Conflict, in repository: Repository) throws {
        guard
            let limit = try ConfigKey.byteSize(
                ConfigKey.maximumMergeSize, default: ConfigKey.defaultMaximumMergeSize,
                in: repository),
            let graph = Optional(VersionGraph(repository: repository, index: nil)),
            let (large, size) = try ([conflict.current] + conflict.conflicts).lazy.map({ ($0, try graph.size(of: $0)) })
                .first(where: { $0.1 > limit })
        else { return }
        throw DocverError.notMergeable(
            document: conflict.document.path,
            reason:
                "\(large.device.name)'s version (\(large.shortID)) is \(size) bytes, above docver.maxMergeSize (\(limit)); choose a version")
    }

    /// The file modes a merge of a conflict's versions keeps, as git's merge does: a mode the
    /// versions agree on, or one changed on one side only since their common ancestor. Modes
    /// changed differently on both sides (or, without an ancestor, modes that differ) are a
    /// conflict: thrown as ``DocverError/notMergeable(document:reason:)`` when `refusing`,
    /// else the current version's mode stays. Versions are folded in as ``merge(_:markers:)``
    /// folds their contents. Keys: "" for a flat document, component paths in a package.
    func mergedModes(of conflict: Conflict, refusing: Bool, in repository: Repository) throws -> [ByteString: FileMode] {
        let document = conflict.document
        let others = conflict.conflicts.sorted { Self.newestFirst($1, $0) }
        let graph = VersionGraph(repository: repository, index: versionIndex(in: repository))
        let currentSide = try graph.currentSide(conflict.current, path: document.path, head: headCommit(repository))
        var merged = try Self.fileModes(of: conflict.current, in: repository)
        for version in others where !version.isDeletion {
            let ancestor = try graph.commonAncestors(of: currentSide, and: [version.commitID], path: document.path).first
            let base = try ancestor.map { try Self.fileModes(of: graph.version(of: document, at: $0), in: repository) } ?? [:]
            let theirs = try Self.fileModes(of: version, in: repository)
            for name in theirs.keys {
                let (b, o, t) = (base[name], merged[name], theirs[name])
                guard let o, let t else { merged[name] = o ?? t; continue }
                if o == t || t == b { continue }
                if o == b { merged[name] = t; continue }
                guard refusing else { continue }
                let file = name.string.isEmpty ? document.path : document.path + "/" + name.string
                let reason =
                    Set([o.isExecutable, t.isExecutable]).count == 2 && o != .link && t != .link
                    ? "executable in one version, not in another" : "a link in one version, a file in another"
                throw DocverError.notMergeable(document: file, reason: "its file mode differs: \(reason); choose a version")
            }
        }
        return merged
    }

    /// The modes of a version's files: "" for a flat document, component paths in a package.
    static func fileModes(of version: DocumentVersion, in repository: Repository) throws -> [ByteString: FileMode] {
        guard let state = try entryState(of: version, in: repository) else { return [:] }
        guard state.mode.isTree else { return ["": state.mode] }
        var result: [ByteString: FileMode] = [:]
        func collect(_ tree: ObjectID, prefix: String) throws {
            try Repository.checkTreeDepth(prefix)
            for entry in try repository.tree(tree).entries {
                if entry.mode.isTree {
                    try collect(entry.id, prefix: prefix + entry.name + "/")
                } else {
                    result[ByteString(prefix + entry.name)] = entry.mode
                }
            }
        }
        try collect(state.id, prefix: "")
        return result
    }

    /// The contents a three-way merge of two versions starts from: their best common
    /// ancestor in the document's version graph; with several (after criss-cross merges),
    /// the ancestors merged into one, recursively, as git's recursive merge does (regions
    /// where the ancestors themselves disagree keep conflict markers, which then differ from
    /// both sides and surface as a conflict of the merge). nil when the two share no
    /// ancestor or it is the document's absence.
    func mergeBase(
        of a: [ObjectID], and b: [ObjectID], document: DocumentPath, graph: VersionGraph,
        depth: Int = 0
    ) throws -> DocumentContents? {
        let ancestors = try graph.commonAncestors(of: a, and: b, path: document.path)
        func contents(at id: ObjectID) throws -> DocumentContents? {
            let version = try graph.version(of: document, at: id)
            return version.isDeletion ? nil : try self.contents(of: version, in: graph.repository)
        }
        guard let first = ancestors.first else { return nil }
        var merged = try contents(at: first)
        // (Deep criss-crosses are rare; past a few levels the newest ancestor serves.)
        guard ancestors.count > 1, depth < 4 else { return merged }
        for next in ancestors.dropFirst() {
            // An ancestor that is the document's absence, or one that cannot be merged,
            // leaves the fold as it is: the base is then the newer ancestors' merge.
            guard let ours = merged, let theirs = try contents(at: next) else { continue }
            let base = try mergeBase(of: [first], and: [next], document: document, graph: graph, depth: depth + 1)
            if let step = try? mergeContents(
                document: document, base: base, ours: ours, theirs: theirs,
                labels: ("base", "ancestor", "ancestor"), markers: true, in: graph.repository)
            {
                merged = step.contents
            }
        }
        return merged
    }

    /// True when a `.gitattributes` merge driver or `merge=union` decides some file of the
    /// document: their results are theirs to vouch for, and are not checked again.
    private func usesOpaqueMergeRule(
        _ document: DocumentPath, _ contents: DocumentContents,
        in repository: Repository
    ) throws -> Bool {
        var paths = [document.path]
        if case let .package(package) = contents { paths += package.files.keys.map { document.path + "/" + $0 } }
        return try paths.contains { path in
            switch try repository.attribute("merge", for: path) {
            case .value(let rule): rule != "text" && rule != "binary"
            default: false
            }
        }
    }

    /// The same contents, where JSON is compared by value (its merge keeps each side's
    /// spelling of what it changed, so equal values may be written differently).
    static func equivalent(_ a: DocumentContents, _ b: DocumentContents, type: String) -> Bool {
        func sameFile(_ x: Data?, _ y: Data?, type: String) -> Bool {
            if x == y { return true }
            guard type == "json", let x, let y else { return false }
            return JSONMerge.sameValue(x, y)
        }
        switch (a, b) {
        case let (.flat(x), .flat(y)): return sameFile(x, y, type: type)
        case let (.package(x), .package(y)):
            return Set(x.files.keys) == Set(y.files.keys)
                && x.files.keys.allSatisfy { name in
                    sameFile(x.files[name], y.files[name], type: DocumentPath.fileExtension(of: String(name.split(separator: "/").last ?? "")) ?? "")
                }
        default: return a == b
        }
    }

    private func mergeContents(
        document: DocumentPath, base: DocumentContents?, ours: DocumentContents,
        theirs: DocumentContents, labels: (base: String, ours: String, theirs: String),
        markers: Bool, in repository: Repository
    ) throws -> (contents: DocumentContents, clean: Bool) {
        switch (ours, theirs) {
        case let (.flat(mine), .flat(other)):
            var baseData: Data?
            if case let .flat(data)? = base { baseData = data }
            let result = try mergeFlat(
                path: document.path, type: document.type, base: baseData, ours: mine, theirs: other,
                labels: labels, markers: markers, in: repository)
            return (.flat(result.data), result.clean)
        case let (.package(mine), .package(other)):
            var baseFiles: [String: Data] = [:]
            if case let .package(package)? = base { baseFiles = package.files }
            var result: [String: Data] = [:]
            var reasons: [String] = []
            var clean = true
            for name in Set(baseFiles.keys).union(mine.files.keys).union(other.files.keys).sorted() {
                let (b, o, t) = (baseFiles[name], mine.files[name], other.files[name])
                if o == t { result[name] = o; continue }
                if o == b { result[name] = t; continue }
                if t == b { result[name] = o; continue }
                guard let o, let t else {
                    reasons.append("component \(name) was deleted on one device and changed on another")
                    continue
                }
                let componentType = DocumentPath.fileExtension(of: String(name.split(separator: "/").last ?? "")) ?? ""
                do {
                    let merged = try mergeFlat(
                        path: document.path + "/" + name, type: componentType, base: b, ours: o,
                        theirs: t, labels: labels, markers: markers, in: repository)
                    result[name] = merged.data
                    clean = clean && merged.clean
                } catch let DocverError.mergeFailed(_, componentReasons) {
                    reasons += componentReasons.map { "component \(name): \($0)" }
                } catch let DocverError.notMergeable(_, reason) {
                    reasons.append("component \(name) changed on both devices: \(reason)")
                }
            }
            guard reasons.isEmpty else { throw DocverError.mergeFailed(document: document.path, reasons: reasons) }
            return (.package(FilePackage(files: result)), clean)
        default:
            throw DocverError.notMergeable(document: document.path, reason: "the versions are of different kinds")
        }
    }

    /// Merges one file's contents by the rule its attributes or type select.
    func mergeFlat(
        path: String, type: String, base: Data?, ours: Data, theirs: Data,
        labels: (base: String, ours: String, theirs: String), markers: Bool,
        in repository: Repository
    ) throws -> (data: Data, clean: Bool) {
        if ours == theirs { return (ours, true) }
        if let base, ours == base { return (theirs, true) }
        if let base, theirs == base { return (ours, true) }
        switch try repository.attribute("merge", for: path) {
        case .unset, .value("binary"):
            throw DocverError.notMergeable(document: path, reason: ".gitattributes marks it binary (merge=binary or -merge)")
        case .value("union"):
            return (try TextMerge.merge(base: base ?? Data(), ours: ours, theirs: theirs, labels: labels, favor: .union).merged, true)
        case .set, .value("text"):
            return try mergeText(path: path, base: base, ours: ours, theirs: theirs, labels: labels, markers: markers)
        case let .value(driver):
            return try runMergeDriver(driver, path: path, base: base, ours: ours, theirs: theirs, in: repository)
        case .unspecified:
            break
        }
        if type == "json" {
            return (try JSONMerge.merge(path: path, base: base, ours: ours, theirs: theirs), true)
        }
        let looksLikeText = [base ?? Data(), ours, theirs].allSatisfy { !$0.contains(0) && String(data: $0, encoding: .utf8) != nil }
        guard looksLikeText else {
            throw DocverError.notMergeable(document: path, reason: "its contents are binary; choose a version")
        }
        guard textExtensions.contains(type) || type.isEmpty else {
            throw DocverError.notMergeable(
                document: path,
                reason: "no merge rule for type '.\(type)'; configure a merge driver in .gitattributes or choose a version")
        }
        return try mergeText(path: path, base: base, ours: ours, theirs: theirs, labels: labels, markers: markers)
    }

    private func mergeText(
        path: String, base: Data?, ours: Data, theirs: Data,
        labels: (base: String, ours: String, theirs: String), markers: Bool
    ) throws -> (data: Data, clean: Bool) {
        let result = try TextMerge.merge(base: base ?? Data(), ours: ours, theirs: theirs, labels: labels)
        if result.clean { return (result.merged, true) }
        if markers { return (result.merged, false) }
        throw DocverError.mergeFailed(document: path, reasons: Self.conflictRegions(in: result.merged, labels: (labels.ours, labels.theirs)))
    }

    /// Describes each conflicting region of a merge result (diff3 style, as ``TextMerge``
    /// writes it) by the lines of the two versions it came from, which the user can open,
    /// not by lines of the merged text, which nobody sees: "both devices changed the same
    /// lines: bob (current) line 2, alice (1a2b3c4d5e6f) line 2".
    static func conflictRegions(in merged: Data, labels: (ours: String, theirs: String)) -> [String] {
        func describe(_ label: String, _ side: (first: Int, count: Int)) -> String {
            switch side.count {
            case 0: "\(label) removed them (after line \(side.first - 1))"
            case 1: "\(label) line \(side.first)"
            default: "\(label) lines \(side.first)-\(side.first + side.count - 1)"
            }
        }
        let regions = ConflictMarkers.sides(in: merged).map {
            "both devices changed the same lines: " + describe(labels.ours, $0.ours) + ", " + describe(labels.theirs, $0.theirs)
        }
        return regions.isEmpty ? ["overlapping changes"] : regions
    }

    /// Runs a merge driver configured the git way: `merge.NAME.driver` with `%O %A %B %L %P`;
    /// exit status 0 means merged (the result is what the driver left in `%A`).
    private func runMergeDriver(
        _ name: String, path: String, base: Data?, ours: Data, theirs: Data,
        in repository: Repository
    ) throws -> (data: Data, clean: Bool) {
        guard let command = try repository.configString("merge.\(name).driver") else {
            throw DocverError.notMergeable(document: path, reason: "merge driver '\(name)' has no merge.\(name).driver command in git config")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("docver-merge-\(UUID().uuidString)")
        try FileSystem.createDirectory(directory.path)
        defer { try? FileSystem.remove(directory.path) }
        let files = ["O": base ?? Data(), "A": ours, "B": theirs]
        for (key, data) in files { try AtomicFile.write(data, to: directory.appendingPathComponent(key).path) }
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        var expanded = ""
        var iterator = command.makeIterator()
        while let character = iterator.next() {
            guard character == "%" else { expanded.append(character); continue }
            switch iterator.next() {
            case "O": expanded += quoted(directory.appendingPathComponent("O").path)
            case "A": expanded += quoted(directory.appendingPathComponent("A").path)
            case "B": expanded += quoted(directory.appendingPathComponent("B").path)
            case "P": expanded += quoted(path)
            case "L": expanded += "7"
            case "%": expanded += "%"
            case let other?: expanded += "%" + String(other)
            case nil: expanded += "%"
            }
        }
        let outcome = try Subprocess.shell(expanded, directory: root)
        guard outcome.status == 0 else {
            throw DocverError.mergeFailed(document: path, reasons: ["merge driver '\(name)' reported a conflict (exit \(outcome.status))"])
        }
        guard let merged = FileSystem.contentsIfReadable(directory.appendingPathComponent("A").path) else {
            throw DocverError.mergeFailed(document: path, reasons: ["merge driver '\(name)' left no result"])
        }
        return (merged, true)
    }
}
