import Foundation

/// A minimal PNG writer (8-bit RGB, no interlacing) with no dependencies: the image data is
/// wrapped in zlib "stored" (uncompressed) deflate blocks, which every PNG reader accepts.
enum PNG {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// An image of `width` × `height` pixels, each colored by `pixel(x, y)`.
    static func make(width: Int, height: Int, pixel: (Int, Int) -> (red: UInt8, green: UInt8, blue: UInt8)) -> Data {
        var header = [UInt8]()
        header += bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0]  // bit depth 8, color type RGB, deflate, adaptive filtering, no interlace
        var raw = [UInt8]()
        raw.reserveCapacity(height * (1 + 3 * width))
        for y in 0..<height {
            raw.append(0)  // filter type None
            for x in 0..<width {
                let (red, green, blue) = pixel(x, y)
                raw += [red, green, blue]
            }
        }
        var png = signature
        png += chunk("IHDR", header)
        png += chunk("IDAT", zlibStored(raw))
        png += chunk("IEND", [])
        return Data(png)
    }

    /// Width and height, if `data` starts like a PNG with a valid header chunk.
    static func dimensions(of data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(33))
        guard bytes.count == 33, Array(bytes[0..<8]) == signature, String(decoding: bytes[12..<16], as: UTF8.self) == "IHDR",
            crc32(Array(bytes[12..<29])) == readBigEndian(bytes, at: 29)
        else { return nil }
        return (Int(readBigEndian(bytes, at: 16)), Int(readBigEndian(bytes, at: 20)))
    }

    private static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typeAndBody = Array(type.utf8) + body
        return bigEndian(UInt32(body.count)) + typeAndBody + bigEndian(crc32(typeAndBody))
    }

    /// A zlib stream of uncompressed deflate blocks (at most 65535 bytes each).
    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]  // deflate, 32K window, no preset dictionary, check bits valid
        var offset = 0
        repeat {
            let count = min(65535, data.count - offset)
            let isLast = offset + count == data.count
            out.append(isLast ? 1 : 0)  // BFINAL, BTYPE 00 (stored)
            out += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<offset + count]
            offset += count
        } while offset < data.count
        return out + bigEndian(adler32(data))
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static func readBigEndian(_ bytes: [UInt8], at index: Int) -> UInt32 {
        bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
