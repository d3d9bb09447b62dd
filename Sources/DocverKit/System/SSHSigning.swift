import Foundation

/// Signs and verifies data with OpenSSH's `ssh-keygen -Y`, in git's namespace, as git does
/// for `gpg.format = ssh`: a commit signed here reads as signed to `git log --show-signature`.
enum SSHSigning {
    /// git's namespace for commit signatures.
    static let namespace = "git"

    /// The armored signature (`-----BEGIN SSH SIGNATURE-----`) of `data` with the private key
    /// in `keyFile` (or the key of an ssh-agent whose public half is in `keyFile`).
    static func sign(_ data: Data, keyFile: String) throws(SystemError) -> String {
        let outcome = try Subprocess.run(
            ["ssh-keygen", "-q", "-Y", "sign", "-n", namespace, "-f", keyFile],
            input: data, environment: ["SSH_ASKPASS_REQUIRE": "never"])
        let signature = String(decoding: outcome.output, as: UTF8.self)
        guard outcome.status == 0, signature.hasPrefix("-----BEGIN SSH SIGNATURE-----") else {
            throw SystemError(
                "sign with", keyFile,
                reason:
                    "ssh-keygen -Y sign failed (exit \(outcome.status)); is it a readable private key without a passphrase, or loaded in ssh-agent?")
        }
        return signature
    }

    /// True when `signature` is a valid signature of `data` by a key that `allowedSigners`
    /// (git's `gpg.ssh.allowedSignersFile` format) lists for `principal`.
    static func verify(_ data: Data, signature: String, allowedSigners: String, principal: String) -> Bool {
        guard !principal.isEmpty, !principal.contains(where: { $0.isWhitespace || $0 == "," || $0 == "*" }) else { return false }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("docver-signature-\(UUID().uuidString)").path
        defer { try? FileSystem.remove(file) }
        guard (try? AtomicFile.write(Data(signature.utf8), to: file)) != nil,
            let outcome = try? Subprocess.run(
                [
                    "ssh-keygen", "-Y", "verify", "-n", namespace, "-f", allowedSigners,
                    "-I", principal, "-s", file,
                ], input: data)
        else { return false }
        return outcome.status == 0
    }
}
