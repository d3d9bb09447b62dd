import ArgumentParser
import DocverKit
import Foundation

/// Document and version arguments, read the way git reads paths: relative to the directory
/// docver runs in (after `-C`), absolute paths inside the container accepted. Every
/// subcommand that takes a document goes through here, so they all read names alike.
/// Output keeps naming documents relative to the container's root (docs/CLI.md).
struct DocumentArguments {
    let container: Container
    /// The working directory relative to the container's root (`""` at the root).
    let folder: String

    init(_ container: Container, _ global: GlobalOptions) {
        self.init(container, directory: global.url)
    }

    /// Names as typed in `directory` (the shell's completion runs before any option is read).
    init(_ container: Container, directory: URL) {
        self.container = container
        let root = Self.realPath(container.root.path)
        let here = Self.realPath(directory.path)
        folder = Self.relative(here, to: root) ?? ""
    }

    /// The document a command-line name stands for.
    func path(_ given: String) throws -> DocumentPath {
        guard given.hasPrefix("/"), !given.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            return try DocumentPath(given, inFolder: folder)
        }
        // An absolute path: inside the container as spelled, or once symbolic links on the way
        // to it (a linked /tmp, say) are resolved.
        let spelled = URL(fileURLWithPath: given).standardizedFileURL.path
        let parent = (spelled as NSString).deletingLastPathComponent
        let resolved = (Self.realPath(parent) as NSString).appendingPathComponent((spelled as NSString).lastPathComponent)
        for candidate in [spelled, resolved] {
            for root in [container.root.standardizedFileURL.path, Self.realPath(container.root.path)] {
                if let inside = Self.relative(candidate, to: root) {
                    do {
                        return try DocumentPath(inside.isEmpty ? "." : inside, inFolder: "")
                    } catch DocverError.invalidDocumentName(_, let reason) {
                        throw DocverError.invalidDocumentName(given, reason: reason)
                    }
                }
            }
        }
        throw DocverError.invalidDocumentName(given, reason: "it is outside the container (\(container.root.path))")
    }

    /// The plain folder a name stands for, relative to the root (`""` for the root itself, as
    /// `.` at the root names it); nil for a document, a package or a name outside.
    func plainFolder(_ given: String) -> String? {
        let base = container.root.standardizedFileURL.path
        let spelled = given.hasPrefix("/") ? given : base + "/" + folder + "/" + given
        guard let inside = Self.relative(URL(fileURLWithPath: spelled).standardizedFileURL.path, to: base),
            inside.isEmpty || (try? DocumentPath(inside)) != nil
        else { return nil }  // not .git, not .docver
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: base + "/" + inside, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        let name = (inside as NSString).lastPathComponent
        // A folder whose name has an extension is a package, that is a document.
        if let dot = name.lastIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex { return nil }
        return inside
    }

    /// A path as the user would type it from here (for hints).
    func typed(_ document: DocumentPath) -> String {
        Terminal.shellWord(document.relative(toFolder: folder))
    }

    /// True when the document is saved or exists in the working tree.
    func exists(_ document: DocumentPath) -> Bool {
        if FileManager.default.fileExists(atPath: container.root.path + "/" + document.path) { return true }
        return ((try? container.currentVersion(of: document)) ?? nil) != nil
    }

    // MARK: Versions

    /// The document and version a command names, given as `DOC VERSION` (or `DOC --at DATE`);
    /// nil for the version when neither is given. The order earlier versions of docver used,
    /// `VERSION DOC`, is recognised when it cannot mean anything else (the first word is a version and
    /// not a document, the second an existing document and not a version): it is followed,
    /// with a hint that gives the documented order.
    func version(of document: String, _ version: String?, at date: String?, command: String) throws -> (DocumentPath, VersionSpecifier?) {
        // Commands refuse both in validate() (AtOption.refuse(alongside:)); this is the backstop.
        if version != nil, date != nil { throw ValidationError("give a version or --at, not both") }
        if let date {
            guard let parsed = DateInput.parse(date) else { throw DocverError.invalidDate(date) }
            return (try path(document), .at(parsed))
        }
        guard let version else { return (try path(document), nil) }
        if let swapped = try swapped(document, version) {
            Terminal.hint("the document comes before the version: docver \(command) \(typed(swapped.0)) \(Terminal.shellWord(document))")
            return swapped
        }
        let path = try path(document)
        do {
            return (path, try VersionSpecifier(version))
        } catch let error as DocverError {
            throw HintedFailure(error.description, hint: versionsHint(path), kind: error.code)
        }
    }

    /// Finds a version, with a hint that names the document when there is no such version.
    func find(_ specifier: VersionSpecifier, of document: DocumentPath) throws -> DocumentVersion {
        do {
            return try container.version(specifier, of: document)
        } catch let error as DocverError {
            switch error {
            case .noSuchVersion, .versionOfAnotherDocument, .notThatManyVersions, .noVersionAtDate:
                throw HintedFailure(error.description, hint: versionsHint(document), kind: error.code)
            default: throw error
            }
        }
    }

    private func versionsHint(_ document: DocumentPath) -> String {
        "list the versions of \(document) with 'docver versions \(typed(document)) --all'"
    }

    /// `show 5f7d7c21 notes.txt`, the order earlier versions of docver used, read as `show notes.txt
    /// 5f7d7c21` when the first word is a version and not a document and the second is not a
    /// version; nil when the words are in the documented order. In that order, a second word
    /// that is no document is reported as such (an invalid name, or no such document).
    func swapped(_ first: String, _ second: String) throws -> (DocumentPath, VersionSpecifier)? {
        guard !VersionSpecifier.looksLikeVersion(second), let specifier = try? VersionSpecifier(first),
            (try? path(first)).map(exists) != true
        else { return nil }
        let document = try path(second)
        guard exists(document) else { throw DocverError.noSuchDocument(document.path) }
        return (document, specifier)
    }

    // MARK: Suggestions

    /// `did you mean recipes/cake.md?` for a name that is not a document here but is one
    /// elsewhere in the container (a name typed from the wrong folder).
    /// For a document that is a file in the working tree but was never saved: how to save it.
    func neverSavedHint(for missing: String) -> String? {
        guard let document = try? DocumentPath(missing),
            FileManager.default.fileExists(atPath: container.root.path + "/" + document.path)
        else { return nil }
        return "it was never saved; save it with: docver save \(typed(document))"
    }

    func suggestion(for missing: String) -> String? {
        let name = missing.split(separator: "/").last.map(String.init) ?? missing
        var candidates = Set(((try? container.query(DocumentQuery())) ?? []).map(\.path))
        // Unsaved documents too, from the working tree as it is (not `status`, which may
        // refresh the index: a failed command changes nothing).
        if let files = FileManager.default.enumerator(atPath: container.root.path) {
            var seen = 0
            while let relative = files.nextObject() as? String, seen < 100_000 {
                seen += 1
                if (relative as NSString).lastPathComponent == ".git" { files.skipDescendants(); continue }
                if (relative as NSString).lastPathComponent == name, let document = try? DocumentPath(relative) { candidates.insert(document) }
            }
        }
        let matches = candidates.filter { $0.name == name && $0.path != missing }.sorted()
        guard !matches.isEmpty else { return nil }
        let shown = matches.prefix(3).map(typed)
        return "did you mean \(shown.joined(separator: " or "))?"
    }

    // MARK: Paths

    private static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return URL(fileURLWithPath: path).standardizedFileURL.path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `path` relative to `root`, nil when it is not inside it.
    private static func relative(_ path: String, to root: String) -> String? {
        let root = root.hasSuffix("/") ? String(root.dropLast()) : root
        if path == root { return "" }
        guard path.hasPrefix(root + "/") else { return nil }
        return String(path.dropFirst(root.count + 1))
    }
}

