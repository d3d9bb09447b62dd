import Foundation
import Testing

@testable import DocverKit

/// The on-disk pieces of eviction (docs/FORMAT.md): the `evicted` list, the placeholder's
/// name, the `downloading` progress file, and reading a pack index.
@Suite struct EvictionFormatTests {
    @Test func theEvictedListKeepsBothSpellingsOfANameAndSortsByBytes() throws {
        let repository = try TempRepository()
        let path = repository.url.path + "/evicted"
        let nfc = try DocumentPath("caf\u{e9}.txt"), nfd = try DocumentPath("cafe\u{301}.txt")
        try EvictedFile.write([try DocumentPath("b.txt"), nfc, nfd, try DocumentPath("b.txt")], to: path)
        let read = EvictedFile.read(path)
        #expect(read.map { Array($0.path.utf8) } == [Array("b.txt".utf8), Array(nfd.path.utf8), Array(nfc.path.utf8)])
        try EvictedFile.write([], to: path)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(EvictedFile.read(path).isEmpty)
    }

    @Test func aPlaceholderNamesItsDocument() throws {
        let document = try DocumentPath("notes/film.bin")
        #expect(Placeholder.path(of: document) == "notes/film.bin.evicted.txt")
        #expect(Placeholder.document(of: "notes/film.bin.evicted.txt") == document)
        #expect(Placeholder.document(of: ".evicted.txt") == nil)
        #expect(Placeholder.document(of: "notes/.evicted.txt") == nil)
        #expect(Placeholder.document(of: "notes/film.bin") == nil)
        #expect(Placeholder.fits(try DocumentPath(String(repeating: "a", count: 243))))
        #expect(!Placeholder.fits(try DocumentPath(String(repeating: "a", count: 244))))
        // The command it shows survives a quote in the name.
        #expect(Placeholder.text(of: try DocumentPath("it's.txt")).contains("docver download 'it'\\''s.txt'"))
    }

    @Test func progressOfAProcessThatIsGoneIsIgnored() throws {
        let repository = try TempRepository()
        let path = repository.url.path + "/downloading"
        DownloadProgressFile.write([(try DocumentPath("a.bin"), 42.5)], to: path)
        #expect(DownloadProgressFile.read(path) == [ByteString("a.bin"): 42.5])
        // A pid no process has (beyond pid_max).
        try Data("4194305\n50\ta.bin\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(DownloadProgressFile.read(path).isEmpty)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: path))
        #expect(DownloadProgressFile.read(path).isEmpty)
    }

    @Test func aPackIndexListsItsObjects() throws {
        let repository = try TempRepository()
        let ids = try (0..<5).map { try repository.blob("object \($0)\n") }
        let pack = try Subprocess.run(
            ["git", "pack-objects", "-q", repository.url.path + "/.git/objects/pack/pack"],
            input: Data(ids.map { $0.hex + "\n" }.joined().utf8), directory: repository.url)
        let name = String(decoding: pack.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let listed = try #require(Repository.packedObjects(indexAt: repository.url.path + "/.git/objects/pack/pack-\(name).idx"))
        #expect(Set(listed) == Set(ids))
        #expect(Repository.packedObjects(indexAt: repository.url.path + "/.git/HEAD") == nil)
    }
}
