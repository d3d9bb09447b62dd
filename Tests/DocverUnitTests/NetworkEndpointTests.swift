import Foundation
import Testing

@testable import DocverKit

/// The endpoint docver bounds (connect probe, stall watchdog) must be the one libgit2 dials.
@Suite struct NetworkEndpointTests {
    @Test(arguments: [
        ("ssh://git@nas.local/srv/notes.git", "ssh", "nas.local", 22),
        ("ssh://nas.local:2222/srv/notes.git", "ssh", "nas.local", 2222),
        ("git+ssh://u@[::1]:2200/r.git", "git+ssh", "::1", 2200),
        ("git@github.example:team/notes.git", "ssh", "github.example", 22),
        ("nas.local:notes.git", "ssh", "nas.local", 22),
        ("[fe80::1]:notes.git", "ssh", "fe80::1", 22),
        ("https://alice:secret@example.org/git/notes.git", "https", "example.org", 443),
        ("https://127.0.0.1:8443/git/notes.git", "https", "127.0.0.1", 8443),
        ("HTTP://example.org/notes.git", "http", "example.org", 80),
        ("git://127.0.0.1:9999/notes.git", "git", "127.0.0.1", 9999),
        ("git://example.org/notes.git", "git", "example.org", 9418),
    ])
    func networkURLsNameTheirEndpoint(_ url: String, scheme: String, host: String, port: Int) {
        #expect(NetworkEndpoint(url: url) == NetworkEndpoint(scheme: scheme, host: host, port: UInt16(port)))
    }

    @Test(arguments: [
        "/srv/notes.git", "../notes.git", "file:///srv/notes.git", "./a:b", "notes", "ssh://:22/x",
        "https://example.org:0/x", "https://example.org:99999/x",
    ])
    func localPathsAndBrokenURLsHaveNone(_ url: String) {
        #expect(NetworkEndpoint(url: url) == nil)
    }

    @Test func aClosedPortIsReportedWithoutWaiting() throws {
        let endpoint = NetworkEndpoint(scheme: "git", host: "127.0.0.1", port: 1)
        let started = Date()
        #expect(throws: NetworkEndpoint.Unreachable(reason: "cannot connect to 127.0.0.1:1: Connection refused")) {
            try endpoint.probe(timeout: 5)
        }
        #expect(-started.timeIntervalSinceNow < 1)
    }

    @Test func pemFilesYieldTheirCertificates() {
        let pem = """
            junk before
            -----BEGIN CERTIFICATE-----
            AAEC
            AwQ=
            -----END CERTIFICATE-----
            -----BEGIN PRIVATE KEY-----
            BQY=
            -----END PRIVATE KEY-----
            -----BEGIN CERTIFICATE-----
            Bwg=
            -----END CERTIFICATE-----
            """
        #expect(TransferSettings.certificates(inPEM: pem) == [Data([0, 1, 2, 3, 4]), Data([7, 8])])
    }
}
