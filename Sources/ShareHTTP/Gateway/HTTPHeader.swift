/// One response header field, as it goes on the wire.
public struct HTTPHeader: Hashable, Sendable {
    public let name: String
    public let value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
