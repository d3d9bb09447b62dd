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
            let others = conflict.conflicts.sorted { Self.newestFirst($1, $0) } // oldest first: a stable fold
            if let deletion = ([conflict.current] + others).first(where: \.isDeletion) {
                throw DocverError.notMergeable(document: document.path,
                                               reason: "\(deletion.device.name) deleted it while another device changed it; choose a version")
            }
            guard others.allSatisfy({ $0.kind == conflict.current.kind }) else {
                throw DocverError.notMergeable(document: document.path, reason: "one version is a file, another a package; choose a version")
            }
            // Each conflict version is merged against its own base with the current version
            // (the state the two started from), folded in one at a time, oldest first.
            var merged = try contents(of: conflict.current, in: repository)
            var clean = true
            var ourLabel = "\(conflict.current.device.name) (current)"
            for version in others {
                let base = try conflict.base(of: version).map { try contents(of: $0, in: repository) }
                let theirs = try contents(of: version, in: repository)
                let labels = (base: "base", ours: ourLabel, theirs: "\(version.device.name) (\(version.shortID))")
                let step = try mergeContents(document: document, base: base, ours: merged, theirs: theirs,
                                             labels: labels, markers: markers, in: repository)
                merged = step.contents
                clean = clean && step.clean
                ourLabel = "merged"
            }
            if clean, try !usesOpaqueMergeRule(document, merged, in: repository) {
                // A clean merge must hold every side's changes: merging any version into the
                // result again must change nothing. Otherwise an edit was dropped; refuse.
                for version in [conflict.current] + others {
                    let base = try version == conflict.current
                        ? conflict.base.map { try contents(of: $0, in: repository) }
                        : conflict.base(of: version).map { try contents(of: $0, in: repository) }
                    let again = try? mergeContents(document: document, base: base, ours: merged,
                                                   theirs: contents(of: version, in: repository),
                                                   labels: ("base", "merged", "check"), markers: false, in: repository)
                    guard let again, again.clean, Self.equivalent(again.contents, merged, type: document.type) else {
                        throw DocverError.mergeFailed(document: document.path, reasons: [
                            "the changes of \(version.device.name) (\(version.shortID)) would not all be in the merge",
                        ])
                    }
                }
            }
            return clean ? .merged(merged) : .mergedWithMarkers(merged)
        }
    }

    /// True when a `.gitattributes` merge driver or `merge=union` decides some file of the
    /// document: their results are theirs to vouch for, and are not checked again.
    private func usesOpaqueMergeRule(_ document: DocumentPath, _ contents: DocumentContents,
                                     in repository: Repository) throws -> Bool {
        var paths = [document.path]
        if case let .package(package) = contents { paths += package.files.keys.map { document.path + "/" + $0 } }
        return try paths.contains { path in
            switch try repository.attribute("merge", for: path) {
            case .value(let rule): rule != "text" && rule != "binary"
            default: false
            }
        }
    }

    /// The same contents, where JSON is compared by value (its merge re-encodes).
    static func equivalent(_ a: DocumentContents, _ b: DocumentContents, type: String) -> Bool {
        func sameFile(_ x: Data?, _ y: Data?, type: String) -> Bool {
            if x == y { return true }
            guard type == "json", let x, let y,
                  let valueX = try? JSONDecoder().decode(JSONValue.self, from: x),
                  let valueY = try? JSONDecoder().decode(JSONValue.self, from: y) else { return false }
            return valueX == valueY
        }
        switch (a, b) {
        case let (.flat(x), .flat(y)): return sameFile(x, y, type: type)
        case let (.package(x), .package(y)):
            return Set(x.files.keys) == Set(y.files.keys) && x.files.keys.allSatisfy { name in
                sameFile(x.files[name], y.files[name], type: DocumentPath.fileExtension(of: String(name.split(separator: "/").last ?? "")) ?? "")
            }
        default: return a == b
        }
    }

    private func mergeContents(document: DocumentPath, base: DocumentContents?, ours: DocumentContents,
                               theirs: DocumentContents, labels: (base: String, ours: String, theirs: String),
                               markers: Bool, in repository: Repository) throws -> (contents: DocumentContents, clean: Bool) {
        switch (ours, theirs) {
        case let (.flat(mine), .flat(other)):
            var baseData: Data?
            if case let .flat(data)? = base { baseData = data }
            let result = try mergeFlat(path: document.path, type: document.type, base: baseData, ours: mine, theirs: other,
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
                    let merged = try mergeFlat(path: document.path + "/" + name, type: componentType, base: b, ours: o,
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
    func mergeFlat(path: String, type: String, base: Data?, ours: Data, theirs: Data,
                   labels: (base: String, ours: String, theirs: String), markers: Bool,
                   in repository: Repository) throws -> (data: Data, clean: Bool) {
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
            throw DocverError.notMergeable(document: path,
                                           reason: "no merge rule for type '.\(type)'; configure a merge driver in .gitattributes or choose a version")
        }
        return try mergeText(path: path, base: base, ours: ours, theirs: theirs, labels: labels, markers: markers)
    }

    private func mergeText(path: String, base: Data?, ours: Data, theirs: Data,
                           labels: (base: String, ours: String, theirs: String), markers: Bool) throws -> (data: Data, clean: Bool) {
        let result = try TextMerge.merge(base: base ?? Data(), ours: ours, theirs: theirs, labels: labels)
        if result.clean { return (result.merged, true) }
        if markers { return (result.merged, false) }
        throw DocverError.mergeFailed(document: path, reasons: Self.conflictRegions(in: result.merged))
    }

    /// Describes each conflicting region of a merge result by its line numbers.
    static func conflictRegions(in merged: Data) -> [String] {
        let regions = ConflictMarkers.regions(in: merged).map {
            "both devices changed the same lines (merged text lines \($0.lowerBound)-\($0.upperBound))"
        }
        return regions.isEmpty ? ["overlapping changes"] : regions
    }

    /// Runs a merge driver configured the git way: `merge.NAME.driver` with `%O %A %B %L %P`;
    /// exit status 0 means merged (the result is what the driver left in `%A`).
    private func runMergeDriver(_ name: String, path: String, base: Data?, ours: Data, theirs: Data,
                                in repository: Repository) throws -> (data: Data, clean: Bool) {
        guard let command = try repository.configString("merge.\(name).driver") else {
            throw DocverError.notMergeable(document: path, reason: "merge driver '\(name)' has no merge.\(name).driver command in git config")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("docver-merge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = ["O": base ?? Data(), "A": ours, "B": theirs]
        for (key, data) in files { try data.write(to: directory.appendingPathComponent(key)) }
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", expanded]
        process.currentDirectoryURL = root
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw DocverError.mergeFailed(document: path, reasons: ["merge driver '\(name)' reported a conflict (exit \(process.terminationStatus))"])
        }
        return (try Data(contentsOf: directory.appendingPathComponent("A")), true)
    }
}

/// A JSON value that keeps integers and floating-point numbers apart.
enum JSONValue: Codable, Equatable {
    case null, bool(Bool), integer(Int64), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .integer(value): try container.encode(value)
        case let .number(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }
}

/// Structural three-way merge of JSON documents: objects are merged key by key; any other
/// value changed to different values on both sides is a conflict, reported by its JSON path.
enum JSONMerge {
    static func merge(path: String, base: Data?, ours: Data, theirs: Data) throws -> Data {
        func parse(_ data: Data, _ side: String) throws -> JSONValue {
            do { return try JSONDecoder().decode(JSONValue.self, from: data) } catch {
                throw DocverError.notMergeable(document: path, reason: "the \(side) version is not valid JSON")
            }
        }
        let baseValue = try base.map { try parse($0, "base") }
        var conflicts: [String] = []
        let merged = merge(baseValue, try parse(ours, "current"), try parse(theirs, "other"), at: "$", conflicts: &conflicts)
        guard conflicts.isEmpty, let merged else {
            throw DocverError.mergeFailed(document: path, reasons: conflicts.map { "\($0) changed to different values on both devices" })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(merged) + Data("\n".utf8)
    }

    /// nil stands for "absent" (a deleted or never-present key).
    private static func merge(_ base: JSONValue?, _ ours: JSONValue?, _ theirs: JSONValue?, at path: String,
                              conflicts: inout [String]) -> JSONValue? {
        if ours == theirs { return ours }
        if ours == base { return theirs }
        if theirs == base { return ours }
        if case let .object(mine)? = ours, case let .object(other)? = theirs {
            var baseObject: [String: JSONValue] = [:]
            if case let .object(object)? = base { baseObject = object }
            var result: [String: JSONValue] = [:]
            for key in Set(mine.keys).union(other.keys).union(baseObject.keys).sorted() {
                if let value = merge(baseObject[key], mine[key], other[key], at: path + "." + key, conflicts: &conflicts) {
                    result[key] = value
                }
            }
            return .object(result)
        }
        conflicts.append(path)
        return ours
    }
}
