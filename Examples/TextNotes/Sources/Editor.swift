import DocverKit
import Foundation

/// `text-notes edit <container> <note>`: a line-based terminal editor on a ManagedDocument.
///
/// Commands come from standard input, one per line. The document autosaves after two quiet
/// seconds, notices saves and syncs made by other processes every second, and prints every
/// state change (`state: inConflict`, ...).
func runEditor(containerPath: String, noteName: String) async throws {
    let container = try Container(at: URL(fileURLWithPath: containerPath))
    let path = try DocumentPath(noteName)
    let document = ManagedDocument<Note>(container: container, path: path)
    await document.setErrorHandler { error in printError("error: \(error)") }

    if try container.currentVersion(of: path).map({ !$0.isDeletion }) ?? false {
        try await document.open()
        let lines = await document.model?.lines.count ?? 0
        print("opened \(path) (\(lines) line\(lines == 1 ? "" : "s")) on \(container.device.name)")
    } else {
        try await document.create(Note())
        print("created \(path) on \(container.device.name)")
    }
    if await document.state.contains(.inConflict) { print("state: inConflict") }

    // State changes and reloads may come at any time (autosave, another process, a sync).
    let states = await document.stateChanges()
    let events = await document.events()
    let watchers = [
        Task.detached { for await state in states { print("state: \(state)") } },
        Task.detached {
            for await event in events {
                switch event {
                case let .reloaded(version): print("reloaded version \(version.prefix(12)) saved elsewhere")
                case let .editsSavedIntoConflict(version):
                    print("unsaved edits saved as version \(version.prefix(12)); they compete with a newer version")
                case .saved, .downloading: break
                }
            }
        },
    ]
    defer { watchers.forEach { $0.cancel() } }

    print("commands: show, append TEXT, replace N TEXT, save, quit")
    while let line = readLine() {
        let command = line.trimmingCharacters(in: .whitespaces)
        let (verb, rest) = split(command)
        do {
            switch verb {
            case "": continue
            case "show":
                print(await document.model?.numbered ?? "  (not open)")
            case "append":
                try await document.edit { $0.lines.append(rest) }
                print("appended line \(await document.model?.lines.count ?? 0)")
            case "replace":
                let (number, text) = split(rest)
                guard let index = Int(number), index >= 1 else { throw NoteError("usage: replace N TEXT") }
                try await document.edit { note in
                    guard index <= note.lines.count else { throw NoteError("there is no line \(index)") }
                    note.lines[index - 1] = text
                }
                print("replaced line \(index)")
            case "save":
                try await document.save()
                let version = try await document.currentVersion()
                print("saved version \(version?.shortID ?? "?")")
            case "quit":
                try await document.close()
                print("closed \(path)")
                return
            default:
                print("unknown command '\(verb)'; commands: show, append TEXT, replace N TEXT, save, quit")
            }
        } catch {
            print("error: \(error)")
        }
    }
    // End of input: close like quit (unsaved edits are saved).
    try await document.close()
    print("closed \(path)")
}

/// Splits "verb the rest" at the first space.
private func split(_ text: String) -> (String, String) {
    guard let space = text.firstIndex(of: " ") else { return (text, "") }
    return (String(text[..<space]), String(text[text.index(after: space)...]))
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
