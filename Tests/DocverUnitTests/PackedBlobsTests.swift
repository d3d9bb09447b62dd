import DocverTestSupport
import Foundation
import Synchronization
import Testing

@testable import DocverKit

/// The pack a save of many documents writes its files into (`Repository+PackedWrites.swift`):
/// each file read once and checked against the size its status gave.
@Suite struct PackedBlobsTests {
    final class Folder {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("docver-unit-packed-\(UUID().uuidString.prefix(8))").path
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    private func packFiles(_ folder: Folder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path + "/.git/objects/pack")
    }

    /// A file that changed size since it was looked at (grew, shrank) is refused as modified,
    /// and the pack of the save it belonged to is not installed.
    @Test func aFileOfAnotherSizeIsRefusedAndNothingIsInstalled() throws {
        let folder = Folder()
        let repository = try Repository.create(at: folder.path, initialHead: "refs/heads/main")
        try Data("first\n".utf8).write(to: URL(fileURLWithPath: folder.path + "/a.txt"))
        try Data("twelve bytes".utf8).write(to: URL(fileURLWithPath: folder.path + "/b.txt"))
        for expected: Int64 in [11, 13] {
            #expect {
                try repository.writingBlobsIntoOnePack {
                    _ = try repository.writeBlob(streamingFileAt: folder.path + "/a.txt", expectedSize: 6)
                    _ = try repository.writeBlob(streamingFileAt: folder.path + "/b.txt", expectedSize: expected)
                }
            } throws: { ($0 as? GitError)?.code == .modified }
            #expect(try packFiles(folder).isEmpty)
        }
        // The right sizes: one pack, both blobs readable at once.
        let ids = try repository.writingBlobsIntoOnePack {
            [
                try repository.writeBlob(streamingFileAt: folder.path + "/a.txt", expectedSize: 6),
                try repository.writeBlob(streamingFileAt: folder.path + "/b.txt", expectedSize: 12),
            ]
        }
        #expect(try packFiles(folder).filter { $0.hasSuffix(".pack") }.count == 1)
        #expect(try ids.map { try repository.blob($0).data } == [Data("first\n".utf8), Data("twelve bytes".utf8)])
    }

    /// A FIFO that took a file's place between the status and the read is refused at once; it
    /// is not waited on (the read opened it blocking, and waited for a writer forever).
    @Test func aFIFOInAFilesPlaceIsRefusedWithoutWaiting() throws {
        let folder = Folder()
        _ = try Repository.create(at: folder.path, initialHead: "refs/heads/main")
        let fifo = folder.path + "/pipe.txt"
        #expect(mkfifo(fifo, 0o644) == 0)
        let done = DispatchSemaphore(value: 0)
        let refusedAsModified = Mutex(false)
        let path = folder.path
        let thread = Thread {
            do {
                let repository = try Repository(opening: path, search: false)
                _ = try repository.writingBlobsIntoOnePack { try repository.writeBlob(streamingFileAt: fifo, expectedSize: 5) }
            } catch {
                refusedAsModified.withLock { $0 = (error as? GitError)?.code == .modified }
            }
            done.signal()
        }
        thread.start()
        if done.wait(timeout: .now() + 30) == .timedOut {
            // Give the blocked read a writer, and an end, so the thread finishes.
            let writer = open(fifo, O_WRONLY)
            close(writer)
            done.wait()
            Issue.record("reading a FIFO in a file's place waited for a writer")
            return
        }
        #expect(refusedAsModified.withLock { $0 })
        #expect(try packFiles(folder).isEmpty)
    }
}
