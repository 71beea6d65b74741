/// A ```console block of a Markdown page, read as a terminal session: each
/// line that starts with `$ ` is a command (a line ending in `\` goes on
/// on the next, and a here-document, `<<'EOF'` or `<<EOF`, takes the lines
/// up to its delimiter), and the lines after it, up to the next command,
/// are what it prints, standard output and error together.
///
/// The line before the fence may say the block is not run, and why:
/// `<!-- console: not run: needs a NATS cluster -->`. Such markers are for
/// blocks that cannot run as written on one machine, and are rare.
struct ConsoleBlock: CustomStringConvertible {
    struct Step {
        let command: String
        let expected: [String]
    }

    let page: String
    /// The fence's line number, from 1.
    let line: Int
    /// Why the block is not run; nil for a block that is.
    let notRun: String?
    let steps: [Step]

    var description: String { "\(page):\(line)" }

    static let marker = "<!-- console: not run: "

    /// The console blocks of `markdown`, in order.
    static func blocks(in markdown: String, page: String) -> [ConsoleBlock] {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [ConsoleBlock] = []
        var index = 0
        while index < lines.count {
            guard lines[index] == "```console" else {
                index += 1
                continue
            }
            let before = index > 0 ? lines[index - 1] : ""
            let notRun = before.hasPrefix(marker) && before.hasSuffix(" -->") ? String(before.dropFirst(marker.count).dropLast(4)) : nil
            let end = lines[(index + 1)...].firstIndex(of: "```") ?? lines.count
            blocks.append(ConsoleBlock(page: page, line: index + 1, notRun: notRun, steps: steps(Array(lines[(index + 1)..<end]))))
            index = end + 1
        }
        return blocks
    }

    private static func steps(_ lines: [String]) -> [Step] {
        var steps: [Step] = []
        var command: String?
        var expected: [String] = []
        var continuing = false
        // The delimiter of the here-document the command reads, until its line.
        var document: String?
        for line in lines {
            if let delimiter = document, let open = command {
                command = open + "\n" + line
                if line == delimiter { document = nil }
            } else if continuing, let open = command {
                command = open + "\n" + line
                continuing = line.hasSuffix("\\")
                document = hereDocument(line)
            } else if line.hasPrefix("$ ") {
                if let done = command { steps.append(Step(command: done, expected: expected)) }
                command = String(line.dropFirst(2))
                expected = []
                continuing = line.hasSuffix("\\")
                document = hereDocument(line)
            } else {
                expected.append(line)
            }
        }
        if let done = command { steps.append(Step(command: done, expected: expected)) }
        return steps
    }

    /// The delimiter of a here-document that `line` starts (`<<'EOF'`,
    /// `<<"EOF"`, `<<EOF`), or nil.
    private static func hereDocument(_ line: String) -> String? {
        guard let match = line.firstMatch(of: /<<['"]?([A-Za-z_]+)['"]?/) else { return nil }
        return String(match.1)
    }
}
