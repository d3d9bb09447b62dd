import Foundation
import Testing

@testable import DocverKit

/// A folder of 200,000 documents is a 7 MB tree. Looking each of its documents up from the
/// root (`git_tree_entry_bypath`) reads that tree again every time, unless libgit2 keeps it in
/// its object cache: receiving such a folder was quadratic (issue 26). How fast it arrives is
/// measured by Benchmarks/wide_folder.py, not here.
@Suite struct WideFolderTests {
    /// A tree of 150,000 entries (5.7 MB) is read once: a second lookup gets the very object
    /// the first one read, and a lookup from the root finds its documents.
    @Test func aWideFoldersTreeIsReadOnceAndKept() throws {
        let scratch = try TempRepository()
        let blob = try scratch.blob("x\n")
        let wide = try scratch.repository.writeTree(entries: (0..<150_000).map { (name: "f\($0).txt", id: blob, mode: FileMode.blob) })
        let root = try scratch.repository.writeTree(entries: [(name: "wide", id: wide, mode: .tree)])
        let repository = try scratch.reopened()
        let first = try repository.tree(wide)
        let second = try repository.tree(wide)
        #expect(first.pointer == second.pointer, "the 150,000-entry tree was read (inflated and parsed) twice")
        #expect(try repository.tree(root).documentEntry(atPath: "wide/f149999.txt")?.id == blob)
        #expect(first.entries.count == 150_000)
    }
}
