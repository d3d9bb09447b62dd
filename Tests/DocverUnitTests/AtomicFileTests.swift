import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// `AtomicFile`: a replaced file holds the old contents or the new ones, and nothing is left behind.
///
/// Serialized: two tests set the process-wide umask, and one's 077 made the other's plain file
/// 0600 when they overlapped.
@Suite(.serialized) struct AtomicFileTests {
    final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("docver-unit-atomic-\(UUID().uuidString.prefix(8))")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }
        func mode(_ name: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: path(name))[.posixPermissions] as? Int)
        }
    }

    /// The folder of a file's path, as `NSString.deletingLastPathComponent` gives it for a
    /// file's path (the files are put beside it).
    @Test func aFilesFolderIsTheFolderItIsIn() {
        let cases = ["/a/b": "/a", "/a": "/", "a": "", "a/b": "a", "/a/b/c.txt": "/a/b", "/é/ü.txt": "/é", "rel/dir/f": "rel/dir"]
        for (path, folder) in cases {
            #expect(FileSystem.folder(of: path) == folder, "\(path)")
        }
    }

    @Test func writeCreatesAndReplacesLeavingNoTemporaryFile() throws {
        let folder = try Folder()
        try AtomicFile.write(Data("one".utf8), to: folder.path("f"))
        #expect(FileManager.default.contents(atPath: folder.path("f")) == Data("one".utf8))
        try AtomicFile.write("two, longer", to: folder.path("f"))
        #expect(FileManager.default.contents(atPath: folder.path("f")) == Data("two, longer".utf8))
        try AtomicFile.write(Data(), to: folder.path("f"))
        #expect(FileManager.default.contents(atPath: folder.path("f")) == Data())
        #expect(folder.names == ["f"])
    }

    @Test func modesAreRegularOrExecutable() throws {
        let folder = try Folder()
        let previous = umask(0o022)
        defer { umask(previous) }
        try AtomicFile.write(Data("x".utf8), to: folder.path("plain"))
        try AtomicFile.write(Data("x".utf8), to: folder.path("tool"), executable: true)
        #expect(try folder.mode("plain") == 0o644)
        #expect(try folder.mode("tool") == 0o755)
        // Replacing keeps no trace of the old mode.
        try AtomicFile.write(Data("y".utf8), to: folder.path("tool"))
        #expect(try folder.mode("tool") == 0o644)
    }

    @Test func executableIsMode0755WhateverTheUmask() throws {
        // `executable` sets mode 0755, as documented: set explicitly, past the umask.
        // (umask is process-wide: keep the window to this one write.)
        let folder = try Folder()
        let previous = umask(0o077)
        let result = Result { try AtomicFile.write(Data("#!/bin/sh\n".utf8), to: folder.path("tool"), executable: true) }
        umask(previous)
        try result.get()
        #expect(try folder.mode("tool") == 0o755)
    }

    @Test func aLargeWriteIsWhole() throws {
        let folder = try Folder()
        var random = SeededRandom(seed: 50)
        let block = Data((0..<65_536).map { _ in UInt8.random(in: 0...255, using: &random) })
        var data = Data()
        for index in 0..<48 {
            // 3 MB, every 64 KB block marked, so a block written twice or skipped shows.
            var marked = block
            marked[0] = UInt8(index)
            data.append(marked)
        }
        try AtomicFile.write(data, to: folder.path("big"))
        #expect(FileManager.default.contents(atPath: folder.path("big")) == data)
    }

    @Test func aMissingFolderFailsAndLeavesNothing() throws {
        let folder = try Folder()
        #expect(throws: SystemError.self) { try AtomicFile.write(Data("x".utf8), to: folder.path("missing/f")) }
        #expect(folder.names.isEmpty)
    }

    @Test func replacingAFolderFailsAndLeavesItAndNoTemporaryFile() throws {
        let folder = try Folder()
        try FileManager.default.createDirectory(atPath: folder.path("dir/inner"), withIntermediateDirectories: true)
        #expect(throws: SystemError.self) { try AtomicFile.write(Data("x".utf8), to: folder.path("dir")) }
        #expect(folder.names == ["dir"])
        #expect(FileManager.default.fileExists(atPath: folder.path("dir/inner")))
    }

    // MARK: Creating only if absent (a checkout's new documents)

    /// Both ways a creation can go: an unnamed file given its name, and (where the system has
    /// no unnamed files) a temporary file in a staging folder renamed without replacing.
    static let ways = [true, false]

    @Test(arguments: ways) func aCreationShowsNothingInItsFolderUntilItIsWhole(unnamed: Bool) throws {
        let folder = try Folder()
        try FileManager.default.createDirectory(atPath: folder.path("docs"), withIntermediateDirectories: true)
        let staging = try #require(StagingFolder(folder.path("staging"), sameFileSystemAs: folder.path("docs")))
        var seenWhileWriting: [String]?
        let created = try AtomicFile.create(at: folder.path("docs/f"), flush: false, staging: staging, allowingUnnamed: unnamed) { append in
            try Data("first half, ".utf8).withUnsafeBytes { try append($0) }
            seenWhileWriting = try FileManager.default.contentsOfDirectory(atPath: folder.path("docs"))
            try Data("second half".utf8).withUnsafeBytes { try append($0) }
        }
        #expect(created)
        #expect(seenWhileWriting == [], "the folder being written showed \(seenWhileWriting ?? []) before the file was whole")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("docs")) == ["f"])
        #expect(FileManager.default.contents(atPath: folder.path("docs/f")) == Data("first half, second half".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("staging")).isEmpty)
        #expect(try folder.mode("docs/f") & 0o111 == 0)
    }

    @Test(arguments: ways) func aCreationNeverReplacesAFileSomeoneMadeMeanwhile(unnamed: Bool) throws {
        let folder = try Folder()
        let staging = try #require(StagingFolder(folder.path("staging"), sameFileSystemAs: folder.url.path))
        let created = try AtomicFile.create(at: folder.path("f"), flush: false, staging: staging, allowingUnnamed: unnamed) { append in
            try Data("docver's".utf8).withUnsafeBytes { try append($0) }
            // Someone saves a file of that name while docver writes its own.
            try Data("the user's".utf8).write(to: folder.url.appendingPathComponent("f"))
        }
        #expect(!created)
        #expect(FileManager.default.contents(atPath: folder.path("f")) == Data("the user's".utf8))
        #expect(folder.names == ["f", "staging"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("staging")).isEmpty)
    }

    @Test(arguments: ways) func aCreationSetsTheExecutableModeAndFailsCleanlyInAMissingFolder(unnamed: Bool) throws {
        let folder = try Folder()
        let staging = try #require(StagingFolder(folder.path("staging"), sameFileSystemAs: folder.url.path))
        #expect(
            try AtomicFile.create(at: folder.path("tool"), executable: true, staging: staging, allowingUnnamed: unnamed) { append in
                try Data("#!/bin/sh\n".utf8).withUnsafeBytes { try append($0) }
            })
        #expect(try folder.mode("tool") & 0o111 == 0o111)
        #expect(throws: SystemError.self) {
            try AtomicFile.create(at: folder.path("missing/f"), staging: staging, allowingUnnamed: unnamed) { append in
                try Data("x".utf8).withUnsafeBytes { try append($0) }
            }
        }
        #expect(folder.names == ["staging", "tool"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("staging")).isEmpty)
    }

    @Test func aStagingFolderThatIsALinkIsNotUsed() throws {
        let folder = try Folder()
        try FileManager.default.createDirectory(atPath: folder.path("elsewhere"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path("staging"), withDestinationPath: folder.path("elsewhere"))
        #expect(StagingFolder(folder.path("staging"), sameFileSystemAs: folder.url.path) == nil)
        #expect(StagingFolder(folder.path("real"), sameFileSystemAs: folder.url.path)?.path == folder.path("real"))
    }

    /// A folder is removed at once: renamed out of the way first, so a kill leaves it whole or
    /// gone from its place (and what is left in the staging folder is a temporary entry that
    /// recovery removes, folder or not).
    @Test func aFolderIsRemovedAtOnce() throws {
        let folder = try Folder()
        let staging = try #require(StagingFolder(folder.path("staging"), sameFileSystemAs: folder.url.path))
        try FileManager.default.createDirectory(atPath: folder.path("pkg/sub"), withIntermediateDirectories: true)
        try Data("a".utf8).write(to: URL(fileURLWithPath: folder.path("pkg/sub/a")))
        try AtomicFile.remove(folder.path("pkg"), staging: staging)
        #expect(folder.names == ["staging"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("staging")).isEmpty)
        try AtomicFile.remove(folder.path("pkg"), staging: staging)  // nothing there: nothing to do

        // What a kill between the rename and the deletion leaves.
        let left = staging.temporaryPath()
        try FileManager.default.createDirectory(atPath: left + "/sub", withIntermediateDirectories: true)
        try Data("a".utf8).write(to: URL(fileURLWithPath: left + "/sub/a"))
        AtomicFile.removeTemporaryFiles(in: folder.path("staging"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("staging")).isEmpty)
    }

    /// The sweep removes only names a temporary file gets (the prefix, a process id, a hyphen,
    /// a number): a user's document whose name merely starts with the prefix stays.
    @Test func theSweepRemovesOnlyTemporaryNames() throws {
        let folder = try Folder()
        let temporary = (AtomicFile.temporaryPath(in: folder.url.path) as NSString).lastPathComponent
        let documents = [".docver-tmp-notes.txt", ".docver-tmp-12-", ".docver-tmp-12-3-4", ".docver-tmp-x-1", ".docver-tmp-"]
        for name in documents + [temporary, ".docver-tmp-1-2"] {
            try Data("a".utf8).write(to: URL(fileURLWithPath: folder.path(name)))
        }
        AtomicFile.removeTemporaryFiles(in: folder.url.path)
        #expect(folder.names == documents.sorted())
    }
}
