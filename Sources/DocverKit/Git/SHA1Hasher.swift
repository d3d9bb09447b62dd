internal import Clibgit2

/// SHA-1 over bytes given a piece at a time (mbed TLS, which libgit2-dev brings): the
/// checksums of the packs and pack indexes docver writes and reads itself, and the ids of the
/// objects in them. libgit2 exposes no streaming hash.
final class SHA1Hasher {
    private var context = mbedtls_sha1_context()

    init() {
        mbedtls_sha1_init(&context)
        _ = mbedtls_sha1_starts_ret(&context)
    }

    deinit { mbedtls_sha1_free(&context) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = mbedtls_sha1_update_ret(&context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The 20-byte digest; the hasher is done after this.
    func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        digest.withUnsafeMutableBufferPointer { _ = mbedtls_sha1_finish_ret(&context, $0.baseAddress) }
        return digest
    }
}
