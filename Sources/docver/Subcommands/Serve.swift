import ArgumentParser
import DocverKit
import Foundation

extension Docver {
    struct Serve: ContainerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Answer JSON-RPC 2.0 requests on standard input and report every change, for editors (docs/PROTOCOL.md).",
            discussion: """
                One JSON object per line in each direction. Requests are answered one at a time, in order; \
                after 'initialize', notifications (documentChanged, conflictAppeared, conflictResolved, \
                syncStateChanged, keyValueChanged) report every change to the container, whoever made it. \
                Ends after 'shutdown' or at the end of standard input (exit 0). Diagnostics go to stderr.
                """)

        @OptionGroup var global: GlobalOptions

        func run(in container: Container) async throws {
            let server = ProtocolServer(
                container: container, serverVersion: docverVersion,
                hint: { Advice.hint(for: $0) }, output: { Self.writeOut($0 + "\n") }, outputPart: Self.writeOut)
            defer { server.stop() }
            for await line in Self.standardInputLines() {
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }  // blank lines are no requests
                guard await server.handle(line) else { return }
            }
        }

        /// Writes `text` to stdout whole (the server calls this for one line, or one part of a
        /// line, at a time).
        @Sendable static func writeOut(_ text: String) {
            var bytes = Array(text.utf8)
            var written = 0
            while written < bytes.count {
                let count = bytes.withUnsafeMutableBytes { write(STDOUT_FILENO, $0.baseAddress! + written, $0.count - written) }
                if count < 0 && errno == EINTR { continue }
                // The client went away: nobody reads the answers; the end of stdin ends the server.
                guard count > 0 else { return }
                written += count
            }
        }

        /// The lines of stdin (without their newline), read on a thread of their own: a
        /// blocking read must not hold a thread of the cooperative pool.
        static func standardInputLines() -> AsyncStream<Data> {
            AsyncStream { continuation in
                let thread = Thread {
                    while let line = readLine(strippingNewline: true) { continuation.yield(Data(line.utf8)) }
                    continuation.finish()
                }
                thread.name = "docver serve: stdin"
                thread.start()
            }
        }
    }
}
