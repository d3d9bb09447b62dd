import Foundation

extension DocumentPath {
    /// A name given relative to a folder of the container, as git reads paths relative to
    /// the current directory: in `recipes`, `cake.md` is `recipes/cake.md` and `../list.txt` is
    /// `list.txt`. `.` and `..` components are resolved lexically (not through symbolic links,
    /// as git does); a name that climbs above the container's root is refused, as is any name
    /// ``init(_:)`` refuses. Errors quote the name as given.
    ///
    /// - Parameter folder: the folder, relative to the root (`""` for the root itself).
    public init(_ name: String, inFolder folder: String) throws {
        guard !name.isEmpty else { throw DocverError.invalidDocumentName(name, reason: "it is empty") }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw DocverError.invalidDocumentName(name, reason: "control characters are not allowed")
        }
        guard !name.hasPrefix("/") else {
            throw DocverError.invalidDocumentName(name, reason: "absolute paths are not allowed; name documents relative to the container")
        }
        var components: [Substring] = []
        for component in (folder + "/" + name).split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..":
                guard components.popLast() != nil else {
                    throw DocverError.invalidDocumentName(name, reason: "it is outside the container")
                }
            default: components.append(component)
            }
        }
        do {
            try self.init(components.joined(separator: "/"))
        } catch DocverError.invalidDocumentName(_, let reason) {
            throw DocverError.invalidDocumentName(name, reason: reason)
        }
    }

    /// The path as written from `folder` (relative to the root): `cake.md` from `recipes`,
    /// `../list.txt` from `recipes`, the path itself from the root.
    public func relative(toFolder folder: String) -> String {
        let here = folder.split(separator: "/")
        let target = path.split(separator: "/")
        var common = 0
        while common < here.count, common < target.count - 1, here[common] == target[common] { common += 1 }
        return (Array(repeating: "..", count: here.count - common) + target[common...].map(String.init)).joined(separator: "/")
    }
}
