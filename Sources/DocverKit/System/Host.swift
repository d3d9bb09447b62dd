import Foundation

/// The machine docver runs on.
public enum Host {
    /// The host name (`gethostname`), or "localhost" when the system has none.
    public static var name: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(cString: buffer)
        return name.isEmpty ? "localhost" : name
    }
}
