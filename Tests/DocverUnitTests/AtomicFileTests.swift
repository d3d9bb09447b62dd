@testable import DocverKit
import DocverTestSupport
import Foundation
import Testing

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
}
