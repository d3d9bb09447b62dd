import Foundation

// docs/FORMAT.md, "Local files": `checked-heads`, the device heads that passed the arrival
// checks (``ArrivalValidator``) under the settings its first line names, each with the head of
// this device they were checked against.

enum CheckedHeadsFile {
    /// Raised whenever the arrival checks check more: heads checked by an earlier build are
    /// then checked again.
    static let checksVersion = 1

    /// The first line: the checks' version and the settings a result depends on (the largest
    /// document accepted, and whether a file's contents may be missing).
    static func settings(maximumDocumentSize: Int64?, contentsMayBeMissing: Bool) -> String {
        "docver-checked-heads\t\(checksVersion)\t\(maximumDocumentSize.map(String.init) ?? "-")\t\(contentsMayBeMissing ? 1 : 0)"
    }

    /// Per head recorded under `settings`, the head of this device it was checked against (nil:
    /// this device had none, and everything the head brings was checked). Nothing when the
    /// file is missing, unreadable, or written under other settings; a malformed line is
    /// skipped.
    static func read(_ path: String, settings: String) -> [ObjectID: ObjectID?] {
        guard let data = FileSystem.contentsIfReadable(path) else { return [:] }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        guard lines.first.map(String.init) == settings else { return [:] }
        var heads: [ObjectID: ObjectID?] = [:]
        for line in lines.dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 2, let head = ObjectID(hex: String(fields[0])) else { continue }
            if fields[1] == "-" {
                heads[head] = .some(nil)
            } else if let trusted = ObjectID(hex: String(fields[1])) {
                heads[head] = trusted
            }
        }
        return heads
    }

    /// The file's contents: the settings line, then `<head> <trusted head or ->` per head, sorted.
    static func render(_ heads: [ObjectID: ObjectID?], settings: String) -> Data {
        let lines = heads.map { head, trusted in head.hex + " " + (trusted?.hex ?? "-") }.sorted()
        return Data(([settings] + lines).map { $0 + "\n" }.joined().utf8)
    }
}
