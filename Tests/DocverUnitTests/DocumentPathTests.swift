import Foundation
import Testing

@testable import DocverKit

/// Document names (docs/FORMAT.md, "Documents"): validation, normalisation, types and packages.
@Suite struct DocumentPathTests {
    static func reason(_ name: String) -> String? {
        do {
            _ = try DocumentPath(name)
            return nil
        } catch let DocverError.invalidDocumentName(_, reason) {
            return reason
        } catch {
            return "unexpected \(error)"
        }
    }

    // MARK: Normalisation

    @Test(arguments: [
        ("a", "a"), ("a/b", "a/b"), ("a//b", "a/b"), ("./a/./b/", "a/b"), ("a/", "a"), ("a/b//", "a/b"),
        ("./x", "x"), ("a/./.", "a"), ("trip notes.txt", "trip notes.txt"), ("été/😀.md", "été/😀.md"),
        ("a/.docver", "a/.docver"), (".gitattributes", ".gitattributes"), ("x.git", "x.git"), (".git2/a", ".git2/a"),
        ("...", "..."), (".../a", ".../a"), ("a..b", "a..b"),
    ])
    func namesAreNormalised(name: String, path: String) throws {
        #expect(try DocumentPath(name).path == path)
    }

    @Test func normalisedNamesAreFixedPoints() throws {
        for name in ["./a//b/", "x/./y", "a/"] {
            let once = try DocumentPath(name)
            #expect(try DocumentPath(once.path) == once)
        }
    }

    // MARK: Rejections

    @Test func emptyAbsoluteAndContainerNamesAreRejected() {
        #expect(Self.reason("") == "it is empty")
        #expect(Self.reason("/a")?.hasPrefix("absolute paths") == true)
        #expect(Self.reason("//a")?.hasPrefix("absolute paths") == true)
        #expect(Self.reason(".") == "it names the container itself")
        #expect(Self.reason("./") == "it names the container itself")
        #expect(Self.reason("./././") == "it names the container itself")
    }

    @Test(arguments: ["..", "../a", "a/..", "a/../b", "./..", "a/b/../../c"])
    func parentComponentsAreRejected(name: String) {
        #expect(Self.reason(name) == "'..' components are not allowed")
    }

    @Test(arguments: [".git", ".GIT", ".Git", ".gIt/config", "a/.git", "a/.git/b", "a/.GiT", "./.git", ".git/"])
    func gitComponentsInAnyCaseAreRejected(name: String) {
        #expect(Self.reason(name) == "it is inside .git")
    }

    @Test(arguments: [".docver", ".docver/x", "./.docver", ".docver/", "./.docver/a/b"])
    func theTopLevelDocverAreaIsReserved(name: String) {
        #expect(Self.reason(name) == ".docver is reserved for docver")
    }

    @Test func everyASCIIControlCharacterIsRejectedAndEveryOtherASCIICharacterAccepted() throws {
        for value in UInt8(0)...UInt8(0x7F) {
            let name = "a" + String(Unicode.Scalar(value)) + "b"
            if value < 0x20 || value == 0x7F {
                #expect(Self.reason(name) == "control characters are not allowed", "byte \(value)")
            } else if value == UInt8(ascii: "/") {
                #expect(try DocumentPath(name).path == "a/b")
            } else {
                #expect(try DocumentPath(name).path == name, "byte \(value)")
            }
        }
    }

    @Test
    func c1ControlCharactersAreRejected() {
        for value in UInt32(0x80)...UInt32(0x9F) {
            let name = "a" + String(Unicode.Scalar(value)!) + "b"
            #expect(Self.reason(name) == "control characters are not allowed", "U+\(String(value, radix: 16, uppercase: true))")
        }
    }

    /// Names are bytes (issue 25): a slash followed by a combining mark still separates two
    /// components, although Swift takes `/\u{301}` for one character.
    @Test func aComponentStartingWithACombiningMarkIsSplitAtItsSlash() throws {
        let file = "trip.imagenotes/\u{301}photo.png"
        #expect(DocumentPath.document(containingFile: file).path.utf8.elementsEqual("trip.imagenotes".utf8))
        #expect(try DocumentPath("notes/\u{301}a.txt/").path.utf8.elementsEqual("notes/\u{301}a.txt".utf8))
        #expect(try DocumentPath("./\u{301}a.txt").path.utf8.elementsEqual("\u{301}a.txt".utf8))
    }

