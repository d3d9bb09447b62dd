import Foundation

// docs/FORMAT.md, "Local metadata" (`evicted`) and "Placeholders": the documents whose
// contents were evicted from this device, and the file each leaves in its place.

/// `.git/docver/evicted`: the documents evicted from this device (`docver evict`), one path a
/// line, in byte order. A listed document whose file is absent while its placeholder is there
/// is evicted: its absence is not a deletion. Whatever else the working tree holds at its name
/// wins: a file there is the document (downloaded, or written anew), and a missing placeholder
/// with no file is a deletion, as deleting an `.icloud` file deletes the item in iCloud.
enum EvictedFile {
    static func read(_ path: String) -> [DocumentPath] {
        guard let data = FileSystem.localContentsIfReadable(path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { try? DocumentPath(String($0)) }
    }

    static func write(_ documents: [DocumentPath], to path: String) throws {
        if documents.isEmpty {
            try DocverError.wrapping { try FileSystem.remove(path) }
            return
        }
        var unique: [ByteString: DocumentPath] = [:]
        for document in documents { unique[ByteString(document.path)] = document }
        let text = unique.keys.sorted().map { $0.string + "\n" }.joined()
        try DocverError.wrapping { try AtomicFile.write(Data(text.utf8), to: path, flush: true) }
    }
}

/// The file an evicted document leaves in its place: `<name>.evicted.txt` beside it, a text
/// that says what it stands for and how to bring it back.
enum Placeholder {
    static let suffix = ".evicted.txt"

    /// The placeholder's path (relative to the container) for `document`.
    static func path(of document: DocumentPath) -> String { document.path + suffix }

    /// Whether the placeholder's name fits in a file name (255 bytes on Linux's file systems).
    static func fits(_ document: DocumentPath) -> Bool { document.name.utf8.count + suffix.utf8.count <= 255 }

    /// The document a placeholder path stands for, when it is named like one.
    static func document(of path: String) -> DocumentPath? {
        guard path.utf8.count > suffix.utf8.count, path.hasSuffix(suffix) else { return nil }
        let name = String(decoding: path.utf8.dropLast(suffix.utf8.count), as: UTF8.self)
        guard !name.hasSuffix("/") else { return nil }
        return DocumentPath(trusted: name)
    }

    /// What the placeholder says.
    static func text(of document: DocumentPath) -> String {
        """
        \(document.name) is not on this device: docver evicted its contents to free space.
        The remote keeps every version of it. To bring it back, run in this folder:

            docver download '\(document.name.replacingOccurrences(of: "'", with: "'\\''"))'

        Delete this file to delete the document, as you would delete the document itself.

        """
    }
}

/// `.git/docver/downloading`: what a running `download` has brought so far, for the metadata
/// of other processes (``MetadataItem/isDownloading``). The first line is the downloading
/// process's id; then one line a document, `<percent>\t<path>`. Left by a killed download, it
/// names a process that is gone, and is ignored.
enum DownloadProgressFile {
    static func read(_ path: String) -> [ByteString: Double] {
        guard let data = FileSystem.localContentsIfReadable(path) else { return [:] }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        guard let first = lines.first, let pid = Int32(first), pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return [:] }
        var result: [ByteString: Double] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: "\t", maxSplits: 1)
            guard parts.count == 2, let percent = Double(parts[0]) else { continue }
            result[ByteString(String(parts[1]))] = min(100, max(0, percent))
        }
        return result
    }

    static func write(_ progress: [(document: DocumentPath, percent: Double)], to path: String) {
        let text = "\(getpid())\n" + progress.map { "\($0.percent)\t\($0.document.path)\n" }.joined()
        try? AtomicFile.write(Data(text.utf8), to: path, flush: false)
    }
}
