import Foundation

// docs/FORMAT.md, "Local metadata", `intent`: what a multi-step write is about to do, written
// before this device's branch moves and removed once the working tree and the index agree
// with the new head. Local to the device, never synced.

/// The intent of one multi-step write: the branch move it makes and, for every file it may
/// touch, the state the file had in the old tree and the state it should end with.
///
/// A process that finds an intent left by a crash can tell, file by file, docver's own
/// unfinished write (the file still holds the old state) from a user's edit (anything else),
/// because docver writes every file by temporary file + rename: a file is never half
/// written.
struct WriteIntent: Equatable {
    /// What the write was; decides whether recovery writes files or only refreshes the index.
    enum Operation: String, Equatable, CaseIterable {
        /// A save: the files are already in the working tree; only the index follows.
        case save
        /// An integration of fetched heads (sync, integrate) or an editor's save that competed.
        case integrate
        /// resolve, restore, replace: one document's new state is written to the working tree.
        case writeDocument = "write-document"
        /// download: evicted documents' files are written back (the branch does not move).
        case download

        /// True when the operation writes the planned files into the working tree.
        var writesFiles: Bool { self != .save }
    }

    /// One file the write may touch. `nil` states mean "absent".
    struct File: Equatable {
        var path: String
        var old: EntryState?
        var new: EntryState?
    }

    static let formatVersion = 1

    var operation: Operation
    /// The branch head before the write (nil: the branch did not exist).
    var from: ObjectID?
    /// The commit the branch moves to.
    var to: ObjectID
    var files: [File]

    /// The bytes of the `intent` file (JSON, keys sorted), written directly: a clone of
    /// 10,000 documents spent 6 % of its time in `JSONEncoder` for this one file. It reads
    /// back through `JSONDecoder` (``parse(_:)``) like the encoder's own output.
    func render() -> Data {
        func state(_ state: EntryState) -> String {
            let encoded = Encoded.State(state)
            return "{\"id\":\"" + encoded.id + "\",\"mode\":" + JSONWriter.string(encoded.mode) + "}"
        }
        var text = "{\"files\":["
        text.reserveCapacity(files.count * 160 + 200)
        for (number, file) in files.enumerated() {
            if number > 0 { text += "," }
            text += "{"
            if let new = file.new { text += "\"new\":" + state(new) + "," }
            if let old = file.old { text += "\"old\":" + state(old) + "," }
            text += "\"path\":" + JSONWriter.string(file.path) + "}"
        }
        text += "]"
        if let from { text += ",\"from\":\"" + from.hex + "\"" }
        text += ",\"operation\":" + JSONWriter.string(operation.rawValue)
        text += ",\"to\":\"" + to.hex + "\",\"version\":" + String(Self.formatVersion) + "}"
        return Data(text.utf8)
    }

    /// Parses an `intent` file; nil when it is not one this version wrote (unreadable,
    /// another format version, a bad id or mode).
    static func parse(_ data: Data) -> WriteIntent? {
        guard let encoded = try? JSONDecoder().decode(Encoded.self, from: data), encoded.version == formatVersion,
            let operation = Operation(rawValue: encoded.operation),
            let to = ObjectID(hex: encoded.to)
        else { return nil }
        var from: ObjectID?
        if let hex = encoded.from {
            guard let id = ObjectID(hex: hex) else { return nil }
            from = id
        }
        var files: [File] = []
        for file in encoded.files {
            guard !file.path.isEmpty else { return nil }
            var old: EntryState?, new: EntryState?
            if let state = file.old { guard let parsed = state.entryState else { return nil }; old = parsed }
            if let state = file.new { guard let parsed = state.entryState else { return nil }; new = parsed }
            files.append(File(path: file.path, old: old, new: new))
        }
        return WriteIntent(operation: operation, from: from, to: to, files: files)
    }

    private struct Encoded: Codable {
        struct State: Codable {
            var id: String
            var mode: String

            init(_ state: EntryState) {
                id = state.id.hex
                mode = State.names.first { $0.value == state.mode }?.key ?? "blob"
            }

            static let names: [String: FileMode] = ["blob": .blob, "executable": .executable, "link": .link, "tree": .tree]

            var entryState: EntryState? {
                guard let id = ObjectID(hex: id), let mode = State.names[mode] else { return nil }
                return EntryState(id, mode)
            }
        }

        struct File: Codable {
            var path: String
            var old: State?
            var new: State?
        }

        var version: Int
        var operation: String
        var from: String?
        var to: String
        var files: [File]
    }
}
