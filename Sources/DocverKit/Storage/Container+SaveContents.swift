import Foundation

extension Container {
    /// The id of this device's head, or nil before the first save. Cheap: one reference read.
    public func headID() throws -> String? {
        try withRepository { try headCommit($0)?.hex }
    }

    /// Writes contents into the object database; nil for a deletion. `modes` gives a file's
    /// mode (key "" for a flat document, the component's path in a package; see
    /// ``mergedModes(of:refusing:in:)``): executable or a link where it says so, else a plain file.
    func writeContents(
        _ contents: DocumentContents, modes: [ByteString: FileMode] = [:],
        in repository: Repository
    ) throws -> EntryState? {
        switch contents {
        case .deleted: return nil
        case let .flat(data): return EntryState(try repository.writeBlob(data), Self.fileMode(modes[""]))
        case let .package(package): return EntryState(try writePackage(package.files, modes: modes, in: repository), .tree)
        }
    }

    private static func fileMode(_ mode: FileMode?) -> FileMode {
        mode == .executable || mode == .link ? mode! : .blob
    }

    func writePackage(
        _ files: [String: Data], modes: [ByteString: FileMode] = [:], prefix: String = "",
        in repository: Repository
    ) throws -> ObjectID {
        var direct: [(name: String, id: ObjectID, mode: FileMode)] = []
        var nested: [ByteString: [String: Data]] = [:]
        for (path, data) in files {
            if let slash = path.firstIndex(of: "/") {
                nested[ByteString(String(path[..<slash])), default: [:]][String(path[path.index(after: slash)...])] = data
            } else {
                direct.append((path, try repository.writeBlob(data), Self.fileMode(modes[ByteString(prefix + path)])))
            }
        }
        for (name, children) in nested {
            direct.append((name.string, try writePackage(children, modes: modes, prefix: prefix + name.string + "/", in: repository), .tree))
        }
        return try repository.writeTree(entries: direct)
    }

    /// Moves the branch to `new` when only `document` differs from `old`, writing the
    /// document's files atomically (temporary file + rename) under a ``WriteIntent``.
    func advanceDocument(
        _ document: DocumentPath, to new: ObjectID, from old: ObjectID?,
        in repository: Repository
    ) throws {
        try advanceBranch(to: new, from: old, message: "docver: save \(document.path)", in: repository)
    }
}
