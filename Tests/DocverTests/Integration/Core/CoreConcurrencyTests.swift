import DocverKit
import Foundation
import Testing

/// Several processes saving into one container at once never lose a save.
@Suite struct CoreConcurrencyTests {
    /// Runs the given shell scripts at the same time and waits for all of them.
    private func runConcurrently(_ scripts: [String], in directory: URL, environment: [String: String]) -> [ProcessResult?] {
        nonisolated(unsafe) var results = [ProcessResult?](repeating: nil, count: scripts.count)
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: scripts.count) { index in
            let result = try? runProcess("/bin/bash", ["-c", scripts[index]], in: directory, environment: environment)
            lock.lock()
            results[index] = result
            lock.unlock()
        }
        return results
    }

    @Test func twoProcessesSaving200TimesEachMake400Commits() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        try alice.saveText("start", to: "start.txt")
        let before = try commitCount("HEAD", in: alice.root)
        let rounds = 200
        func loop(_ file: String) -> String {
            """
            set -u
            for i in $(seq 1 \(rounds)); do
              printf '%s %s\\n' "\(file)" "$i" > "\(file)"
              out=$("$DOCVER" save "\(file)" 2>&1) || { echo "round $i: $out" >&2; exit 1; }
              case "$out" in *"saved 1 document"*) ;; *) echo "round $i: $out" >&2; exit 1 ;; esac
            done
            """
        }
        let results = runConcurrently(
            [loop("left.txt"), loop("right.txt")], in: alice.root,
            environment: ["DOCVER": docverExecutable])
        for result in results {
            let result = try #require(result)
            #expect(result.status == 0, "a save loop failed: \(result.stderr)")
        }
        #expect(try commitCount("HEAD", in: alice.root) == before + 2 * rounds)
        // The branch is one straight line: every save has exactly one parent.
        let parents = try alice.git(["rev-list", "--parents", "HEAD"]).split(separator: "\n")
        #expect(parents.filter { $0.split(separator: " ").count > 2 }.isEmpty)
        #expect(try alice.git(["show", "HEAD:left.txt"]) == "left.txt \(rounds)\n")
        #expect(try alice.git(["show", "HEAD:right.txt"]) == "right.txt \(rounds)\n")
        #expect(try alice.log(of: DocumentPath("left.txt")).count == rounds)
        #expect(try alice.log(of: DocumentPath("right.txt")).count == rounds)
        #expect(try alice.status().changed.isEmpty)
        #expect(try alice.git(["status", "--porcelain"]).isEmpty)
        try expectFsckClean(alice.root)
    }

    @Test func concurrentLibrarySavesInOneProcessAreAllKept() throws {
        let scratch = try Scratch()
        let alice = try scratch.device("alice")
        let rounds = 25
        let workers = 4
        nonisolated(unsafe) var failures: [String] = []
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            do {
                let container = try Container(at: alice.root)
                for round in 1...rounds {
                    try container.write("\(worker) \(round)", to: "w\(worker).txt")
                    guard try container.save([DocumentPath("w\(worker).txt")]) != nil else {
                        throw DocverError.noSuchDocument("w\(worker).txt round \(round): nothing saved")
                    }
                }
            } catch {
                lock.lock(); failures.append("\(error)"); lock.unlock()
            }
        }
        #expect(failures.isEmpty)
        #expect(try commitCount("HEAD", in: alice.root) == rounds * workers)
        for worker in 0..<workers {
            #expect(try alice.git(["show", "HEAD:w\(worker).txt"]) == "\(worker) \(rounds)")
        }
        try expectFsckClean(alice.root)
    }
}
