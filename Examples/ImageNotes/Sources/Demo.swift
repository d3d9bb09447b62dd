import DocverKit
import Foundation

/// `image-notes demo`: two devices edit different components of the same package while apart
/// (the laptop the text, the phone the image); after a sync the package is in conflict, and
/// MergeStrategy merges it component by component, so both edits survive.
func runDemo() async throws {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("image-notes-demo-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let settings = ManagedDocument<ImageNote>.Configuration(autosaveDelay: .seconds(2), pollInterval: .seconds(1))
    let notePath = try DocumentPath("lisbon.imagenotes")

    let sky = PNG.make(width: 16, height: 16) { _, y in (90, UInt8(140 + y * 4), 230) }
    let sunset = PNG.make(width: 16, height: 16) { x, y in (UInt8(200 + y * 3), UInt8(80 + x * 6), 60) }

    step("1. The laptop makes an image note and syncs it through a bare remote")
    let remote = try makeBareRepository(at: work.appendingPathComponent("remote.git"))
    let laptop = try Container.create(at: work.appendingPathComponent("laptop"), device: Device(id: "laptop", name: "Bob's Laptop"))
    try laptop.addRemote("origin", url: remote.path)
    let first = ManagedDocument<ImageNote>(container: laptop, path: notePath, configuration: settings)
    try await first.create(ImageNote(text: "Day 1: arrived in Lisbon.\n", image: sky))
    try await first.close()
    try laptop.sync()
    print("laptop saved \(notePath)/ (\(ImageNote.textName), \(ImageNote.imageName): \(ImageNote.describe(sky))) and pushed it")

    step("2. The phone joins")
    let (phone, _) = try Container.clone(
        from: remote.path, to: work.appendingPathComponent("phone"),
        device: Device(id: "phone", name: "Bob's Phone"))
    print("phone has \(notePath): \(try phone.currentVersion(of: notePath)?.kind.rawValue ?? "nothing")")

    step("3. Apart: the phone replaces the image, the laptop adds to the text")
    let onPhone = ManagedDocument<ImageNote>(container: phone, path: notePath, configuration: settings)
    try await onPhone.open()
    try await onPhone.edit { $0.image = sunset }
    try await onPhone.close()
    try phone.sync()
    print("phone saved a new image (\(ImageNote.describe(sunset))) and synced")

    let onLaptop = ManagedDocument<ImageNote>(container: laptop, path: notePath, configuration: settings)
    try await onLaptop.open()
    try await onLaptop.edit { $0.text += "Day 2: tram 28 up to the castle.\n" }
    try await onLaptop.save()
    let laptopText = await onLaptop.model?.text ?? ""
    print("laptop added a line to the text and saved, not yet synced")

    step("4. The laptop syncs: the package is in conflict")
    let report = try laptop.sync()
    for (document, versions) in report.newConflicts { print("sync: \(document) has \(versions.count) new conflict version(s)") }
    // An open editor notices within its poll interval; ask now rather than wait for it.
    await onLaptop.checkForChanges()
    let state = await onLaptop.state
    print("laptop editor state: \(state)")
    guard state.contains(.inConflict) else { throw ImageNoteError("expected the package to be in conflict") }
    guard let current = try await onLaptop.currentVersion() else { throw ImageNoteError("no current version") }
    for (label, version) in [("current ", current)] + (try await onLaptop.conflictVersions()).map({ ("conflict", $0) }) {
        let note = try ImageNote(contents: laptop.contents(of: version), type: notePath.type)
        print(
            "  \(label) \(version.shortID) from \(version.device.name): \(note.text.split(separator: "\n").count) text line(s), image \(note.imageSummary)"
        )
    }

    step("5. Resolve with MergeStrategy: component by component")
    let outcome = try await onLaptop.resolve(using: MergeStrategy())
    print(outcome.summary)
    print("laptop editor state: \(await onLaptop.state)")
    guard let merged = await onLaptop.model else { throw ImageNoteError("the note is not open") }
    print("\(ImageNote.textName):")
    for line in merged.text.split(separator: "\n") { print("  \(line)") }
    print("\(ImageNote.imageName): \(merged.imageSummary)")
    let textSurvived = merged.text == laptopText
    let imageSurvived = merged.image == sunset
    print("the laptop's text edit survived: \(textSurvived ? "yes" : "NO")")
    print("the phone's image edit survived: \(imageSurvived ? "yes" : "NO")")
    try await onLaptop.close()
    guard textSurvived, imageSurvived else { throw ImageNoteError("an edit was lost") }

    step("6. Both devices sync and agree")
    try laptop.sync()
    try phone.sync()
    let onDisk = try Data(contentsOf: phone.root.appendingPathComponent(notePath.path + "/" + ImageNote.imageName))
    let phoneNote = try ImageNote(contents: phone.contents(of: phone.currentVersion(of: notePath)!), type: notePath.type)
    let noConflicts = try laptop.conflicts().isEmpty && phone.conflicts().isEmpty
    let agreed = phoneNote == merged && onDisk == sunset && noConflicts
    print("laptop and phone hold the same merged note, no conflicts left: \(agreed ? "yes" : "NO")")
    guard agreed else { throw ImageNoteError("the devices did not converge") }
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
