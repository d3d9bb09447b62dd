import Foundation
import Testing

/// The code keeps the house style: `swift-format lint --strict` with the repository's
/// `.swift-format` finds nothing in Sources, Tests, Examples and Package.swift. To format:
/// `swift format -i -r -p Sources Tests Examples Package.swift`.
@Suite struct SwiftFormatTests {
    /// swift-format as the toolchain ships it, beside `swift` on the PATH.
    private static var swiftFormat: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        for folder in path.split(separator: ":") {
            let candidate = String(folder) + "/swift-format"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    private func lint(_ paths: [String], in directory: URL) throws -> ProcessResult {
        let tool = try #require(Self.swiftFormat, "swift-format is not on the PATH (the Swift toolchain ships it beside swift)")
        let configuration = repositoryRoot.appendingPathComponent(".swift-format").path
        return try runProcess(tool, ["lint", "--strict", "--parallel", "--configuration", configuration, "-r"] + paths, in: directory)
    }

    @Test func theCodeKeepsTheHouseStyle() throws {
        let result = try lint(["Sources", "Tests", "Examples", "Package.swift"], in: repositoryRoot)
        #expect(result.status == 0, "\(result.stderr.prefix(4000))")
    }

    /// The check can fail: a file indented by two spaces, with two statements on a line, is refused.
    @Test func codeOutOfStyleIsFound() throws {
        let scratch = try Scratch()
        let file = scratch.path("Off.swift")
        try Data("func off() {\n  let a = 1; let b = 2\n  print(a+b)\n}\n".utf8).write(to: file)
        let result = try lint([file.path], in: scratch.url)
        #expect(result.status != 0)
        #expect(result.stderr.contains("Off.swift"), "\(result.stderr)")
    }
}
