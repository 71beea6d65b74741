extension FuzzSeeds {
    /// Requests in `GatewayFuzzInput`'s layout: three bytes of choices, then
    /// the target text, `Accept`, `If-None-Match` and `X-Forwarded-For`
    /// separated by 0 bytes. One for each status the gateway answers with.
    static var gatewayRequests: [[UInt8]] {
        func request(_ choices: UInt8, _ flags: UInt8, _ peerAndRepeats: UInt8, _ fields: String...) -> [UInt8] {
            [choices, flags, peerAndRepeats] + Array(fields.joined(separator: "\u{0}").utf8)
        }
        let live: UInt8 = 0 << 3, photo: UInt8 = 1 << 3, expired: UInt8 = 2 << 3, revoked: UInt8 = 3 << 3, unknown: UInt8 = 4 << 3
        let download: UInt8 = 1 << 6, siteAssociation: UInt8 = 2 << 6, rawTarget: UInt8 = 3 << 6
        let head: UInt8 = 1, post: UInt8 = 4
        return [
            request(live, 0, 0),
            request(live | head, 1, 0, "", "text/html,*/*;q=0.8"),
            request(photo, 1, 0, "", "application/json"),
            request(photo | download, 0, 0),
            request(live, 1, 0, "&utm_source=qr", "application/vnd.sharelog.events"),
            request(live, 0b110, 0),
            request(expired, 0b111, 0, "", "text/vcard", ", *"),
            request(revoked, 1, 0, "", "application/json"),
            request(unknown, 1, 3 << 3 | 32, "", "application/json"),
            request(live, 0, 3 << 3 | 32),
            request(live | post, 0, 0),
            request(siteAssociation, 0, 0),
            request(siteAssociation | 5, 0b10_0000, 0),
            request(rawTarget, 0, 0, "/appclip?id='onmouseover='alert(1)"),
            request(live, 1, 0, "", "text/html;q=0"),
            request(unknown, 0b1000, 4 | 3 << 3 | 32, "", "", "", "203.0.113.7, 10.0.0.1"),
            request(live, 0b1_0000, 0),
            request(rawTarget, 0b100_0000, 0, "/appclip?" + String(repeating: "x", count: 2100)),
        ]
    }
}
