import Foundation

// text-notes: a line-based note editor on docver's ManagedDocument, and a scripted demo of
// a conflict between two devices resolved by user choice.

let usage = """
    usage: TextNotes edit <container> <note>   edit a note; commands on stdin: show, append TEXT, replace N TEXT, save, quit
           TextNotes demo                      two devices, a conflict, a resolution by user choice (in a temporary folder)
    """

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "edit" where arguments.count == 3:
        try await runEditor(containerPath: arguments[1], noteName: arguments[2])
    case "demo" where arguments.count == 1:
        try await runDemo()
    case "help", "--help", "-h":
        print(usage)
    default:
        printError(usage)
        exit(2)
    }
} catch {
    printError("error: \(error)")
    exit(1)
}
