import Foundation

extension Container {
    /// The entry a stored version holds of its document; nil for a deletion.
    func entryState(of version: DocumentVersion, in repository: Repository) throws -> EntryState? {
        try Self.entryState(of: version, in: repository)
    }

    /// A stored version's entry (id and mode) in its commit's tree; nil for a deletion.
    static func entryState(of version: DocumentVersion, in repository: Repository) throws -> EntryState? {
        guard let id = version.entryID else { return nil }
        let mode = try repository.tree(repository.commit(version.commitID).treeID).documentEntry(atPath: version.document.path)?.mode
        return EntryState(id, mode ?? EntryState.fallbackMode(for: version.kind))
    }

    /// Saves a stored version's state of a document as the new current version and updates
    /// the working tree. Unsaved edits of that document are saved first, so none is lost.
    func writeVersion(
        _ version: DocumentVersion, of document: DocumentPath, subject: String,
        records: [(key: String, value: String)], in repository: Repository
    ) throws -> SaveResult {
        try writeDocumentState(
            entryState(of: version, in: repository), of: document, subject: subject,
            records: records, in: repository)
    }

    /// Commits a document's new state (nil: deleted) on this device's branch, even when the
    /// state is unchanged (a resolution is recorded like a save), then updates that document
    /// in the working tree. Unsaved edits of the document are saved first.
    func writeDocumentState(
        _ state: EntryState?, of document: DocumentPath, subject: String,
        records: [(key: String, value: String)], in repository: Repository
    ) throws -> SaveResult {
        // An evicted document comes back first: the write replaces a file, as anywhere else.
        try bringBack([document], in: repository)
        if let state {
            try refuseEditsInTheWay(of: document, changes: unsavedChanges(around: document, in: repository))
            // A device on demand brings the state's contents first, or fails in one line here.
            try repository.fetchMissingContents(under: state.id, isFolder: state.mode.isTree)
        }
        do {
            _ = try save([document], message: nil, in: repository)
        } catch DocverError.noSuchDocument {
            // Neither in the working tree nor in the last save (its deletion is saved): no edits to keep.
        }
        let old = try headCommit(repository)
        let oldTree = try old.map { try repository.commit($0).treeID }
        // Writing a file where a plain folder stands, or inside a folder that is now a file,
        // displaces what is in the way, as a save does: it is saved as deleted beside the
        // document (its versions stay in its history).
        let displaced = state == nil ? [] : try displacedDocuments(by: [document], headTree: oldTree, in: repository)
        let snapshots =
            [DocumentSnapshot(document: document, state: state, files: [])]
            + displaced.map { DocumentSnapshot(document: $0, state: nil, files: []) }
        // The intent names every file the commit changes (the document's and the displaced
        // ones) with their old and new states before the branch moves; a crash before they
        // are written is finished by the next command, never mistaken for an edit that would
        // undo this write.
        var planned: WriteIntent?
        guard
            let result = try commitSnapshots(
                snapshots, subject: subject, in: repository, records: records,
                allowEmpty: true, updateIndex: false,
                intent: { commit, parent in
                    let parentTree = try parent.map { try repository.commit($0).treeID }
                    let files = try plannedFiles(from: parentTree, to: repository.commit(commit).treeID, in: repository)
                    let intent = WriteIntent(operation: .writeDocument, from: parent, to: commit, files: files)
                    planned = intent
                    return intent
                })
        else {
            throw DocverError.noSuchDocument(document.path)
        }
        if let planned { try carryOut(planned, in: repository) }
        return result
    }

    /// Throws ``DocverError/editsInTheWay(document:blocking:)`` when writing `document` into
    /// the working tree would need the place of another document's unsaved edit: a file (or
    /// link) added or modified where one of the document's folders goes, or files added or
    /// modified inside a folder where the document goes. The write would leave that edit
    /// alone and record its document as displaced, so the next save would undo the write or
    /// the edit's document would be recorded as gone while the edit is still there. Nothing
    /// is written before the check.
    func refuseEditsInTheWay(of document: DocumentPath) throws {
        try refuseEditsInTheWay(of: document, changes: withRepository { try unsavedChanges(around: document, in: $0) })
    }

    /// ``refuseEditsInTheWay(of:)`` with the unsaved changes around the document known.
    func refuseEditsInTheWay(of document: DocumentPath, changes: [DocumentChange]) throws {
        let below = document.path + "/"
        for change in changes where change.change != .deleted && change.document != document {
            let other = change.document.path
            if below.bytesHavePrefix(other + "/") || other.bytesHavePrefix(below) {  // names are bytes
                throw DocverError.editsInTheWay(document: document.path, blocking: other)
            }
        }
    }

    /// A commit that changes no document and only records trailers (a resolution record).
    func recordOnly(subject: String, records: [(key: String, value: String)], in repository: Repository) throws -> SaveResult {
        // With `allowEmpty`, commitSnapshots always writes a commit or throws.
        try commitSnapshots(
            [], subject: subject, in: repository, records: records,
            allowEmpty: true, updateIndex: false)!
    }
}
