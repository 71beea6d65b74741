/// Time-to-live syntax: a whole number and a unit, s, m, h or d (`90m`, `7d`).
enum TTL {
    static func parse(_ text: String, option: String = "ttl") throws -> Duration {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()), count >= 0,
              count <= Int64.max / unit
        else { throw CLIError.invalidInput("--\(option) '\(text)' is not a duration like 90m, 12h or 7d") }
        return .seconds(count * unit)
    }
}
