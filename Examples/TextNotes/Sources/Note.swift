import DocverKit
import Foundation

/// A note: a flat text document, edited line by line. It is the whole model an editor gives
/// docver: how to load it from stored bytes and how to store it.
struct Note: DocumentModel, Hashable {
    var lines: [String]

    init(lines: [String] = []) { self.lines = lines }

    init(contents: DocumentContents, type: String) throws {
        guard case let .flat(data) = contents else { throw NoteError("a note is a flat text document, not a package") }
        let text = String(decoding: data, as: UTF8.self)
        lines = text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }  // the final newline ends the last line
    }

    func contents(forType type: String) throws -> DocumentContents {
        .flat(Data(lines.map { $0 + "\n" }.joined().utf8))
    }

    /// The note with line numbers, as `show` prints it.
    var numbered: String {
        lines.isEmpty ? "  (empty)" : lines.enumerated().map { "  \($0.offset + 1)  \($0.element)" }.joined(separator: "\n")
    }
}

struct NoteError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension DocumentContents {
    /// The lines of a flat version, for listing versions.
    var noteLines: [String] { (try? Note(contents: self, type: "txt").lines) ?? [] }
}
