import DocverKit
import Foundation
import Synchronization
import Testing

// Helpers shared by the editor tests (EditorLifecycleTests, EditorAutosaveTests,
// EditorOutsideChangesTests, EditorQueryTests).

typealias TextDocument = ManagedDocument<TextModel>

/// Editor timing on a manual clock. The poll interval is long unless a test moves the clock
/// that far on purpose, so polling never interferes with autosave timing.
func editorConfiguration(
    _ clock: ManualClock, autosaveDelay: Duration = .seconds(5),
    pollInterval: Duration = .seconds(3600)
) -> TextDocument.Configuration {
    TextDocument.Configuration(autosaveDelay: autosaveDelay, pollInterval: pollInterval, clock: clock)
}

/// A text document on a manual clock (not yet created or opened).
func textDocument(
    _ container: Container, _ name: String, clock: ManualClock = ManualClock(),
    autosaveDelay: Duration = .seconds(5), pollInterval: Duration = .seconds(3600)
) throws -> TextDocument {
    TextDocument(
        container: container, path: try DocumentPath(name),
        configuration: editorConfiguration(clock, autosaveDelay: autosaveDelay, pollInterval: pollInterval))
}

/// Collects the errors a document hands to its error handler.
final class ErrorLog: Sendable {
    private let errors = Mutex<[String]>([])
    var all: [String] { errors.withLock { $0 } }
    var handler: @Sendable (any Error) -> Void {
        { [self] error in errors.withLock { $0.append("\(error)") } }
    }
}

/// Expects `body` to throw exactly `expected`.
func expectDocverError<T>(
    _ expected: DocverError, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("expected \(expected), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as DocverError {
        #expect(error == expected, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
    }
}

extension Container {
    /// The current text of a flat document, read through the library.
    func currentText(_ name: String) throws -> String? {
        guard let version = try currentVersion(of: DocumentPath(name)), !version.isDeletion,
            case let .flat(data) = try contents(of: version)
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The texts of a document's unresolved conflict versions.
    func conflictTexts(_ name: String) throws -> [String] {
        try unresolvedConflictVersions(of: DocumentPath(name)).compactMap { version in
            guard case let .flat(data) = try contents(of: version) else { return nil }
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// The number of versions of a document: the current one and its history.
    func versionCount(_ name: String) throws -> Int {
        try history(of: DocumentPath(name)).count + 1
    }
}

/// Runs the docver CLI in a container (another process) and requires success.
@discardableResult
func docverSucceeds(
    _ arguments: String..., in container: Container,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> ProcessResult {
    let result = try docver(arguments, in: container.root)
    #expect(
        result.status == 0, "docver \(arguments.joined(separator: " ")) failed: \(result.stderr)",
        sourceLocation: sourceLocation)
    return result
}
