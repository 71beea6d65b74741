import ShareSync

/// What a server must make of a client's first bytes, read from the
/// decoding table of docs/SYNC.md ("Decoding") apart from ShareSync's
/// decoder: the words its log line holds and the error code it sends,
/// for a client that sends `bytes` and then waits.
struct FrameRefusalOracle {
    /// The words the server's `closed` line must hold.
    let reason: String
    /// The code of the `error` message the client gets first; nil when
    /// none is due (the server only times out).
    let code: SyncErrorCode?

    /// The payload limits before a hello, from docs/SYNC.md "Limits": the
    /// largest of any type (an `error`'s), and each type's own. Other
    /// types may not come then.
    static let largest = 514
    static let limits: [UInt8: Int] = [1: 74, 15: 514, 16: 0]

    /// Nil for bytes that make a whole, intact frame: the oracle does not
    /// decode messages.
    init?(_ bytes: [UInt8], handshakeTimeout: String) {
        let length = bytes.count >= 4 ? bytes[0..<4].reduce(0) { $0 << 8 | Int($1) } : nil
        if let length, length > Self.largest {
            (reason, code) = ("frame of \(length) payload bytes, over the limit of \(Self.largest)", .oversizedFrame)
        } else if bytes.count >= 5, !(1...17).contains(bytes[4]) {
            (reason, code) = ("frame of type \(bytes[4]), which this build does not know", .malformedFrame)
        } else if bytes.count >= 5, Self.limits[bytes[4]] == nil {
            (reason, code) = ("which may not come in the handshake, waiting for hello", .unexpectedMessage)
        } else if let length, bytes.count >= 5, let limit = Self.limits[bytes[4]], length > limit {
            (reason, code) = ("frame of \(length) payload bytes, over the limit of \(limit)", .oversizedFrame)
        } else if let length, bytes.count >= 9 + length {
            let stated = bytes[5..<9].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let computed = ReferenceCRC32.of([bytes[4]] + bytes[9..<9 + length])
            guard stated != computed else { return nil }
            (reason, code) = ("arrived damaged", .malformedFrame)
        } else {
            // An incomplete frame: the server waits for the rest until the
            // handshake deadline.
            (reason, code) = (handshakeTimeout, nil)
        }
    }
}
