/// Where a request came from, as far as limits are concerned: an IPv4
/// address, an IPv6 address, or a local (Unix socket) peer.
///
/// Rate limits key on `limitKey`: a whole IPv4 address, or an IPv6 /64
/// (one subscriber usually holds a whole /64, so limiting single IPv6
/// addresses would limit nothing).
public enum ClientAddress: Hashable, Sendable, CustomStringConvertible {
    case ipv4(UInt32)
    case ipv6(high: UInt64, low: UInt64)
    /// A peer on a Unix socket: a proxy on the same machine. All share one key.
    case local

    /// The key of this address's rate-limit buckets: equal for addresses
    /// that share limits.
    public var limitKey: UInt64 {
        switch self {
        case .ipv4(let address): return 0x4_0000_0000 | UInt64(address)
        case .ipv6(let high, _): return high
        case .local: return 0
        }
    }

    /// Parses a textual IPv4 or IPv6 address (no port, no brackets), as
    /// `X-Forwarded-For` and `--trusted-proxy` carry them; nil otherwise.
    /// An IPv4-mapped IPv6 address (`::ffff:203.0.113.7`), as some proxies
    /// write them, is read as the IPv4 address it holds.
    public init?(text: some StringProtocol) {
        let trimmed = text.trimmingWhitespace()
        if let v4 = Self.ipv4(trimmed) {
            self = .ipv4(v4)
        } else if trimmed.lowercased().hasPrefix("::ffff:"), let v4 = Self.ipv4(trimmed.dropFirst(7)) {
            self = .ipv4(v4)
        } else if let (high, low) = Self.ipv6(trimmed) {
            self = .ipv6(high: high, low: low)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .ipv4(let address):
            let bytes: [UInt32] = [address >> 24, address >> 16 & 0xFF, address >> 8 & 0xFF, address & 0xFF]
            return bytes.map(String.init).joined(separator: ".")
        case .ipv6(let high, let low):
            let shifts: [UInt64] = [48, 32, 16, 0]
            let groups: [UInt64] = shifts.map { high >> $0 & 0xFFFF } + shifts.map { low >> $0 & 0xFFFF }
            return groups.map { String($0, radix: 16) }.joined(separator: ":")
        case .local:
            return "local"
        }
    }

    private static func ipv4(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var address: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCIIDigit), let byte = UInt8(part) else { return nil }
            address = address << 8 | UInt32(byte)
        }
        return address
    }

    private static func ipv6(_ text: Substring) -> (UInt64, UInt64)? {
        guard text.contains(":"), text.count <= 45 else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                result.append(value)
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
            all += Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        let high = all[0..<4].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        let low = all[4..<8].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        return (high, low)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> Substring {
        let scalars = self[...]
        let start = scalars.firstIndex { $0 != " " && $0 != "\t" } ?? scalars.endIndex
        let end = scalars.lastIndex { $0 != " " && $0 != "\t" }.map { scalars.index(after: $0) } ?? start
        return Substring(scalars[start..<Swift.max(start, end)])
    }
}
