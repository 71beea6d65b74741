/// Compares what a command printed with what a docs page shows, after
/// normalising only what differs from run to run: ids (UUIDs), durations
/// (`412 ms`), byte counts (`1093115 bytes`, and a compaction's `185
/// unused bytes`: it zeroes only unused bytes that are not zero already,
/// and how many of a freed id's random bytes happen to be zero varies) and
/// the home directory (shown as `/home/you`). Times are not normalised:
/// the runner fixes the clock.
///
/// Ids are matched, not erased: the first time a page's id meets one this
/// run printed in the same place, the two are paired, and from then on
/// the page's id must stand for that one, in output and in the commands
/// that follow (`share get 33939938-…` runs with this run's id).
struct ConsoleMatch {
    /// The page's ids, to this run's.
    private(set) var ids: [String: String] = [:]
    let home: String

    /// A UUID as the CLI prints it (a regex is made per use: `Regex` is not `Sendable`).
    static var uuid: Regex<Substring> { /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/ }

    init(home: String) { self.home = home }

    /// `command` with the page's ids replaced by this run's, where known.
    func command(_ command: String) -> String {
        command.replacing(Self.uuid) { match in ids[String(match.output)] ?? String(match.output) }
    }

    /// Nil when `actual` is what `expected` shows; otherwise the first
    /// difference, for the test's message.
    mutating func compare(expected: [String], actual: String) -> String? {
        var lines = actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        lines = lines.map { normalised($0.replacing(home, with: "/home/you")) }
        let shown = expected.map(normalised)
        guard lines.count == shown.count else {
            return "\(shown.count) lines shown, \(lines.count) printed:\n\(lines.joined(separator: "\n"))"
        }
        for (want, got) in zip(shown, lines) {
            let wanted = want.matches(of: Self.uuid).map { String($0.output) }
            let printed = got.matches(of: Self.uuid).map { String($0.output) }
            if wanted.count == printed.count {
                for (page, run) in zip(wanted, printed) {
                    if let known = ids[page], known != run { return "the page's id \(page) stood for \(known), and here for \(run)" }
                    ids[page] = run
                }
            }
            let mapped = want.replacing(Self.uuid) { match in ids[String(match.output)] ?? String(match.output) }
            if mapped != got { return "shown: \(want)\nprinted: \(got)" }
        }
        return nil
    }

    private func normalised(_ line: String) -> String {
        line.replacing(/[0-9]+ ms\b/, with: "N ms").replacing(/[0-9]+ bytes\b/, with: "N bytes")
            .replacing(/[0-9]+ unused bytes\b/, with: "N unused bytes")
    }
}
