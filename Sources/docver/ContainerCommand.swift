import ArgumentParser
import DocverKit

/// A subcommand that works on an existing container: every subcommand but `init` and `clone`.
///
/// A command declares its arguments and implements ``run(in:)``: parse the arguments, call the
/// library, render the result. The default `run()` opens the container named by the global
/// options (`-C PATH`, or the current directory, or the nearest container above it) and reports
/// errors the documented way (``reportingErrors(_:)``).
protocol ContainerCommand: AsyncParsableCommand, GlobalOptionsCommand {
    var global: GlobalOptions { get }
    func run(in container: Container) async throws
}

extension ContainerCommand {
    func run() async throws {
        try await reportingErrors {
            let container = try global.container()
            do {
                try await run(in: container)
            } catch DocverError.noSuchDocument(let name) {
                // A name typed from the wrong folder: point at the document it may mean.
                let arguments = DocumentArguments(container, global)
                let hint = arguments.neverSavedHint(for: name) ?? arguments.suggestion(for: name)
                throw HintedFailure(
                    DocverError.noSuchDocument(name).description, hint: hint ?? Advice.hint(for: .noSuchDocument(name)),
                    kind: DocverError.noSuchDocument(name).code)
            }
        }
    }
}

extension AsyncParsableCommand {
    /// Runs a command body, rendering a failure as `docver: error: ...` (and a hint where one
    /// helps) on stderr with exit code 1. Usage errors pass through to the argument parser,
    /// which prints them with the usage and exits 64.
    ///
    /// First applies the global options (colour, dates, -q/-v: ``GlobalOptions/apply()``) and
    /// starts the pager for a command that pages; the pager is closed before an error is
    /// printed, so the error shows after the output, on the terminal.
    func reportingErrors(_ body: () async throws -> Void) async throws {
        (self as? any GlobalOptionsCommand)?.global.apply()
        if let paged = self as? any PagedCommand, paged.pagesOutput { Pager.start() }
        let clock = ContinuousClock()
        let start = clock.now
        defer { Diagnostics.logger.debug("the command took \(Diagnostics.milliseconds(clock.now - start)) ms") }
        do {
            try await body()
            Pager.finish()
        } catch {
            Pager.finish()
            try report(error)
        }
    }

    private func report(_ error: any Error) throws {
        throw printedFailure(error)
    }
}

/// Prints a failure the documented way (`docver: error: ...`, and a hint where one helps);
/// returns what the command then throws: its exit code, or a usage error, which the argument
/// parser prints with the usage (exit 64).
func printedFailure(_ error: any Error) -> any Error {
    switch error {
    case let error as DocverError:
        Terminal.error(error)
        JSONFailure.print(
            code: error.code, exitCode: ExitCode.failure.rawValue, message: error.description,
            hint: Advice.hint(for: error))
        return ExitCode.failure
    case let error as HintedFailure:
        Terminal.error(error.message, hint: error.hint)
        JSONFailure.print(code: error.kind, exitCode: error.code.rawValue, message: error.message, hint: error.hint)
        return error.code
    case let error as GitError:
        Terminal.error(error.message, hint: nil)
        JSONFailure.print(code: "git", exitCode: ExitCode.failure.rawValue, message: error.message, hint: nil)
        return ExitCode.failure
    case let error as ExitCode:
        return error
    case let error as ValidationError:
        return error
    default:
        // Anything else (a file-system error, say) still gets the documented one-line form.
        let message = DocverError.printable(error.localizedDescription)
        Terminal.error(message, hint: nil)
        JSONFailure.print(code: "failed", exitCode: ExitCode.failure.rawValue, message: message, hint: nil)
        return ExitCode.failure
    }
}
