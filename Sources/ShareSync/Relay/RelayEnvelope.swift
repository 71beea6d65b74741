/// The body of one JetStream message of the relay: one event, encoded by
/// `EventCodec.encode(_:)`, in the clear or sealed under an hour's card key
/// (`StreamKey.cardKey(forHour:)`).
///
/// Layout (integers big-endian):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | version, 1 |
/// | 1 | 1 | form: 0 plain, 1 sealed |
/// | plain: 2 | rest | the encoded event |
/// | sealed: 2 | 8 | hour (Int64, hours since the Unix epoch, UTC) |
/// | sealed: 10 | 12 | nonce |
/// | sealed: 22 | rest | AES-256-GCM ciphertext of the encoded event, then its 16-byte tag |
///
/// The sealed form's additional authenticated data is its 22-byte header
/// (version, form, hour, nonce): a changed hour or nonce fails like a
/// changed ciphertext. The plain form has no authentication of its own:
/// the stream's access control and `EventCodec`'s checksum guard it, so a
/// sealed body whose form byte is changed to 0 opens as a plain body whose
/// bytes `EventCodec` then refuses.
///
/// Nonces are 96 random bits (`RAND_bytes`). Every hour has its own key,
/// so the birthday bound on a repeated nonce counts one hour's sealed
/// messages only: at 2^32 messages in one hour the chance of a repeat is
/// about 2^-33.
///
/// A sealed body stays readable as long as some replica's `StreamKey` has
/// not advanced past its hour; see `StreamKey` for what erasure guarantees.
public enum RelayEnvelope {
    /// The envelope's format version.
    public static let version: UInt8 = 1
    /// The length of a sealed body's header (version, form, hour, nonce),
    /// which is also its additional authenticated data.
    public static let sealedHeaderCount = 2 + 8 + CardCipher.nonceCount
    /// The shortest sealed body: the header and the tag of an empty event.
    public static let sealedMinimumCount = sealedHeaderCount + CardCipher.tagCount

    enum Form {
        static let plain: UInt8 = 0
        static let sealed: UInt8 = 1
    }

    /// The plain body of `encodedEvent`: version, form 0, the bytes as they are.
    public static func plain(_ encodedEvent: [UInt8]) -> [UInt8] {
        [version, Form.plain] + encodedEvent
    }

    /// The sealed body of `encodedEvent` for `hour`, under `key`'s card key
    /// of that hour and a fresh random nonce. Throws `.hourErased` when
    /// `hour` is before `key.hour` and `.hourBeyondWindow` when it is more
    /// than `StreamKey.windowHours` after it (`cardKey(forHour:)` is nil).
    /// Costs one `cardKey(forHour:)` (up to 769 HMACs) and one AES-GCM pass.
    public static func sealed(_ encodedEvent: [UInt8], hour: Int64, key: StreamKey) throws(RelayEnvelopeError) -> [UInt8] {
        try sealed(encodedEvent, hour: hour, key: key, nonce: OpenSSLCrypto.randomBytes(CardCipher.nonceCount))
    }

    /// `sealed(_:hour:key:)` with a given nonce: the seam for tests. A
    /// nonce must never repeat under one hour's key.
    static func sealed(_ encodedEvent: [UInt8], hour: Int64, key: StreamKey, nonce: [UInt8]) throws(RelayEnvelopeError) -> [UInt8] {
        guard let cardKey = key.cardKey(forHour: hour) else {
            throw hour < key.hour ? .hourErased(hour: hour, keyHour: key.hour) : .hourBeyondWindow(hour: hour, keyHour: key.hour)
        }
        var header: [UInt8] = [version, Form.sealed]
        header.reserveCapacity(sealedHeaderCount)
        withUnsafeBytes(of: hour.bigEndian) { header.append(contentsOf: $0) }
        header.append(contentsOf: nonce)
        return header + CardCipher.seal(encodedEvent, key: cardKey, nonce: nonce, aad: header)
    }

    /// What `body` carries. A plain body gives its event; a sealed one its
    /// event decrypted under `key`'s card key of its hour, or `.erased` when
    /// `key` is nil or has advanced past that hour. Throws for a body too
    /// short for its form (`.truncated`), an unknown version or form, a
    /// sealed hour more than `StreamKey.windowHours` after `key.hour`
    /// (`.hourBeyondWindow`), and a tag that does not verify
    /// (`.authenticationFailed`: another stream's key, or a changed byte).
    ///
    /// `.erased` is not authenticated: without the hour's key nothing can
    /// be, so its hour is only what the body says.
    public static func open(_ body: [UInt8], key: StreamKey?) throws(RelayEnvelopeError) -> Opened {
        guard body.count >= 2 else { throw .truncated(count: body.count, needed: 2) }
        guard body[0] == version else { throw .unknownVersion(body[0]) }
        switch body[1] {
        case Form.plain:
            return .event(Array(body[2...]))
        case Form.sealed:
            guard body.count >= sealedMinimumCount else { throw .truncated(count: body.count, needed: sealedMinimumCount) }
            let hour = body[2..<10].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            guard let key, hour >= key.hour else { return .erased(hour: hour) }
            guard let cardKey = key.cardKey(forHour: hour) else { throw .hourBeyondWindow(hour: hour, keyHour: key.hour) }
            let header = Array(body[..<sealedHeaderCount])
            let nonce = Array(body[10..<sealedHeaderCount])
            guard let event = CardCipher.open(body[sealedHeaderCount...], key: cardKey, nonce: nonce, aad: header) else {
                throw .authenticationFailed(hour: hour)
            }
            return .event(event)
        default:
            throw .unknownForm(body[1])
        }
    }
}
