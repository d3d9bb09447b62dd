import Foundation

/// A version as people name it (docs/CLI.md, "Versions"), before it is looked up in a
/// document's history by `Container.version(_:of:)`.
///
/// - `5f7d7c21`: a version id, any unique prefix of 4 to 40 hexadecimal digits;
/// - `@` (or `HEAD`): the document's current version;
/// - `@-N` (or `@~N`, `HEAD~N`; `@-` is `@-1`): N versions back in the document's history,
///   the versions that led to the current one, newest first, as `docver versions` lists them;
/// - `@{DATE}`: the version that was current at that date (an ISO 8601 date or date-time,
///   ``DateInput``); the CLI's `--at DATE` is the same.
public enum VersionSpecifier: Hashable, Sendable {
    /// A prefix of a version id, lowercased.
    case id(String)
    /// The current version.
    case current
    /// This many versions before the current one (0 is the current version).
    case back(Int)
    /// The version current at this date: the newest of the current version and its history
    /// saved at or before it.
    case at(Date)

    /// Parses a version argument; local dates in `@{DATE}` are read in `timeZone`.
    /// Throws ``DocverError/invalidVersion(_:)`` for anything else.
    public init(_ text: String, timeZone: TimeZone = .current) throws {
        if text == "@" || text == "HEAD" { self = .current; return }
        for prefix in ["@-", "@~", "HEAD~"] where text.hasPrefix(prefix) {
            let count = text.dropFirst(prefix.count)
            if count.isEmpty { self = .back(1); return }
            // Digits only: Int("+1") and overflowing counts are refused.
            guard count.count <= 9, count.allSatisfy({ $0.isASCII && $0.isNumber }), let back = Int(count) else {
                throw DocverError.invalidVersion(text)
            }
            self = .back(back)
            return
        }
        if text.hasPrefix("@{") && text.hasSuffix("}") && text.count > 3 {
            guard let date = DateInput.parse(String(text.dropFirst(2).dropLast()), timeZone: timeZone) else {
                throw DocverError.invalidVersion(text)
            }
            self = .at(date)
            return
        }
        guard (4...40).contains(text.count), text.allSatisfy(\.isHexDigit), text.allSatisfy(\.isASCII) else {
            throw DocverError.invalidVersion(text)
        }
        self = .id(text.lowercased())
    }

    /// True when `text` parses as a version (and so could be a version given where a document
    /// was expected).
    public static func looksLikeVersion(_ text: String) -> Bool {
        (try? VersionSpecifier(text)) != nil
    }
}
