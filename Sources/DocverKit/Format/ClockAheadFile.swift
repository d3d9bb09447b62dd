import Foundation

// docs/FORMAT.md, "Local metadata": `clock-ahead`, the devices a sync named for a clock ahead
// of this one (one device id per line), so each is named once per episode.

enum ClockAheadFile {
    static func read(_ path: String) -> Set<String> {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return Set(String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter(Device.isValidID))
    }

    static func write(_ devices: Set<String>, to path: String) throws {
        if devices.isEmpty {
            try? FileSystem.remove(path)
            return
        }
        let text = devices.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { $0 + "\n" }.joined()
        try DocverError.wrapping { try AtomicFile.write(Data(text.utf8), to: path, flush: false) }
    }
}
