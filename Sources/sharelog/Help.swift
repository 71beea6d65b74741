/// The text of `sharelog help`.
enum Help {
    static var text: String {
        let rows = commands.map { "  \($0.synopsis)\n      \($0.summary)" }.joined(separator: "\n")
        return """
        usage: sharelog [--store PATH] [--now ISO8601] [--domain D] [--json] COMMAND …

        A ShareLog store keeps short-lived vCard shares for App Clips: an event log,
        fetch-by-ID, expiry sweeps and redaction. Full documentation: docs/CLI.md.

        commands:
        \(rows)

        common options:
          --store PATH     the store directory (default: $SHARELOG_STORE, else ./sharelog-data)
          --now ISO8601    act as if it were this time (e.g. 2026-12-07T09:30:00Z)
          --domain D       App Clip link domain (default: $SHARELOG_DOMAIN, else cards.example.com)
          --json           print JSON (one object per line where output is a stream)

        exit codes: 0 ok, 1 failure, 2 usage, 3 not found, 4 expired, 5 invalid input
        """
    }
}
