import Foundation

extension Container {
    /// A unified diff from version `old` to version `new` of a document. Package components
    /// are compared one by one; binary contents are noted, not dumped.
    public func diff(from old: DocumentVersion, to new: DocumentVersion) throws -> String {
        try withRepository { repository in
            let before = try contents(of: old, in: repository)
            let after = try contents(of: new, in: repository)
            let oldLabel = "\(old.document.path) (\(old.shortID), \(old.device.name))"
            let newLabel = "\(new.document.path) (\(new.shortID), \(new.device.name))"
            return try Self.diff(before, after, oldLabel: oldLabel, newLabel: newLabel)
        }
    }

    static func diff(_ before: DocumentContents, _ after: DocumentContents, oldLabel: String, newLabel: String) throws -> String {
        func files(_ contents: DocumentContents) -> [String: Data] {
            switch contents {
            case let .flat(data): return ["": data]
            case let .package(package): return package.files
            case .deleted: return [:]
            }
        }
        let old = files(before), new = files(after)
        var output = ""
        for name in Set(old.keys).union(new.keys).sorted() {
            let (a, b) = (old[name], new[name])
            guard a != b else { continue }
            let suffix = name.isEmpty ? "" : "/" + name
            if [a, b].contains(where: { $0?.contains(0) == true }) {
                output += "Binary contents differ: \(oldLabel)\(suffix) and \(newLabel)\(suffix)\n"
                continue
            }
            output += try TextMerge.unifiedDiff(old: a, oldPath: oldLabel + suffix, new: b, newPath: newLabel + suffix)
        }
        return output
    }
}
