import Foundation

/// A 16-byte random identifier, stored as raw bytes and shown in lowercase
/// UUID form.
public protocol Identifier: Hashable, Sendable, Comparable, CustomStringConvertible {
    var uuid: UUID { get }
    init(uuid: UUID)
}

extension Identifier {
    /// A new random (version 4) identifier: 122 random bits.
    public static func random() -> Self { Self(uuid: UUID()) }

    /// Parses the canonical 36-character form, in either case.
    public init?(_ text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.init(uuid: uuid)
    }

    /// Reads 16 raw bytes.
    ///
    /// - Precondition: `bytes.count == 16`.
    init(bytes: some Collection<UInt8>) {
        precondition(bytes.count == 16, "an identifier is 16 bytes")
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes) }
        self.init(uuid: UUID(uuid: raw))
    }

    /// The 16 raw bytes, in UUID byte order (which sorts like the text form).
    var bytes: [UInt8] { withUnsafeBytes(of: uuid.uuid) { Array($0) } }

    /// Lowercase, as in App Clip links.
    public var description: String { uuid.uuidString.lowercased() }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}