/// A failure whose hint depends on the command line (a name, an order): printed as
/// `docver: error: <message>` and `hint: <hint>`, exit 1 (or 64 for a usage mistake).
struct HintedFailure: Error {
    let message: String
    let hint: String?
    let code: ExitCode
    /// The `code` of its JSON form (docs/CLI.md, "Errors under --json"): the library error's
    /// code where it stands for one, `usage` for a usage mistake.
    let kind: String

    init(_ message: String, hint: String?, code: ExitCode = .failure, kind: String? = nil) {
        self.message = message
        self.hint = hint
        self.code = code
        self.kind = kind ?? (code.rawValue == 64 ? "usage" : "failed")
    }
}

/// `--at DATE`, wherever a version is taken.
struct AtOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The version that was current at this date (2026-11-01, 2026-11-01T09:30, 2026-11-01T09:30:00Z).",
            valueName: "date"))
    var at: String?

    // A date that does not parse is a usage error (exit 64), as for `ls --modified-since`.
    func validate() throws {
        if let at, DateInput.parse(at) == nil { throw ValidationError(DocverError.invalidDate(at).description) }
    }

    /// A version and `--at` together are a usage error. Called from the command's own
    /// `validate()`, so that the error shows that command's usage, not the top level's (an
    /// error thrown from `run()` is reported against the root command).
    func refuse(alongside version: String?) throws {
        if version != nil, at != nil { throw ValidationError("give a version or --at, not both") }
    }
}
