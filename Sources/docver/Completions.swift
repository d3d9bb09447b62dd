import DocverKit
import Foundation

/// Dynamic shell completion (`CompletionKind.custom`): document paths, version ids and
/// remote names of the container the command line names (`-C PATH`, else the current
/// directory).
///
/// The shell runs these on every Tab, so they stay cheap and never write: they use the
/// library's read-only completion queries (no lock, no cache written), and any failure
/// (no container, a damaged repository) completes nothing rather than printing an error.
enum Completions {
    typealias Completer = @Sendable ([String], Int, String) -> [String]

    /// The document paths of the current version, as typed from the working directory (as
    /// commands read them): those below it, and with `../` typed, those elsewhere too.
    static let documents: Completer = { words, _, prefix in
        guard let (container, directory) = container(named: words), let paths = try? container.documentPaths() else { return [] }
        let folder = DocumentArguments(container, directory: directory).folder
        return paths.map { $0.relative(toFolder: folder) }
            .filter { $0.hasPrefix(prefix) && (!$0.hasPrefix("../") || prefix.hasPrefix("..")) }
    }

    /// What `save` takes: the saved documents, and the files and folders of the working tree
    /// in the folder being typed (new documents, packages), from one directory listing.
    static let documentsAndFiles: Completer = { words, position, prefix in
        let saved = documents(words, position, prefix)
        let typedFolder = prefix.contains("/") ? String(prefix[...prefix.lastIndex(of: "/")!]) : ""
        var directory = FileManager.default.currentDirectoryPath
        for (index, word) in words.enumerated() where word == "-C" && index + 1 < words.count {
            directory = URL(fileURLWithPath: words[index + 1], relativeTo: URL(fileURLWithPath: directory, isDirectory: true)).path
        }
        let folder = URL(fileURLWithPath: typedFolder.isEmpty ? "." : typedFolder, relativeTo: URL(fileURLWithPath: directory, isDirectory: true))
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let files = names.filter { !$0.hasPrefix(".") }.map { typedFolder + $0 }.filter { $0.hasPrefix(prefix) }
        return Array(Set(saved + files)).sorted()
    }

    /// Version ids (12 digits) of the document named on the command line, or of recent saves.
    static let versions: Completer = { words, _, prefix in
        guard let (container, directory) = container(named: words) else { return [] }
        let arguments = DocumentArguments(container, directory: directory)
        let documents = Set((try? container.documentPaths()) ?? [])
        let document = words.lazy.compactMap { try? arguments.path($0) }.first(where: documents.contains)
        let ids = (try? container.recentVersionIDs(of: document)) ?? []
        return ids.map { String($0.prefix(12)) }.filter { $0.hasPrefix(prefix.lowercased()) }
    }

    /// The unresolved conflict versions of the document named on the command line (12
    /// digits), as `mark-resolved` takes them; its recent versions when the conflicts are not
    /// known without walking history (``Container/cachedConflictVersionIDs(of:)``).
    static let conflictVersions: Completer = { words, position, prefix in
        guard let (container, directory) = container(named: words) else { return [] }
        let arguments = DocumentArguments(container, directory: directory)
        let documents = Set((try? container.documentPaths()) ?? [])
        guard let document = words.lazy.compactMap({ try? arguments.path($0) }).first(where: documents.contains),
            let ids = (try? container.cachedConflictVersionIDs(of: document)) ?? nil
        else {
            return versions(words, position, prefix)
        }
        return ids.map { String($0.prefix(12)) }.filter { $0.hasPrefix(prefix.lowercased()) }
    }

    /// The configured remotes' names.
    static let remotes: Completer = { words, _, prefix in
        guard let (container, _) = container(named: words), let remotes = try? container.remotes() else { return [] }
        return remotes.map(\.name).filter { $0.hasPrefix(prefix) }
    }

    /// The container at `-C PATH` (the last one given) or the current directory, and that
    /// directory.
    private static func container(named words: [String]) -> (Container, URL)? {
        var directory = FileManager.default.currentDirectoryPath
        for (index, word) in words.enumerated() where word == "-C" && index + 1 < words.count {
            directory = URL(fileURLWithPath: words[index + 1], relativeTo: URL(fileURLWithPath: directory, isDirectory: true)).path
        }
        let url = URL(fileURLWithPath: directory)
        return (try? Container(at: url)).map { ($0, url) }
    }
}
