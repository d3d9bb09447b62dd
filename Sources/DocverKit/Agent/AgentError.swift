import Foundation

/// Why the agent could not start or be reached.
public enum AgentError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// Another agent already serves this container.
    case alreadyRunning(pid: Int32)
    /// No agent runs for this container.
    case notRunning
    /// inotify allows no more watches (`fs.inotify.max_user_watches`, or the agent's own limit).
    case watchLimitReached(path: String, limit: Int?)
    /// The socket's path is longer than a Unix socket address allows (108 bytes).
    case socketPathTooLong(String)
    /// The agent did not stop within the time allowed.
    case didNotStop(pid: Int32)
    /// The agent's answer over its socket could not be read.
    case badAnswer(String)
    /// A `docver.agent.*` config value is not valid.
    case badConfiguration(key: String, value: String)

    public var description: String {
        switch self {
        case let .alreadyRunning(pid): "an agent is already running for this container (pid \(pid))"
        case .notRunning: "no agent is running for this container"
        case let .watchLimitReached(path, limit):
            "cannot watch \(path): the inotify watch limit\(limit.map { " (fs.inotify.max_user_watches = \($0))" } ?? "") is reached"
        case let .socketPathTooLong(path): "the agent's socket path is too long for a Unix socket: \(path)"
        case let .didNotStop(pid): "the agent (pid \(pid)) did not stop in time"
        case let .badAnswer(reason): "the agent's answer could not be read: \(reason)"
        case let .badConfiguration(key, value): "invalid value '\(value)' for \(key)"
        }
    }

    public var errorDescription: String? { description }
}
