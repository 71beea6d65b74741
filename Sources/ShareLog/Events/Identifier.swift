import Foundation

/// A 16-byte random identifier, stored as raw bytes and shown in lowercase
/// UUID form.
public protocol Identifier: Hashable, Sendable, Comparable, CustomStringConvertible {
    var uuid: UUID { get }
    init(uuid: UUID)
}

extension Identifier {
    /// A new random (version 4, RFC 9562) identifier: 122 random bits.
    ///
    /// The bits come from the kernel's random source in one `getrandom`
    /// call (glibc's `arc4random_buf`), where Foundation's `UUID()` opens,
    /// reads and closes `/dev/urandom` each time: a tenth of a batched
    /// create's CPU (BENCHMARKS.md, "The engine's hot paths").
    public static func random() -> Self {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { arc4random_buf($0.baseAddress!, $0.count) }
        raw.6 = raw.6 & 0x0F | 0x40  // version 4
        raw.8 = raw.8 & 0x3F | 0x80  // variant 10 (RFC 9562)
        return Self(uuid: UUID(uuid: raw))
    }

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
        withUnsafeBytes(of: lhs.uuid.uuid) { left in
            withUnsafeBytes(of: rhs.uuid.uuid) { right in left.lexicographicallyPrecedes(right) }
        }
    }
}
