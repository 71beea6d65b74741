/// An Apple app identifier, `TEAMID.bundle.id`: a 10-character team id of
/// uppercase letters and digits, a dot, and a bundle id of letters,
/// digits, `-` and `.` (as `--app-id` and `--full-app-id` take them).
public struct AppIdentifier: Hashable, Sendable, CustomStringConvertible {
    public let teamID: String
    public let bundleID: String

    /// Parses `TEAMID.bundle.id`.
    /// - Throws: `GatewayConfigurationError.invalidAppID` saying what is wrong.
    public init(_ text: String) throws(GatewayConfigurationError) {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
            throw .invalidAppID(text, reason: "it must start with a 10-character team id of capital letters and digits, then a dot, as in ABCDE12345.com.example.cards.Clip")
        }
        let bundle = parts[1]
        guard !bundle.isEmpty, bundle.count <= 155, bundle.first != ".", bundle.last != ".",
              bundle.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }) else {
            throw .invalidAppID(text, reason: "the bundle id after the team id may hold only letters, digits, '-' and '.'")
        }
        teamID = String(parts[0])
        bundleID = String(bundle)
    }

    public var description: String { "\(teamID).\(bundleID)" }
}
