import DocverKit
import Foundation

/// How `docver diff` prints patches: git's format, so `docver diff | git apply` works, with
/// what the sides are (version, device, date) on a line of its own before each document's
/// patch, where `git apply` skips it, never in the `---`/`+++` lines.
enum PatchText {
    static func render(_ diffs: [DocumentDiff], labelled: Bool, colored: Bool) -> String {
        var output = ""
        for diff in diffs where !diff.isEmpty {
            if labelled {
                output += paint(
                    "# \(DocverError.printable(diff.document.path)): \(label(diff.old)) -> \(label(diff.new))\n",
                    Style.label, colored)
            }
            for file in diff.files { output += colored ? paintPatch(file.text) : file.text }
        }
        return output
    }

    static func label(_ side: DiffSide) -> String {
        switch side {
        case let .version(version):
            DocverError.printable("version \(version.shortID) (\(version.device.name), \(Terminal.date(version.modified)))")
        case .workingTree: "working copy"
        case .absent: "nothing"
        }
    }

    // MARK: Colour (git's defaults: bold headers, cyan hunk headers, red and green lines)

    private enum Style {
        static let header = "\u{1B}[1m", hunk = "\u{1B}[36m", removed = "\u{1B}[31m", added = "\u{1B}[32m", label = "\u{1B}[33m"
        static let reset = "\u{1B}[m"
    }

    private static func paint(_ line: String, _ style: String, _ colored: Bool) -> String {
        guard colored else { return line }
        let body = line.hasSuffix("\n") ? String(line.dropLast()) : line
        return style + body + Style.reset + (line.hasSuffix("\n") ? "\n" : "")
    }

    private static func paintPatch(_ text: String) -> String {
        var inHunks = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line -> String in
            let style: String?
            if line.hasPrefix("@@") {
                inHunks = true; style = Style.hunk
            } else if !inHunks {
                style = Style.header
            } else if line.hasPrefix("-") {
                style = Style.removed
            } else if line.hasPrefix("+") {
                style = Style.added
            } else {
                style = nil
            }
            return style.map { $0 + line + Style.reset } ?? String(line)
        }.joined(separator: "\n") + "\n"
    }
}
