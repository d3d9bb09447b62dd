import Foundation

/// The document listing (``Container/documents()``, every document with its metadata) cached
/// in `.git/docver/document-listing` for one state of the references it is computed from.
///
/// The listing is a function of immutable objects and three inputs: the head, the tracking
/// branches (which decide "uploaded" and "remote changes") and the signing rule (which decides
/// which conflict records count). Its key names all three by commit id; a stored listing is
/// used only when its key, format and item count match exactly, and is otherwise recomputed
/// and replaced (written atomically). Deleting it costs one computation, never an answer.
struct DocumentListingCache {
    let files: MetadataFiles

    /// Raised whenever the rules that compute the listing change, so that a listing stored by
    /// an older build is recomputed, not trusted.
    static let format = 1

    /// What the listing at `head` depends on, as one line (ref names hold no spaces or tabs).
    static func key(head: ObjectID, tracking: [(name: String, target: ObjectID)], trust: String?) -> String {
        let branches = tracking.map { "\($0.name) \($0.target.hex)" }.sorted().joined(separator: " ")
        return [head.hex, trust.map(ListingText.escape) ?? "-", branches].joined(separator: "\t")
    }

    /// The listing stored under `key`, if there is one.
    func listing(key: String) -> [MetadataItem]? {
        // Mapped: the file is only ever replaced by renaming (``store(_:key:)``).
        guard let data = FileSystem.localContentsIfReadable(files.documentListing, mapped: true) else { return nil }
        return ListingText.decodeDocumentListing(data, format: Self.format, key: key)
    }

    /// What a listing of any head knows that does not depend on its key: facts about
    /// immutable objects, each a function of the object's id (an entry's size; a version
    /// commit's device and date, read from the commit). After a save moved the head, most
    /// documents keep their entries and versions, so the new listing reads only the new ones.
    struct Facts {
        var sizes: [ObjectID: Int64] = [:]
        var savers: [ObjectID: (device: Device, modified: Date)] = [:]
    }

    /// The facts of the stored listing, whatever its key (none when it is missing or
    /// unreadable, or of another format). Like `versions.json`, they are taken as written:
    /// only the format and the count are checked, and deleting the file makes the next
    /// listing read every object again.
    func facts() -> Facts {
        var facts = Facts()
        guard let data = FileSystem.localContentsIfReadable(files.documentListing),
            let items = ListingText.decodeDocumentListing(data, format: Self.format, key: nil)
        else { return facts }
        for item in items {
            if let entry = item.current.entryID, let size = item.current.size { facts.sizes[entry] = size }
            facts.savers[item.current.commitID] = (item.current.device, item.current.modified)
        }
        return facts
    }

    /// Stores `items` under `key`; a failure only costs time on the next call. Not flushed:
    /// after a power loss the file may be empty or short, which its header's count rejects.
    func store(_ items: [MetadataItem], key: String) {
        try? FileSystem.createDirectory(files.directory)
        try? AtomicFile.write(
            ListingText.encodeDocumentListing(format: Self.format, key: key, items: items),
            to: files.documentListing, flush: false)
    }
}
