import Foundation

/// The name of a document: a normalised path relative to the container's root.
///
/// Validation is lexical (no absolute paths, no `..`, nothing inside `.git` or docver's
/// reserved `.docver` area, no control characters); ``Container`` adds the check that the
/// path does not leave the container through a symbolic link.
public struct DocumentPath: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The slash-separated path, e.g. `notes/trip.imagenotes`.
    public let path: String

    /// Validates and normalises a user-supplied name.
    public init(_ name: String) throws {
        guard !name.isEmpty else { throw DocverError.invalidDocumentName(name, reason: "it is empty") }
        guard !name.hasPrefix("/") else {
            throw DocverError.invalidDocumentName(name, reason: "absolute paths are not allowed; name documents relative to the container")
        }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw DocverError.invalidDocumentName(name, reason: "control characters are not allowed")
        }
        // Split on the byte: a slash followed by a combining mark is one character.
        let components = Self.components(name).filter { $0 != "." }
        guard !components.isEmpty else { throw DocverError.invalidDocumentName(name, reason: "it names the container itself") }
        if components.contains("..") {
            throw DocverError.invalidDocumentName(name, reason: "'..' components are not allowed")
        }
        if components.contains(where: { $0.lowercased() == ".git" }) {
            throw DocverError.invalidDocumentName(name, reason: "it is inside .git")
        }
        if components[0] == Self.reservedArea {
            throw DocverError.invalidDocumentName(name, reason: "\(Self.reservedArea) is reserved for docver")
        }
        path = components.joined(separator: "/")
    }

    init(trusted path: String) { self.path = path }

    /// A name as git quotes it in its output: unchanged when it holds no control character,
    /// `"` or `\\`; otherwise in double quotes with those escaped (`\\n`, `\\t`, `\\"`, `\\\\`, other
    /// controls as octal `\\ooo`), so a crafted name cannot forge lines of output.
    public static func quoted(_ name: String) -> String {
        let needsQuotes = name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "\"" || $0 == "\\" }
        guard needsQuotes else { return name }
        return "\"" + escaped(Array(name.utf8), keepingUTF8: true) + "\""
    }

    /// Bytes as git escapes them in a quoted path: `\\`, `\"`, `\\t`, `\\n` and octal `\\ooo` for
    /// other control bytes and (unless `keepingUTF8`) every byte outside printable ASCII.
    public static func escaped(_ bytes: [UInt8], keepingUTF8: Bool = false) -> String {
        var result = [UInt8]()
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\\"): result += Array("\\\\".utf8)
            case UInt8(ascii: "\""): result += Array("\\\"".utf8)
            case UInt8(ascii: "\t"): result += Array("\\t".utf8)
            case UInt8(ascii: "\n"): result += Array("\\n".utf8)
            case 0x20..<0x7F: result.append(byte)
            case 0x80...0xFF where keepingUTF8: result.append(byte)
            default:
                let octal = String(byte, radix: 8)
                result += Array(("\\" + String(repeating: "0", count: 3 - octal.count) + octal).utf8)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// docver's reserved name at the top of the container.
    static let reservedArea = ".docver"

    /// True for a stored path inside the reserved area (the key-value store's files): never a
    /// user document, so listings, conflicts and sync reports leave it out.
    static func isReserved(_ path: String) -> Bool {
        path == reservedArea || path.bytesHavePrefix(reservedArea + "/")
    }

    /// The path, as written in listings.
    public var description: String { path }

    /// The last path component.
    public var name: String {
        // The bytes after the last slash (a listing asks this of every document: splitting the
        // whole path into an array was a tenth of `ls`). Paths hold no empty component.
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        let name = path[path.utf8.index(after: slash)...]
        return name.isEmpty ? path.split(separator: "/").last.map(String.init) ?? path : String(name)
    }

    /// The document type: the file extension, lowercased ("" when there is none).
    public var type: String { Self.fileExtension(of: name) ?? "" }

    /// The file name without its extension, as shown to people.
    public var displayName: String {
        guard let ext = Self.fileExtension(of: name) else { return name }
        return String(name.dropLast(ext.count + 1))
    }

    /// Two paths are the same document when their bytes are the same, as git sees them (not
    /// when Swift finds the strings canonically equivalent: `é` precomposed and decomposed
    /// are two files to git).
    public static func == (lhs: DocumentPath, rhs: DocumentPath) -> Bool {
        lhs.path.compareBytes(rhs.path) == 0
    }

    public func hash(into hasher: inout Hasher) { path.hashBytes(into: &hasher) }

    /// Orders paths byte by byte, as git orders them.
    public static func < (lhs: DocumentPath, rhs: DocumentPath) -> Bool {
        lhs.path.compareBytes(rhs.path) < 0
    }

    /// A name's extension: text after the last dot, when the dot is neither first nor last.
    static func fileExtension(of name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex,
            name.index(after: dot) != name.endIndex
        else { return nil }
        return name[name.index(after: dot)...].lowercased()
    }

    /// The non-empty components of a slash-separated path, split on the byte (`split` on
    /// characters keeps a slash followed by a combining mark, `/\u{301}`, as one character).
    static func components(_ path: String) -> [Substring] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map { Substring($0) }
    }

    /// A directory whose name has an extension is a file package.
    /// (docs/MODEL.md: R20.)
    static func isPackageName(_ name: String) -> Bool { fileExtension(of: name) != nil }

    /// The document a stored file belongs to: the outermost enclosing directory that is a
    /// package, or the file itself.
    static func document(containingFile filePath: String) -> DocumentPath {
        let components = Self.components(filePath)
        for index in components.indices.dropLast() where isPackageName(String(components[index])) {
            return DocumentPath(trusted: components[...index].joined(separator: "/"))
        }
        return DocumentPath(trusted: filePath)
    }
}
