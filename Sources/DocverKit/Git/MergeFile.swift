internal import Clibgit2
import Foundation

/// Line-based three-way merge and unified diffs of in-memory contents.
enum TextMerge {
    struct Result {
        var merged: Data
        var clean: Bool
    }

    enum Favor { case normal, union }

    /// Merges `ours` and `theirs` against `base` with libgit2's `git_merge_file`; conflicting
    /// regions are written with diff3-style markers carrying the given labels.
    static func merge(
        base: Data, ours: Data, theirs: Data, labels: (base: String, ours: String, theirs: String),
        favor: Favor = .normal
    ) throws -> Result {
        // Callable without a repository (a unit test merges texts alone): libgit2 keeps its
        // per-thread error state only once initialised, and crashes setting one before.
        _ = libgit2Initialised
        var options = git_merge_file_options()
        try check(git_merge_file_options_init(&options, UInt32(GIT_MERGE_FILE_OPTIONS_VERSION)))
        options.flags = GIT_MERGE_FILE_STYLE_DIFF3.rawValue
        options.favor = favor == .union ? GIT_MERGE_FILE_FAVOR_UNION : GIT_MERGE_FILE_FAVOR_NORMAL
        var result = git_merge_file_result()
        try base.withUnsafeBytes { basePointer in
            try ours.withUnsafeBytes { oursPointer in
                try theirs.withUnsafeBytes { theirsPointer in
                    try labels.base.withCString { baseLabel in
                        try labels.ours.withCString { oursLabel in
                            try labels.theirs.withCString { theirsLabel in
                                options.ancestor_label = baseLabel
                                options.our_label = oursLabel
                                options.their_label = theirsLabel
                                var baseInput = input(basePointer)
                                var oursInput = input(oursPointer)
                                var theirsInput = input(theirsPointer)
                                _ = try check(git_merge_file(&result, &baseInput, &oursInput, &theirsInput, &options))
                            }
                        }
                    }
                }
            }
        }
        defer { git_merge_file_result_free(&result) }
        let merged = result.ptr.map { Data(bytes: $0, count: result.len) } ?? Data()
        return Result(merged: merged, clean: result.automergeable != 0)
    }

    private static func input(_ buffer: UnsafeRawBufferPointer) -> git_merge_file_input {
        var value = git_merge_file_input()
        git_merge_file_input_init(&value, UInt32(GIT_MERGE_FILE_INPUT_VERSION))
        value.ptr = buffer.baseAddress?.assumingMemoryBound(to: CChar.self)
        value.size = buffer.count
        return value
    }

    /// A unified diff between two contents (nil: absent), labelled with paths.
    static func unifiedDiff(old: Data?, oldPath: String, new: Data?, newPath: String) throws -> String {
        _ = libgit2Initialised  // as in merge(base:ours:theirs:labels:favor:)
        // A patch made from buffers points into them (libgit2 does not copy): render it
        // while the buffers are still alive.
        return try (old ?? Data()).withUnsafeBytes { oldPointer in
            try (new ?? Data()).withUnsafeBytes { newPointer in
                var patch: OpaquePointer?
                _ = try check(
                    git_patch_from_buffers(
                        &patch, old == nil ? nil : oldPointer.baseAddress, oldPointer.count, oldPath,
                        new == nil ? nil : newPointer.baseAddress, newPointer.count, newPath, nil))
                defer { git_patch_free(patch) }
                var buffer = git_buf()
                try check(git_patch_to_buf(&buffer, patch))
                defer { git_buf_dispose(&buffer) }
                guard let pointer = buffer.ptr else { return "" }
                return String(decoding: Data(bytes: pointer, count: buffer.size), as: UTF8.self)
            }
        }
    }
}

extension Repository {
    /// A git attribute's value for a path, read from .gitattributes as git would.
    enum AttributeValue: Equatable {
        case unspecified, set, unset
        case value(String)
    }

    func attribute(_ name: String, for path: String) throws -> AttributeValue {
        var value: UnsafePointer<CChar>?
        try check(git_attr_get(&value, pointer, UInt32(GIT_ATTR_CHECK_FILE_THEN_INDEX) | UInt32(GIT_ATTR_CHECK_INCLUDE_HEAD), path, name))
        switch git_attr_value(value) {
        case GIT_ATTR_VALUE_TRUE: return .set
        case GIT_ATTR_VALUE_FALSE: return .unset
        case GIT_ATTR_VALUE_STRING: return value.map { .value(String(cString: $0)) } ?? .unspecified
        default: return .unspecified
        }
    }
}
