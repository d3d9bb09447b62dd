import Foundation

extension Container {
    /// What signs this device's commits: `docver.signingKey` names an SSH key (a private key
    /// file, or the public half of a key held by ssh-agent); nil when it is not set. Integration
    /// commits are never signed: every device must write the same integration commit.
    func commitSigner(in repository: Repository) throws -> ((Data) throws -> String)? {
        guard let key = try repository.configString(ConfigKey.signingKey), !key.isEmpty else { return nil }
        let path = FileSystem.expandingTilde(key)
        return { data in try SSHSigning.sign(data, keyFile: path) }
    }
}

/// Whose decisions count, when the container requires signed ones (`docver.allowedSigners`):
/// a resolution, removal or replacement record is honoured only in a commit signed by a key
/// the allowed-signers file lists for the device the commit names (its `Docver-Device`).
/// Without the setting every docver save's decisions count, as before.
struct SigningPolicy {
    /// The allowed-signers file.
    let allowedSigners: String
    /// Identifies the rule in force (the file's contents), so that what was computed under
    /// another rule is recomputed, not trusted.
    let key: String

    /// The container's policy; nil when signed decisions are not required. An unreadable
    /// allowed-signers file verifies nothing (decisions are ignored, with the sync's warning).
    init?(repository: Repository) throws {
        guard let path = try repository.configString(ConfigKey.allowedSigners), !path.isEmpty else { return nil }
        allowedSigners = FileSystem.expandingTilde(path)
        let contents = FileSystem.contentsIfReadable(allowedSigners)
        key = try contents.map { "allowed-signers " + (try repository.hashBlob($0)).hex } ?? "allowed-signers unreadable"
    }

    /// True when `commit` is signed by a key the allowed-signers file lists for `device`.
    func verifies(_ commit: Commit, as device: String, in repository: Repository) throws -> Bool {
        guard let signed = try repository.commitSignature(commit.id) else { return false }
        return SSHSigning.verify(signed.signedData, signature: signed.signature, allowedSigners: allowedSigners, principal: device)
    }

    /// True when `commit` is signed by a key allowed for the device it names.
    func verifies(_ commit: Commit, trailers: [(key: String, value: String)], in repository: Repository) throws -> Bool {
        guard let device = trailers.first(where: { $0.key == Trailer.device })?.value,
            let signed = try repository.commitSignature(commit.id)
        else { return false }
        return SSHSigning.verify(signed.signedData, signature: signed.signature, allowedSigners: allowedSigners, principal: device)
    }
}
