import Foundation

// image-notes: image notes as file packages (text.txt + image.png) on docver, and a scripted
// demo of two devices editing different components, merged after a sync.

let usage = """
    usage: ImageNotes demo             two devices edit the text and the image apart; MergeStrategy keeps both
           ImageNotes png <file>       write the sample image the demo uses (a 16x16 PNG made in code)
    """

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "demo" where arguments.count == 1:
        try await runDemo()
    case "png" where arguments.count == 2:
        let image = PNG.make(width: 16, height: 16) { x, y in (UInt8(200 + y * 3), UInt8(80 + x * 6), 60) }
        try image.write(to: URL(fileURLWithPath: arguments[1]))
        print("wrote \(arguments[1]): \(ImageNote.describe(image))")
    case "help", "--help", "-h":
        print(usage)
    default:
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
