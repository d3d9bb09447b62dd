import DocverKit
import Foundation

/// An image note: a file package (`trip.imagenotes/`) with a text component and an image
/// component. Each component is a file in the package, so docver can merge edits of
/// different components made on different devices.
struct ImageNote: DocumentModel, Hashable {
    static let textName = "text.txt"
    static let imageName = "image.png"

    var text: String
    var image: Data
    /// Components this editor does not know, kept as they are.
    var otherComponents: [String: Data] = [:]

    init(text: String, image: Data) {
        self.text = text
        self.image = image
    }

    init(contents: DocumentContents, type: String) throws {
        guard case var .package(package) = contents else { throw ImageNoteError("an image note is a package, not a flat file") }
        text = String(decoding: package.files.removeValue(forKey: Self.textName) ?? Data(), as: UTF8.self)
        image = package.files.removeValue(forKey: Self.imageName) ?? Data()
        otherComponents = package.files
    }

    func contents(forType type: String) throws -> DocumentContents {
        var files = otherComponents
        files[Self.textName] = Data(text.utf8)
        files[Self.imageName] = image
        return .package(FilePackage(files: files))
    }

    /// One line about the image, such as "16x16 PNG, 852 bytes, checksum 0a1b2c3d".
    var imageSummary: String { ImageNote.describe(image) }

    static func describe(_ image: Data) -> String {
        guard let (width, height) = PNG.dimensions(of: image) else { return "not a PNG, \(image.count) bytes" }
        let checksum = String(PNG.crc32([UInt8](image)), radix: 16)
        return "\(width)x\(height) PNG, \(image.count) bytes, checksum \(String(repeating: "0", count: 8 - checksum.count) + checksum)"
    }
}

struct ImageNoteError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
