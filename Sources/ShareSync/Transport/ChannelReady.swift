/// What a wait for reading and writing found ready
/// (`ByteChannel.waitReady(reading:writing:orWake:deadline:)`): any of
/// the three at once, or none when the deadline passed first.
public struct ChannelReady: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The next `read` returns without waiting for the peer: bytes, the end
    /// of the stream or an error are there to report.
    public static let readable = ChannelReady(rawValue: 1)
    /// The next `writeSome` takes at least one byte without waiting.
    public static let writable = ChannelReady(rawValue: 2)
    /// The wake-up descriptor is readable. It stays so until its owner
    /// drains it.
    public static let woken = ChannelReady(rawValue: 4)

    public var description: String {
        let names = [(Self.readable, "readable"), (.writable, "writable"), (.woken, "woken")].filter { contains($0.0) }.map(\.1)
        return names.isEmpty ? "[] (timed out)" : "[" + names.joined(separator: ", ") + "]"
    }
}