    /// Two spellings of one name compare, hash and sort as their bytes.
    @Test func twoUnicodeSpellingsAreTwoNamesOrderedByBytes() throws {
        let nfc = try DocumentPath("caf\u{E9}.txt"), nfd = try DocumentPath("cafe\u{301}.txt")
        #expect(nfc.path == nfd.path)  // Swift's String equality
        #expect(nfc != nfd)
        #expect(Set([nfc, nfd]).count == 2)
        #expect(nfd < nfc)  // "e" (0x65) before 0xC3
        #expect(ByteString(nfc.path) != ByteString(nfd.path))
        #expect(Set([ByteString(nfc.path), ByteString(nfd.path)]).count == 2)
        #expect(VersionRecord(path: nfc.path, version: "v") != VersionRecord(path: nfd.path, version: "v"))
        #expect(Set([ConflictRecord(path: nfc.path, version: "v", base: nil), ConflictRecord(path: nfd.path, version: "v", base: nil)]).count == 2)
    }

    @Test func otherNonASCIICharactersAreAccepted() throws {
        for name in ["no\u{A0}break space.txt", "été.md", "中文/笔记.txt", "Straße", "😀.txt", "\u{A1}hola!"] {
            #expect(try DocumentPath(name).path == name)
        }
    }

    // MARK: Types and packages

    @Test(arguments: [
        ("a.txt", "txt"), ("A.TXT", "txt"), ("archive.tar.gz", "gz"), ("trip.ImageNotes", "imagenotes"),
        (".gitattributes", nil), ("name.", nil), ("README", nil), ("..x", "x"), (".a.b", "b"), ("a.", nil),
    ])
    func theExtensionIsAfterTheLastInnerDot(name: String, ext: String?) {
        #expect(DocumentPath.fileExtension(of: name) == ext)
        #expect(DocumentPath.isPackageName(name) == (ext != nil))
    }

    @Test func typeNameAndDisplayNameComeFromTheLastComponent() throws {
        let path = try DocumentPath("notes/Trip.Plan.ImageNotes")
        #expect(path.name == "Trip.Plan.ImageNotes")
        #expect(path.type == "imagenotes")
        #expect(path.displayName == "Trip.Plan")
        let plain = try DocumentPath("dir.d/README")
        #expect(plain.type == "" && plain.displayName == "README" && plain.name == "README")
        #expect(try DocumentPath(".profile").displayName == ".profile")
    }

    @Test(arguments: [
        ("a/b.pkg/c/d.txt", "a/b.pkg"), ("x.pkg/y.pkg/z", "x.pkg"), ("a/b/c.txt", "a/b/c.txt"),
        ("c.txt", "c.txt"), ("a.b/c", "a.b"), ("dir/.hidden/f", "dir/.hidden/f"), ("p.pkg/", "p.pkg/"),
        ("folder/file.txt", "folder/file.txt"),
    ])
    func theDocumentOfAFileIsItsOutermostPackage(file: String, document: String) {
        #expect(DocumentPath.document(containingFile: file).path == document)
    }

    // MARK: Order

    @Test func pathsOrderByteByByteAsGitDoes() throws {
        let names = ["b", "B", "a.b", "a/b", "a", "\u{E9}", "z", "a-b", "A", "f", "e\u{301}"]
        let sorted = try names.map { try DocumentPath($0) }.sorted().map(\.path)
        // A decomposed "é" starts with the byte of "e", so it sorts before "f", unlike its
        // precomposed form (and unlike Swift's own string order).
        #expect(sorted.map { Array($0.utf8) } == ["A", "B", "a", "a-b", "a.b", "a/b", "b", "e\u{301}", "f", "z", "\u{E9}"].map { Array($0.utf8) })
    }

    @Test
    func namesThatDifferInBytesAreDifferentDocuments() throws {
        let precomposed = try DocumentPath("\u{E9}t\u{E9}.txt"), decomposed = try DocumentPath("e\u{301}te\u{301}.txt")
        #expect(precomposed != decomposed)
        #expect(Set([precomposed, decomposed]).count == 2)
        #expect((decomposed < precomposed) != (decomposed == precomposed), "Comparable and Equatable must agree")
    }
}
