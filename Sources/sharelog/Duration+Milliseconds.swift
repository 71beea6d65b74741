extension Duration {
    /// The duration in milliseconds, with fractions.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }

    /// The whole milliseconds of the duration, rounded down: what `--json`
    /// outputs report.
    var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
