import DocverKit
import Foundation
import Testing

/// The example apps (Examples/TextNotes, Examples/ImageNotes, Examples/BackgroundColor) build and do what their
/// READMEs say. They are built next to the docver binary.
@Suite struct ExamplesTests {
    private func example(_ name: String) -> String {
        URL(fileURLWithPath: docverExecutable).deletingLastPathComponent().appendingPathComponent(name).path
    }

    private func expectLines(_ result: ProcessResult, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 0, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        var index = lines.startIndex
        for line in expected {
            // In this order, each line starting with the expected text.
            guard let found = lines[index...].firstIndex(where: { $0.hasPrefix(line) }) else {
                Issue.record("missing (in order) '\(line)' in:\n\(result.stdout)", sourceLocation: sourceLocation)
                return
            }
            index = lines.index(after: found)
        }
    }

    @Test func textNotesDemoResolvesAConflictByUserChoice() throws {
        let result = try runProcess(example("TextNotes"), ["demo"])
        expectLines(
            result,
            [
                "== 1. Alice's laptop writes a note",
                "== 4. The laptop syncs",
                "sync: shopping.txt has 1 new conflict version(s)",
                "laptop editor state: inConflict",
                "versions of shopping.txt:",
                "== 5. The user chooses",
                "chooser: keeping ",
                "shopping.txt: kept version ",
                "laptop editor state: normal",
                "  2  - oat milk",
                "laptop and phone hold the same note, no conflicts left: yes",
                "demo finished",
            ])
        #expect(result.stdout.contains("from Alice's Phone"))
        #expect(result.stdout.contains("chooser: keeping") && result.stdout.contains("from Alice's Laptop"))
    }

    @Test func imageNotesDemoMergesComponentsSoBothEditsSurvive() throws {
        let result = try runProcess(example("ImageNotes"), ["demo"])
        expectLines(
            result,
            [
                "== 1. The laptop makes an image note",
                "sync: lisbon.imagenotes has 1 new conflict version(s)",
                "laptop editor state: inConflict",
                "== 5. Resolve with MergeStrategy",
                "lisbon.imagenotes: saved the merge of 2 versions as current",
                "laptop editor state: normal",
                "  Day 1: arrived in Lisbon.",
                "  Day 2: tram 28 up to the castle.",
                "image.png: 16x16 PNG",
                "the laptop's text edit survived: yes",
                "the phone's image edit survived: yes",
                "laptop and phone hold the same merged note, no conflicts left: yes",
                "demo finished",
            ])
    }

    @Test func backgroundColorDemoRepaintsTheOtherDeviceAndConverges() throws {
        let result = try runProcess(example("BackgroundColor"), ["demo"])
        expectLines(
            result,
            [
                "== 1. A laptop and a phone share a remote",
                "== 2. The laptop sets the background to green and synchronizes",
                "laptop: background #00FF00",
                "== 3. The phone synchronizes",
                "phone: told that bg changed (initial-sync)",
                "phone: repaints its background #00FF00",
                "phone saw the change: yes",
                "== 4. Both change the colour before seeing each other's change",
                "laptop and phone show the same colour: yes",
                "conflicts left open: 0",
                "== 5. The other colour stays in history",
                "  current ",
                "demo finished",
            ])
        #expect(result.stdout.contains("  lost       "), "the losing colour is listed")
        #expect(result.stdout.contains("  superseded #00FF00 by Laptop"))
    }

    @Test func imageNotesWritesAValidPNG() throws {
        let scratch = try Scratch()
        let file = scratch.path("sample.png")
        let result = try runProcess(example("ImageNotes"), ["png", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = [UInt8](try Data(contentsOf: file))
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(String(decoding: bytes[12..<16], as: UTF8.self) == "IHDR")
        #expect(Array(bytes[16..<24]) == [0, 0, 0, 16, 0, 0, 0, 16], "16x16")
        #expect(String(decoding: bytes.suffix(8).prefix(4), as: UTF8.self) == "IEND")
    }

    @Test func textNotesEditsANoteFromCommandsOnStandardInput() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let commands = "show\nappend milk\nappend bread\nreplace 1 oat milk\nreplace 9 nothing\nsave\nshow\nappend eggs\nquit\n"
        let result = try runProcess(example("TextNotes"), ["edit", alice.root.path, "lists/shopping.txt"], input: Data(commands.utf8))
        expectLines(
            result,
            [
                "created lists/shopping.txt on alice",
                "  (empty)",
                "appended line 1",
                "appended line 2",
                "replaced line 1",
                "error: there is no line 9",
                "saved version ",
                "  1  oat milk",
                "  2  bread",
                "appended line 3",
                "closed lists/shopping.txt",
            ])
        #expect(try alice.read("lists/shopping.txt") == "oat milk\nbread\neggs\n", "quit saves unsaved edits")
        #expect(try alice.versionCount("lists/shopping.txt") == 3, "create, save, and the save on quit")
        #expect(try alice.status().changed.isEmpty)

        // Opening it again loads the saved note.
        let again = try runProcess(example("TextNotes"), ["edit", alice.root.path, "lists/shopping.txt"], input: Data("show\nquit\n".utf8))
        expectLines(again, ["opened lists/shopping.txt (3 lines) on alice", "  3  eggs", "closed lists/shopping.txt"])
        try expectFsckClean(alice.root)
    }

    @Test func examplesRejectBadArguments() throws {
        for name in ["TextNotes", "ImageNotes"] {
            let result = try runProcess(example(name), ["nonsense"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("usage:"))
        }
    }
}
