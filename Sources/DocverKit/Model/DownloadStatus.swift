import Foundation

/// Whether a document's contents are on this device, as iCloud's
/// `NSMetadataUbiquitousItemDownloadingStatusKey` tells it.
public enum DownloadStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Evicted: a placeholder stands in its place (`docver download` brings it back).
    case notDownloaded
    /// Here, but a fetched device branch holds a newer save of it, not yet integrated.
    case downloaded
    /// Here, and nothing newer is known.
    case current
}
