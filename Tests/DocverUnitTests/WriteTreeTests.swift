import Foundation
import Testing

@testable import DocverKit

/// `Repository.writeTree(base:replacing:)`: a save's tree, written from the parent's tree and
/// the documents' old and new entries in one call.
@Suite struct WriteTreeTests {
    @Test func aFileReplacesAFolderAndAFolderReplacesAFileInOneCall() throws {
        let scratch = try TempRepository()
        let base = try scratch.tree(["doc.pkg/a": "a", "doc.pkg/sub/b": "b", "flat.pkg": "flat", "other.txt": "o"])
        let newFile = try EntryState(scratch.blob("now a file"), .blob)
        let newFolder = try EntryState(scratch.tree(["inside": "now a folder"]), .tree)
        let tree = try scratch.repository.writeTree(
            base: base,
            replacing: [
                TreeReplacement(path: "doc.pkg", old: scratch.entry("doc.pkg", inTree: base), new: newFile),
                TreeReplacement(path: "flat.pkg", old: scratch.entry("flat.pkg", inTree: base), new: newFolder),
            ])
        #expect(try scratch.files(ofTree: tree) == ["doc.pkg": "now a file", "flat.pkg/inside": "now a folder", "other.txt": "o"])
        #expect(try scratch.entry("doc.pkg", inTree: tree) == newFile)
        #expect(try scratch.entry("flat.pkg", inTree: tree) == newFolder)
    }

    @Test func additionsModificationsAndDeletionsApplyTogether() throws {
        let scratch = try TempRepository()
        let base = try scratch.tree(["a.txt": "a", "only/x.txt": "x", "dir/keep.txt": "k", "dir/old.txt": "o"])
        let tree = try scratch.repository.writeTree(
            base: base,
            replacing: [
                TreeReplacement(path: "a.txt", old: scratch.entry("a.txt", inTree: base), new: EntryState(scratch.blob("a2"), .blob)),
                TreeReplacement(path: "only/x.txt", old: scratch.entry("only/x.txt", inTree: base), new: nil),
                TreeReplacement(path: "dir/old.txt", old: scratch.entry("dir/old.txt", inTree: base), new: nil),
                TreeReplacement(path: "new/deep/n.txt", old: nil, new: EntryState(scratch.blob("n"), .blob)),
                TreeReplacement(path: "run.sh", old: nil, new: EntryState(scratch.blob("#!/bin/sh\n"), .executable)),
            ])
        #expect(try scratch.files(ofTree: tree) == ["a.txt": "a2", "dir/keep.txt": "k", "new/deep/n.txt": "n", "run.sh": "#!/bin/sh\n"])
        #expect(try scratch.entry("only", inTree: tree) == nil, "a folder left empty is dropped")
        #expect(try scratch.entry("run.sh", inTree: tree)?.mode == .executable)
    }

    @Test func aModeChangeAloneIsWritten() throws {
        let scratch = try TempRepository()
        let base = try scratch.tree(["s.sh": "echo"])
        let old = try #require(try scratch.entry("s.sh", inTree: base))
        let tree = try scratch.repository.writeTree(
            base: base,
            replacing: [
                TreeReplacement(path: "s.sh", old: old, new: EntryState(old.id, .executable))
            ])
        #expect(try scratch.entry("s.sh", inTree: tree) == EntryState(old.id, .executable))
    }

    @Test func noReplacementsGiveTheBaseBack() throws {
        let scratch = try TempRepository()
        let base = try scratch.tree(["a.txt": "a"])
        #expect(try scratch.repository.writeTree(base: base, replacing: []) == base)
        #expect(
            try scratch.repository.writeTree(
                base: ObjectID.emptyTree,
                replacing: [
                    TreeReplacement(path: "a.txt", old: nil, new: EntryState(scratch.blob("a"), .blob))
                ]) == base)
    }
}
