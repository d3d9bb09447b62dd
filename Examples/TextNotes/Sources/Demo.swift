import DocverKit
import Foundation

/// `text-notes demo`: two devices edit the same note while apart, sync, see the conflict and
/// resolve it by user choice, all in a temporary folder.
func runDemo() async throws {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("text-notes-demo-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let settings = ManagedDocument<Note>.Configuration(autosaveDelay: .seconds(2), pollInterval: .seconds(1))
    let notePath = try DocumentPath("shopping.txt")

    step("1. Alice's laptop writes a note and syncs it through a bare remote")
    let remote = try makeBareRepository(at: work.appendingPathComponent("remote.git"))
    let laptop = try Container.create(at: work.appendingPathComponent("laptop"), device: Device(id: "laptop", name: "Alice's Laptop"))
    try laptop.addRemote("origin", url: remote.path)
    let first = ManagedDocument<Note>(container: laptop, path: notePath, configuration: settings)
    try await first.create(Note(lines: ["Shopping", "- milk", "- bread"]))
    try await first.close()
    try laptop.sync()
    print("laptop saved \(notePath) and pushed it")

    step("2. Her phone joins")
    let (phone, _) = try Container.clone(
        from: remote.path, to: work.appendingPathComponent("phone"),
        device: Device(id: "phone", name: "Alice's Phone"))
    print("phone has \(notePath):")
    print(try Note(contents: phone.contents(of: phone.currentVersion(of: notePath)!), type: "txt").numbered)

    step("3. Apart, both edit the note")
    let onPhone = ManagedDocument<Note>(container: phone, path: notePath, configuration: settings)
    try await onPhone.open()
    try await onPhone.edit { $0.lines.append("- eggs") }
    try await onPhone.close()  // closing saves
    try phone.sync()
    print("phone added an item, saved and synced")

    let onLaptop = ManagedDocument<Note>(container: laptop, path: notePath, configuration: settings)
    try await onLaptop.open()
    try await onLaptop.edit { $0.lines[1] = "- oat milk" }
    try await onLaptop.edit { $0.lines += ["- coffee", "- tea"] }
    try await onLaptop.save()
    print("laptop changed 'milk' to 'oat milk', added two items and saved, not yet synced")
    print("laptop editor state: \(await onLaptop.state)")

    step("4. The laptop syncs: the phone's version competes with its own")
    let report = try laptop.sync()
    for (document, versions) in report.newConflicts { print("sync: \(document) has \(versions.count) new conflict version(s)") }
    // An open editor notices within its poll interval; ask now rather than wait for it.
    await onLaptop.checkForChanges()
    let state = await onLaptop.state
    print("laptop editor state: \(state)")
    guard state.contains(.inConflict) else { throw NoteError("expected the note to be in conflict") }

    guard let current = try await onLaptop.currentVersion() else { throw NoteError("the note has no current version") }
    let others = try await onLaptop.conflictVersions()
    print("versions of \(notePath):")
    for (label, version) in [("current ", current)] + others.map({ ("conflict", $0) }) {
        let lines = try laptop.contents(of: version).noteLines
        print("  \(label) \(version.shortID) from \(version.device.name), \(lines.count) lines: \(lines.dropFirst().joined(separator: " "))")
    }

    step("5. The user chooses (here the demo's chooser decides)")
    let chooser = UserChoiceStrategy { conflict in
        // Keep the version with the most lines: it lost the fewest items.
        let candidates = try ([conflict.current] + conflict.conflicts).map { ($0, try laptop.contents(of: $0).noteLines.count) }
        let (choice, count) = candidates.max { $0.1 < $1.1 }!
        let role = choice == conflict.current ? "already the current version" : "a conflict version, now made current"
        print("chooser: keeping \(choice.shortID) from \(choice.device.name) (\(role)), because it has the most lines (\(count))")
        return choice
    }
    let outcome = try await onLaptop.resolve(using: chooser)
    print(outcome.summary)
    print("laptop editor state: \(await onLaptop.state)")
    print(await onLaptop.model?.numbered ?? "")
    try await onLaptop.close()

    step("6. Both devices sync and agree")
    try laptop.sync()
    try phone.sync()
    let laptopNote = try laptop.contents(of: laptop.currentVersion(of: notePath)!)
    let phoneNote = try phone.contents(of: phone.currentVersion(of: notePath)!)
    let noConflicts = try laptop.conflicts().isEmpty && phone.conflicts().isEmpty
    let agreed = laptopNote == phoneNote && noConflicts
    print("laptop and phone hold the same note, no conflicts left: \(agreed ? "yes" : "NO")")
    guard agreed else { throw NoteError("the devices did not converge") }
    print("demo finished")
}

private func step(_ title: String) {
    print("")
    print("== \(title)")
}

/// What `git init --bare` makes, written directly so the demo needs no git program.
func makeBareRepository(at url: URL) throws -> URL {
    let manager = FileManager.default
    for folder in ["objects/info", "objects/pack", "refs/heads", "refs/tags"] {
        try manager.createDirectory(at: url.appendingPathComponent(folder), withIntermediateDirectories: true)
    }
    try Data("ref: refs/heads/main\n".utf8).write(to: url.appendingPathComponent("HEAD"))
    try Data("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n".utf8)
        .write(to: url.appendingPathComponent("config"))
    return url
}
