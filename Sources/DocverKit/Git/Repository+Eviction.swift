import Foundation

// Evicting contents on a device on demand (docs/ARCHITECTURE.md, "Evicting a document"). git
// counts a missing file as promised, never as lost, when a tree in a promisor pack names it
// (the packs a filtered fetch writes). Contents leave this repository only after such a tree
// names them: `git fsck --strict`, `git gc` and `git rev-list --missing` then treat them as
// contents a filtered fetch left out, and the lazy fetch brings them back when read.

extension Repository {
    /// Writes `trees` into a new pack marked as coming from a promisor remote (`.promisor`), so
    /// that every file they name may be missing. The caller has checked that a promisor remote
    /// holds each tree (they are in commits on it).
    /// (docs/MODEL.md: R34.)
    func promise(trees: [ObjectID]) throws {
        guard !trees.isEmpty else { return }
        let name = try writePack(of: trees)
        try Data().write(to: URL(fileURLWithPath: gitDirectory + "objects/pack/pack-\(name).promisor"))
    }

    /// The folder (tree) whose entries hold `path` in `commit`: its root folder for a name at
    /// the top.
    func folder(holding path: String, in commit: ObjectID) throws -> ObjectID {
        let root = try self.commit(commit).treeID
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return root }
        guard let entry = try tree(root).entry(atPath: String(path[..<slash])), entry.mode.isTree else {
            throw GitError(code: .notFound, message: "no folder holds \(path) in \(commit.hex.prefix(12))", function: "tree lookup")
        }
        return entry.id
    }

    /// Removes the objects `ids` (file contents) from the object database: a loose one is
    /// deleted, and each pack holding one is written again without it (keeping its
    /// `.promisor` and `.keep` marks), then deleted. Returns the bytes the object database
    /// shrank by. Every removed object must be promised (``promise(trees:)``) first.
    ///
    /// Safe against a kill at any point: the new pack is complete before the old one goes,
    /// and an object in both packs is one object.
    func dropContents(_ ids: Set<ObjectID>) throws -> Int64 {
        guard !ids.isEmpty else { return 0 }
        let objects = gitDirectory + "objects/"
        var freed: Int64 = 0
        for id in ids {
            let hex = id.hex
            let path = objects + hex.prefix(2) + "/" + hex.dropFirst(2)
            if let stat = FileStat(path: path) {
                try FileSystem.remove(path)
                freed += stat.size
            }
        }
        let packs = objects + "pack/"
        let names = (try? FileSystem.contentsOfDirectory(packs)) ?? []
        var rewrote = false
        for indexName in names where indexName.hasPrefix("pack-") && indexName.hasSuffix(".idx") {
            let base = packs + indexName.dropLast(".idx".count)
            guard let all = Self.packedObjects(indexAt: base + ".idx") else { continue }
            let kept = all.filter { !ids.contains($0) }
            guard kept.count < all.count else { continue }
            let before = (FileStat(path: base + ".pack")?.size ?? 0) + (FileStat(path: base + ".idx")?.size ?? 0)
            if !kept.isEmpty {
                let name = try writePack(of: kept)
                for mark in [".promisor", ".keep"] where FileStat(path: base + mark) != nil {
                    let copy = packs + "pack-\(name)" + mark
                    if FileStat(path: copy) == nil {
                        try Data(contentsOf: URL(fileURLWithPath: base + mark)).write(to: URL(fileURLWithPath: copy))
                    }
                }
                freed -= (FileStat(path: packs + "pack-\(name).pack")?.size ?? 0) + (FileStat(path: packs + "pack-\(name).idx")?.size ?? 0)
            }
            // The index first: a reader that finds no index does not open the pack.
            for suffix in [".idx", ".pack", ".rev", ".bitmap", ".promisor", ".keep"] {
                try FileSystem.remove(base + suffix)
            }
            freed += before
            rewrote = true
        }
        // A multi-pack index names the packs it covers; git writes it again when asked.
        if rewrote { try FileSystem.remove(packs + "multi-pack-index") }
        refreshObjects()
        return max(0, freed)
    }

    /// Writes a pack of `ids` with git (deltas reused where their bases go too) into the
    /// object database; returns its name (the hash in `pack-<name>.pack`).
    private func writePack(of ids: [ObjectID]) throws -> String {
        let output = try runGit(
            ["pack-objects", "-q", "--delta-base-offset", gitDirectory + "objects/pack/pack"],
            input: Data(ids.map { $0.hex + "\n" }.joined().utf8), settings: TransferSettings(),
            function: "git pack-objects"
        ).output
        let name = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard name.count == 40, ObjectID(hex: name) != nil else {
            throw GitError(code: .other(-1), message: "git pack-objects named no pack", function: "git pack-objects")
        }
        return name
    }

    /// The ids a pack index (version 2, as git and libgit2 write them) lists; nil for a file
    /// that is not one.
    static func packedObjects(indexAt path: String) -> [ObjectID]? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe) else { return nil }
        return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> [ObjectID]? in
            let header = 8, fanout = 256 * 4
            guard bytes.count >= header + fanout, Array(bytes[0..<4]) == [0xff, 0x74, 0x4f, 0x63],
                Array(bytes[4..<8]) == [0, 0, 0, 2]
            else { return nil }
            let last = header + fanout - 4
            let count = Int(bytes[last]) << 24 | Int(bytes[last + 1]) << 16 | Int(bytes[last + 2]) << 8 | Int(bytes[last + 3])
            let start = header + fanout
            guard bytes.count >= start + count * 20 else { return nil }
            return (0..<count).compactMap { index in
                ObjectID(bytes: bytes[(start + index * 20)..<(start + index * 20 + 20)])
            }
        }
    }
}
