import Foundation

/// The repository's root (this file is Tests/DocverTests/Support/…).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// Runs `python3 Tools/<tool> --check` on the repository at `root` (the real one, or a copy a
/// test changed), which the tool reads from the environment variable `rootVariable`.
func checkWithTool(_ tool: String, root: URL, rootVariable: String) throws -> ProcessResult {
    try runProcess(
        "/usr/bin/env", ["python3", repositoryRoot.appendingPathComponent("Tools/" + tool).path, "--check"],
        environment: [rootVariable: root.path])
}

/// A copy of the repository's `folders` at `copy`, for a test that breaks it on purpose.
func copyOfRepository(_ folders: [String], at copy: URL) throws {
    for folder in folders {
        try FileManager.default.createDirectory(
            at: copy.appendingPathComponent(folder).deletingLastPathComponent(),
            withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent(folder), to: copy.appendingPathComponent(folder))
    }
}
