/// What an `HTTPServer` has done so far.
public struct HTTPServerStatistics: Sendable {
    /// Answers given.
    public var answered: Int
    /// Requests being answered now.
    public var inFlight: Int
    /// Requests whose request line has arrived and that have not ended.
    public var liveRequests: Int
    /// Connections cut off for taking too long over a header.
    public var cutOffSlowHeaders: Int
}
