import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// Finding, asking and stopping the agent of a container from another process (the CLI's
// `agent start|stop|status`).

extension Agent {
    /// The process id of the agent running for `container`, or nil when none runs (a pid file
    /// left by a killed agent is not locked, so it does not count).
    public static func runningPID(for container: Container) -> Int32? {
        AgentLock.runningPID(path: container.files.agentPID)
    }

    /// Where `docver agent start` writes the background agent's events.
    public static func logPath(for container: Container) -> String { container.files.agentLog }

    /// The agent's log opened for appending (created if missing), without following a
    /// symbolic link in its place.
    public static func openLog(for container: Container) throws -> FileHandle {
        let path = container.files.agentLog
        let descriptor = FileSystem.openLocalFile(path, O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK)
        guard descriptor >= 0 else { throw DocverError.system(.errno("open the agent's log", path)) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw DocverError.system(SystemError("open the agent's log", path, reason: "it is not a regular file"))
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// The last line of the agent's log, if it has one (a link in its place is not followed).
    public static func lastLogLine(for container: Container) -> String? {
        FileSystem.localContentsIfReadable(container.files.agentLog)
            .flatMap { String(decoding: $0, as: UTF8.self).split(separator: "\n").last.map(String.init) }
    }

    /// Asks the running agent for its status over its socket. Returns nil when no agent answers
    /// within `timeout` (none runs, or its socket is stale).
    public static func status(of container: Container, timeout: Duration = .seconds(1)) throws -> AgentStatus? {
        let milliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard
            let answer = SocketClient.request(
                "status", path: container.files.agentSocket,
                timeout: max(1, milliseconds))
        else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(AgentStatus.self, from: Data(answer.utf8))
        } catch {
            throw AgentError.badAnswer(answer)
        }
    }

    /// Sends SIGTERM to the running agent and waits until it has finished its save and exited.
    /// Returns its pid; throws ``AgentError/notRunning`` when none runs and
    /// ``AgentError/didNotStop(pid:)`` when it is still running after `timeout`.
    @discardableResult
    public static func terminate(for container: Container, timeout: Duration = .seconds(30)) throws -> Int32 {
        guard let pid = runningPID(for: container) else { throw AgentError.notRunning }
        guard kill(pid, SIGTERM) == 0 else {
            if errno == ESRCH { return pid }  // it exited meanwhile
            throw SystemError.errno("signal the agent", "pid \(pid)")
        }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        // Stopped means gone: the agent releases the container (its lock) first, then exits.
        while clock.now < deadline {
            if runningPID(for: container) == nil, kill(pid, 0) != 0, errno == ESRCH { return pid }
            usleep(20_000)
        }
        throw AgentError.didNotStop(pid: pid)
    }
}

extension Agent {
    // A client waits 20 ms for a served answer (connecting included) before it works
    // directly: the agent answers from memory in well under a millisecond (docs/AGENT.md).

    /// The container's status as its running agent keeps it, or nil when no agent runs, it
    /// does not answer within `timeout`, or it cannot vouch that nothing changed since it
    /// computed it: then call ``Container/status()``. When not nil, it is what
    /// ``Container/status()`` returns, without reading the working tree. An agent that does
    /// not answer in time is not asked again by this process for a few seconds (neither for
    /// the status nor for the conflicts ``Container/status()`` then lists).
    public static func cachedStatus(of container: Container, timeout: Duration = .milliseconds(20)) -> ContainerStatus? {
        guard container.asksAgent, !container.hasInterruptedCheckout,
            FileStat(path: container.files.agentSocket) != nil
        else { return nil }
        let head: ObjectID?
        do { head = try container.withRepository { try container.headCommit($0) } } catch { return nil }
        let milliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard
            let answer = SocketClient.request(
                "container-status \(head?.hex ?? "none")", path: container.files.agentSocket,
                timeout: max(1, milliseconds), rememberingSilence: true),
            let served = try? JSONDecoder().decode(ServedStatus.self, from: Data(answer.utf8))
        else { return nil }
        return served.status
    }
}

/// ``ContainerStatus`` on the agent's socket (`container-status <head>`).
struct ServedStatus: Codable {
    struct Change: Codable {
        var document: String
        var change: String
    }
    struct Count: Codable {
        var document: String
        var conflicts: Int
    }
    var changed: [Change]
    var inConflict: [Count]

    init(_ status: ContainerStatus) {
        changed = status.changed.map { Change(document: $0.document.path, change: $0.change.rawValue) }
        inConflict = status.inConflict.map { Count(document: $0.document.path, conflicts: $0.conflicts) }
    }

    /// Nil when a field does not decode (an agent of another version): the caller falls back.
    var status: ContainerStatus? {
        var changes: [DocumentChange] = []
        for change in changed {
            guard let kind = ChangeKind(rawValue: change.change) else { return nil }
            changes.append(DocumentChange(document: DocumentPath(trusted: change.document), change: kind))
        }
        return ContainerStatus(
            changed: changes,
            inConflict: inConflict.map { DocumentConflictCount(document: DocumentPath(trusted: $0.document), conflicts: $0.conflicts) })
    }
}
