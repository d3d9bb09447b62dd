import Foundation

/// Conflict markers left in a document's text, as a merge with markers writes them
/// (`resolve --strategy merge --markers`, git's diff3 style).
///
/// A marked region runs from a line starting with `<<<<<<<` to the next line starting with
/// `>>>>>>>`; each marker is exactly seven characters followed by a space or the end of the
/// line, as git recognises them (so a line of eight `<` is not a marker). A `<<<<<<<` line
/// without a later `>>>>>>>` line marks nothing.
enum ConflictMarkers {
    /// Files with a NUL byte in their first 8000 bytes are binary and not searched (git's test).
    static let binaryProbeLength = 8000

    /// The marked regions of a text, as 1-based line ranges (`<<<<<<<` line through `>>>>>>>` line).
    static func regions(in data: Data) -> [ClosedRange<Int>] {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> [ClosedRange<Int>] in
            guard let base = bytes.baseAddress else { return [] }
            var regions: [ClosedRange<Int>] = []
            var start: Int?
            var line = 1
            var offset = 0
            while offset < bytes.count {
                if start == nil, isMarker(bytes, at: offset, of: UInt8(ascii: "<")) {
                    start = line
                } else if let begin = start, isMarker(bytes, at: offset, of: UInt8(ascii: ">")) {
                    regions.append(begin...line)
                    start = nil
                }
                guard let newline = memchr(base + offset, 0x0A, bytes.count - offset) else { break }
                offset = base.distance(to: UnsafeRawPointer(newline)) + 1
                line += 1
            }
            return regions
        }
    }

    /// Each marked region of a merge result written in diff3 style (`<<<<<<<` ours `|||||||`
    /// base `=======` theirs `>>>>>>>`, as TextMerge writes it) by the lines it holds of each
    /// of the two versions merged: the 1-based line where that side's part starts in that
    /// version, and how many lines it has there (0: that side removed them).
    static func sides(in data: Data) -> [(ours: (first: Int, count: Int), theirs: (first: Int, count: Int))] {
        enum Section { case common, ours, base, theirs }
        return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            guard let start = bytes.baseAddress else { return [] }
            var result: [(ours: (first: Int, count: Int), theirs: (first: Int, count: Int))] = []
            var section = Section.common
            var line = (ours: 1, theirs: 1)
            var first = (ours: 1, theirs: 1)
            var offset = 0
            while offset < bytes.count {
                switch section {
                case .common where isMarker(bytes, at: offset, of: UInt8(ascii: "<")):
                    section = .ours
                    first = line
                case .ours where isMarker(bytes, at: offset, of: UInt8(ascii: "|")): section = .base
                case .ours where isMarker(bytes, at: offset, of: UInt8(ascii: "=")),
                    .base where isMarker(bytes, at: offset, of: UInt8(ascii: "=")):
                    section = .theirs
                case .theirs where isMarker(bytes, at: offset, of: UInt8(ascii: ">")):
                    section = .common
                    result.append((ours: (first.ours, line.ours - first.ours), theirs: (first.theirs, line.theirs - first.theirs)))
                case .common: line.ours += 1; line.theirs += 1
                case .ours: line.ours += 1
                case .theirs: line.theirs += 1
                case .base: break
                }
                guard let newline = memchr(start + offset, 0x0A, bytes.count - offset) else { break }
                offset = start.distance(to: UnsafeRawPointer(newline)) + 1
            }
            return result
        }
    }

    /// Whether a marked region remains in a file read a piece at a time (`read` passes its
    /// pieces, in order, to the function it is given): the answer of `!regions(in:).isEmpty`
    /// for text, false for binary contents, without holding more than a line's first 8 bytes
    /// (a 1 GiB document is not held whole to be searched; issue 29).
    static func hasRegions(reading read: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws -> Bool {
        struct Decided: Error {}
        var seen = 0  // bytes, up to the binary probe's length
        var head: [UInt8] = []  // the current line's first 8 bytes
        var lineDecided = false
        var open = false
        var found = false
        func decide() {
            guard !lineDecided else { return }
            lineDecided = true
            func marker(_ byte: UInt8) -> Bool {
                guard head.count >= 7, head.prefix(7).allSatisfy({ $0 == byte }) else { return false }
                return head.count == 7 || [UInt8(ascii: " "), 0x0A, 0x0D].contains(head[7])
            }
            if !open, marker(UInt8(ascii: "<")) { open = true } else if open, marker(UInt8(ascii: ">")) { found = true }
        }
        do {
            try read { piece in
                for byte in piece {
                    if seen < binaryProbeLength {
                        if byte == 0 { found = false; throw Decided() }
                        seen += 1
                    }
                    if !lineDecided, !found {
                        head.append(byte)
                        if head.count == 8 || byte == 0x0A { decide() }
                    }
                    // (Found: decided once the binary probe's bytes are all seen.)
                    if found, seen >= binaryProbeLength { throw Decided() }
                    if byte == 0x0A { head.removeAll(keepingCapacity: true); lineDecided = false }
                }
            }
        } catch is Decided {
            return found  // (thrown for a NUL among the first bytes too: binary, not searched)
        }
        if !head.isEmpty { decide() }  // the last line, without a newline
        return found
    }

    /// True when the line starting at `offset` is a marker of seven `byte`s.
    private static func isMarker(_ bytes: UnsafeRawBufferPointer, at offset: Int, of byte: UInt8) -> Bool {
        guard offset + 7 <= bytes.count else { return false }
        for index in offset..<(offset + 7) where bytes[index] != byte { return false }
        guard offset + 7 < bytes.count else { return true }
        let next = bytes[offset + 7]
        return next == UInt8(ascii: " ") || next == 0x0A || next == 0x0D
    }

    /// True for contents git would treat as binary: a NUL byte in the first 8000 bytes.
    static func isBinary(_ data: Data) -> Bool {
        data.prefix(binaryProbeLength).contains(0)
    }

    /// Where markers remain in a document, one entry per file that has them: `lines 3-9, 14-20`
    /// for a file, `text.txt lines 3-9` for a package's component (in component order).
    /// Binary files are not searched; empty when no marked region remains.
    static func locations(in contents: DocumentContents) -> [String] {
        func lines(_ data: Data) -> String? {
            guard !isBinary(data) else { return nil }
            let found = regions(in: data)
            guard !found.isEmpty else { return nil }
            return "lines " + found.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ", ")
        }
        switch contents {
        case let .flat(data):
            return lines(data).map { [$0] } ?? []
        case let .package(package):
            return package.files.keys.sorted().compactMap { name in
                package.files[name].flatMap(lines).map { "\(name) \($0)" }
            }
        case .deleted:
            return []
        }
    }
}
