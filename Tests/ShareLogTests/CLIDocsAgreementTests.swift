import Foundation
import Testing
import TestSupport
import TestTraits

/// docs/CLI.md and `sharelog help` agree: each command's heading in the
/// docs is the synopsis its help shows, and each synopsis names exactly
/// the options the command's help lists, which are the options its parser
/// takes (issue "The CLI keeps every promise its docs make", "Tested docs").
@Suite(.hangDeadline, .ownThread) struct CLIDocsAgreementTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The synopses docs/CLI.md's command headings give (`### \`…\``).
    static func documentedSynopses() throws -> [String] {
        let page = try String(contentsOf: repository.appendingPathComponent("docs/CLI.md"), encoding: .utf8)
        return page.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("### `"), line.hasSuffix("`") else { return nil }
            return String(line.dropFirst(5).dropLast())
        }
    }

    /// Every `--option` named in `text`.
    static func options(in text: some StringProtocol) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(text)
        while let range = rest.range(of: "--") {
            let name = rest[range.upperBound...].prefix { $0.isLetter || $0 == "-" }
            if !name.isEmpty { names.insert(String(name)) }
            rest = rest[range.upperBound...]
        }
        return names
    }

    @Test func everyCommandsHeadingIsItsHelpsSynopsisAndNamesItsOptions() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        let help = try cli.run("help")
        // The command list in `sharelog help`: two-space indented synopses.
        let listed = help.output.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") && !$0.hasPrefix("  --") }
            .map { String($0.dropFirst(2)) }
        let documented = try Self.documentedSynopses()
        #expect(listed.count == 30, "\(listed)")
        #expect(documented == listed)
        // Whether each option takes a value, as each command's help shows
        // it: one answer per name, which the command line is split by.
        var takesValue: [String: Set<Bool>] = [:]
        for synopsis in listed {
            let words = synopsis.split(separator: " ").prefix { !$0.hasPrefix("-") && $0.first!.isLowercase }.prefix(2)
            let name = ["share", "clip", "token"].contains(String(words.first!)) ? words.joined(separator: " ") : String(words.first!)
            let commandHelp = try cli.run(arguments: ["help"] + name.split(separator: " ").map(String.init))
            #expect(commandHelp.status == 0, "\(name)")
            #expect(commandHelp.output.hasPrefix("usage: sharelog \(synopsis)\n"), "\(name)")
            // The options table: lines "  --name …" before "common options:".
            let ownPart = commandHelp.output.components(separatedBy: "common options:")[0]
            let table = Set(ownPart.split(separator: "\n").filter { $0.hasPrefix("  --") }.map { line in
                String(line.dropFirst(4).prefix { $0.isLetter || $0 == "-" })
            })
            // A row is the option's usage, then two spaces or more, then its help.
            for line in ownPart.split(separator: "\n") where line.hasPrefix("  --") {
                let usage = String(line.dropFirst(2)).components(separatedBy: "  ")[0]
                let name = String(usage.dropFirst(2).prefix { $0 != " " })
                takesValue[name, default: []].insert(usage.contains(" "))
            }
            #expect(Self.options(in: synopsis) == table, "\(name): the synopsis names \(Self.options(in: synopsis).sorted()), the help lists \(table.sorted())")
        }
        #expect(takesValue.filter { $0.value.count > 1 }.keys.sorted() == [], "options that are flags in one command and take a value in another")
    }
}
