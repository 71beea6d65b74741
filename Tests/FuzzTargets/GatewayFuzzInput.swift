import ShareHTTP

/// How `GatewayFuzzTarget` reads its input bytes (missing bytes read as 0):
///
/// - byte 0: bits 0–2 the method (`GET`, `HEAD`, `GET`, `HEAD`, `POST`,
///   `OPTIONS`, `get`, `BREW`); bits 3–5 the share the target names (the
///   live hostile card, the live photo card, the expired, the revoked, an
///   unknown id; 5–7: none); bits 6–7 the target's shape: `/appclip?id=<name>`,
///   `/appclip?id=<name>&format=vcf`, `/.well-known/apple-app-site-association`,
///   or nothing; the target text field is appended to it.
/// - byte 1: bit 0 send `Accept`; bit 1 send `If-None-Match`; bit 2 start
///   `If-None-Match` with the live share's tag; bit 3 send
///   `X-Forwarded-For`; bit 4 headers over the limit; bit 5 no app ids;
///   bit 6 no rate limits; bit 7 `Strict-Transport-Security`.
/// - byte 2: bits 0–2 the peer (two IPv4 addresses, an IPv6 address, a
///   local socket, the trusted proxy for 4–7); bits 3–4 the number of times
///   the request is sent, minus one (1 to 4); bit 5 tight limits (2 misses,
///   3 requests), so that a few repeats reach 429.
/// - the rest: the target text, `Accept`, `If-None-Match` and
///   `X-Forwarded-For`, separated by 0 bytes, as UTF-8 (invalid sequences
///   become U+FFFD).
struct GatewayFuzzInput {
    static let methods = ["GET", "HEAD", "GET", "HEAD", "POST", "OPTIONS", "get", "BREW"]
    static let peers: [ClientAddress] = [.ipv4(0xC000_0201), .ipv4(0xC633_6401), .ipv6(high: 0x2001_0DB8_0000_0001, low: 7), .local]

    let request: GatewayRequest
    let configuration: GatewayConfiguration
    let ifNoneMatchIsTheLiveTag: Bool
    let repeats: Int

    /// - Parameter names: the record names byte 0 picks among, as text.
    init(_ bytes: [UInt8], names: [String]) {
        let header = (0..<3).map { $0 < bytes.count ? bytes[$0] : 0 }
        let fields = bytes.dropFirst(3).split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        func field(_ index: Int) -> String { index < fields.count ? fields[index] : "" }

        let nameIndex = Int(header[0] >> 3 & 7)
        let id = nameIndex < names.count ? "?id=\(names[nameIndex])" : ""
        let shape = switch header[0] >> 6 {
        case 0: "/appclip" + id
        case 1: "/appclip" + (id.isEmpty ? "?" : id + "&") + "format=vcf"
        case 2: "/.well-known/apple-app-site-association"
        default: ""
        }
        let flags = header[1]
        let accept = flags & 1 != 0 ? field(1) : nil
        let ifNoneMatch = flags & 2 != 0 ? field(2) : nil
        let forwardedFor = flags & 8 != 0 ? field(3) : nil
        let sent = [accept, ifNoneMatch, forwardedFor].compactMap { $0?.utf8.count }.reduce(40, +)
        let peer = Int(header[2] & 7)
        request = GatewayRequest(
            method: Self.methods[Int(header[0] & 7)], target: shape + field(0), accept: accept, ifNoneMatch: ifNoneMatch,
            forwardedFor: forwardedFor, headerBytes: flags & 16 != 0 ? 8193 + sent : sent,
            client: peer < Self.peers.count ? Self.peers[peer] : GatewayFuzzTarget.trustedProxy)
        ifNoneMatchIsTheLiveTag = flags & 4 != 0
        repeats = Int(header[2] >> 3 & 3) + 1

        var configuration = GatewayConfiguration()
        if flags & 32 == 0 {
            configuration.clipAppIDs = [try! AppIdentifier("ABCDE12345.com.example.cards.Clip")]
            configuration.fullAppIDs = [try! AppIdentifier("ABCDE12345.com.example.cards")]
            configuration.appStoreID = "1234567890"
        }
        if header[2] & 32 != 0 {
            configuration.missLimit = RateLimit(burst: 2, interval: .seconds(20))
            configuration.requestLimit = RateLimit(burst: 3, interval: .milliseconds(20))
        }
        if flags & 64 != 0 {
            configuration.requestLimit = nil
            configuration.missLimit = nil
        }
        configuration.strictTransportSecurity = flags & 128 != 0
        configuration.trustedProxies = [GatewayFuzzTarget.trustedProxy]
        self.configuration = configuration
    }
}
