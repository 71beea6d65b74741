import Foundation

/// Everything one run measured, as written to the JSON file.
public struct BenchReport: Codable, Sendable {
    public let machine: MachineInfo
    public let configuration: BenchConfiguration
    /// Mean card sizes in bytes: plain deck, mixed deck.
    public let meanCardBytes: [String: Double]
    public let measurements: Measurements
    public let targets: [TargetResult]
    /// ISO 8601, UTC.
    public let startedAt: String
    public let seconds: Double
    /// The 1-minute load average when the run ended.
    public let loadAverageAtEnd: Double

    /// The JSON form, keys sorted, indented.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
