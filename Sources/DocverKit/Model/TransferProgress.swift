/// How far a transfer with a remote has come: objects and bytes received by a fetch (a sync's
/// or a clone's), or sent by a push. Reported through a ``TransferProgressHandler`` while the
/// transfer runs, on the thread that called ``Container/sync(_:savingFirst:progress:)`` or
/// ``Container/clone(from:to:device:progress:)``.
///
/// Counts only grow during one transfer. A fetch is complete when every object is received
/// and indexed (``isComplete``); a fetch that finds nothing new, or a push with nothing to
/// send, may report nothing at all.
public struct TransferProgress: Sendable, Hashable {
    /// Which way the objects move.
    public enum Direction: String, Sendable, Hashable {
        /// Objects received from the remote.
        case fetch
        /// Objects sent to the remote.
        case push
    }

    /// The remote's name.
    public var remote: String
    /// A fetch or a push.
    public var direction: Direction
    /// Objects received (fetch) or sent (push) so far.
    public var objects: Int
    /// Objects the transfer will move in all (0 before the remote has said).
    public var totalObjects: Int
    /// Objects received and checked into the object database (fetch; equal to ``objects`` for a push).
    public var indexedObjects: Int
    /// Bytes received or sent so far. A push to a local repository (a path or `file://`
    /// remote) reports 0 while it runs and the size of the pack it wrote once it is done: its
    /// transport does not count bytes.
    public var bytes: Int

    /// A report of `objects` of `totalObjects` moved (`indexedObjects` of them indexed) in `bytes`.
    public init(remote: String, direction: Direction, objects: Int, totalObjects: Int, indexedObjects: Int, bytes: Int) {
        self.remote = remote
        self.direction = direction
        self.objects = objects
        self.totalObjects = totalObjects
        self.indexedObjects = indexedObjects
        self.bytes = bytes
    }

    /// Every object moved (and, for a fetch, indexed).
    public var isComplete: Bool {
        totalObjects > 0 && objects == totalObjects && indexedObjects == totalObjects
    }
}

/// Receives ``TransferProgress`` reports. Called often (for every chunk the transport moves),
/// synchronously on the transferring thread: it should return quickly, and throttle any
/// drawing itself.
public typealias TransferProgressHandler = @Sendable (TransferProgress) -> Void
