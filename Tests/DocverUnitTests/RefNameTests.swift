import DocverTestSupport
import Foundation
import Testing

@testable import DocverKit

/// Reference names (docs/FORMAT.md, "Device branches" and "Remotes"), and that every valid
/// device id makes names git accepts.
@Suite struct RefNameTests {
    @Test func namesHaveTheDocumentedForm() throws {
        #expect(RefName.branch(ofDevice: "alice") == "refs/heads/docver/alice")
        #expect(RefName.trackingPrefix("origin") == "refs/remotes/origin/docver/")
        #expect(RefName.fetchSpec("origin") == "+refs/heads/docver/*:refs/remotes/origin/docver/*")
        #expect(RefName.pushSpec(try Device(id: "alice")) == "refs/heads/docver/alice:refs/heads/docver/alice")
        #expect(RefName.kept(remote: "origin", device: "bob", commit: "abc") == "refs/docver/kept/origin/bob/abc")
        #expect(try Device(id: "bob_2").branch == "refs/heads/docver/bob_2")
    }

    @Test func globsFindExactlyTheReferencesTheyAreFor() throws {
        let scratch = try TempRepository()
        let commit = try scratch.commit(["x": "1"], at: 0)
        let kept = RefName.kept(remote: "origin", device: "bob", commit: commit.hex)
        let deviceBranches = [RefName.branch(ofDevice: "alice"), RefName.branch(ofDevice: "bob")]
        let tracking = [RefName.trackingPrefix("origin") + "alice", RefName.trackingPrefix("backup") + "bob"]
        let others = ["refs/heads/main", "refs/remotes/origin/main", "refs/tags/docver/alice", "refs/docver/other"]
        for name in deviceBranches + tracking + others + [kept] {
            try scratch.repository.forceReference(name, to: commit, message: "test")
        }
        func names(_ glob: String) throws -> Set<String> { Set(try scratch.repository.references(matching: glob).map(\.name)) }
        #expect(try names(RefName.allDeviceBranches) == Set(deviceBranches))
        #expect(try names(RefName.allTrackingBranches) == Set(tracking))
        #expect(try names(RefName.allKept) == [kept])
    }

    @Test func deviceIDsAreLettersDigitsDashAndUnderscoreOnly() {
        for value in UInt8(0)...UInt8(0x7F) {
            let id = "a" + String(Unicode.Scalar(value))
            let allowed = value.isASCIIAlphanumeric || value == UInt8(ascii: "-") || value == UInt8(ascii: "_")
            #expect(Device.isValidID(id) == allowed, "\(id.debugDescription)")
        }
        #expect(!Device.isValidID(""))
        #expect(Device.isValidID(String(repeating: "x", count: 64)))
        #expect(!Device.isValidID(String(repeating: "x", count: 65)))
        #expect(!Device.isValidID("é"))
        #expect(!Device.isValidID("a.lock"))
    }

    /// A sample of valid ids: edge cases plus seeded random ones.
    static let sampleIDs: [String] = {
        var random = SeededRandom(seed: 20)
        let alphabet = asciiLetters + ["-", "_"]
        var ids = [
            "a", "-", "_", "--", "-leading", "trailing-", "HEAD", "FETCH_HEAD", "lock", "at-_-", "0",
            String(repeating: "z", count: 64), String(repeating: "-", count: 64),
        ]
        ids += (0..<12).map { _ in random.string(alphabet, length: 1...64) }
        return ids
    }()

    @Test func sampleIDsAreValid() {
        for id in Self.sampleIDs { #expect(Device.isValidID(id), "\(id)") }
    }

    @Test(arguments: sampleIDs)
    func gitAcceptsEveryNameMadeFromAValidDeviceID(id: String) throws {
        let device = try Device(id: id)
        for name in [
            RefName.branch(ofDevice: id), RefName.trackingPrefix("origin") + id,
            RefName.kept(remote: "origin", device: id, commit: String(repeating: "0", count: 40)),
        ] {
            #expect(try checkRefFormat([name]), "git check-ref-format refuses \(name)")
        }
        for side in RefName.pushSpec(device).split(separator: ":") {
            #expect(try checkRefFormat([String(side)]), "git check-ref-format refuses \(side)")
        }
    }

    @Test func gitAcceptsTheFetchSpecAndGlobsAsPatterns() throws {
        let spec = RefName.fetchSpec("origin")
        #expect(spec.hasPrefix("+"))
        for side in spec.dropFirst().split(separator: ":") {
            #expect(try checkRefFormat(["--refspec-pattern", String(side)]), "\(side)")
        }
        for glob in [RefName.allDeviceBranches, RefName.allKept] {
            #expect(try checkRefFormat(["--refspec-pattern", glob]), "\(glob)")
        }
    }

    @Test func checkRefFormatRefusesABadName() throws {
        // The reference check itself can say no (so the tests above can fail).
        #expect(try !checkRefFormat(["refs/heads/docver/a..b"]))
        #expect(try !checkRefFormat(["refs/heads/docver/a b"]))
    }

    /// Runs `git check-ref-format`; true when git accepts.
    func checkRefFormat(_ arguments: [String]) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["check-ref-format"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
