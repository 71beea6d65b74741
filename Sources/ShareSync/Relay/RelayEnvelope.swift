import SharePrimitives

/// The body of one JetStream message of the relay: one event, encoded by
/// `EventCodec.encode(_:)`, either plain or as a creation whose card is
/// sealed under its hour's card key (`StreamKey.cardKey(forHour:)`).
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
/// | sealed: 22 | 4 | n, the redacted event's length |
/// | sealed: 26 | n | the encoded creation without its card (the redacted event) |
/// | sealed: 26 + n | rest | AES-256-GCM ciphertext of the card, then its 16-byte tag |
///
/// The sealed form's additional authenticated data is everything before
/// the ciphertext: a changed hour, nonce or redacted event fails like a
/// changed ciphertext, while the key is held. Once it is erased, the
/// redacted event is as the body says; `EventCodec`'s checksum still
/// guards it against damage, and the stream's access control against
/// forgery, as for a plain body.
///
/// Nonces are 96 random bits (`RAND_bytes`). Every hour has its own key,
/// so the birthday bound on a repeated nonce counts one hour's sealed
/// messages only: at 2^32 messages in one hour the chance of a repeat is
/// about 2^-33.
///
/// A sealed card stays readable as long as some replica's `StreamKey` has
/// not advanced past its hour; see `StreamKey` for what erasure guarantees.
public enum RelayEnvelope {
    /// The envelope's format version.
    public static let version: UInt8 = 1
    /// Where a sealed body's redacted event starts: after version, form,
    /// hour, nonce and its length.
    public static let sealedHeaderCount = 2 + 8 + CardCipher.nonceCount + 4
    /// The shortest sealed body: the header and the tag of an empty card
    /// after an empty redacted event.
    public static let sealedMinimumCount = sealedHeaderCount + CardCipher.tagCount

    enum Form {
        static let plain: UInt8 = 0
        static let sealed: UInt8 = 1
    }

    /// The plain body of `encodedEvent`: version, form 0, the bytes as they are.
    public static func plain(_ encodedEvent: [UInt8]) -> [UInt8] {
        [version, Form.plain] + encodedEvent
    }

    /// The sealed body of a creation: `redactedEvent` (its encoding without
    /// the card) in the clear, `card` under `cardKey`, the card key of
    /// `hour`, and a fresh random nonce. Costs one AES-GCM pass over the
    /// card.
    package static func sealed(redactedEvent: [UInt8], card: [UInt8], hour: Int64, cardKey: SecretBytes) -> [UInt8] {
        sealed(redactedEvent: redactedEvent, card: card, hour: hour, cardKey: cardKey,
               nonce: OpenSSLCrypto.randomBytes(CardCipher.nonceCount))
    }

    /// `sealed(redactedEvent:card:hour:cardKey:)` with a given nonce: the
    /// seam for tests. A nonce must never repeat under one hour's key.
    static func sealed(redactedEvent: [UInt8], card: [UInt8], hour: Int64, cardKey: SecretBytes, nonce: [UInt8]) -> [UInt8] {
        var header: [UInt8] = [version, Form.sealed]
        header.reserveCapacity(sealedHeaderCount + redactedEvent.count)
        withUnsafeBytes(of: hour.bigEndian) { header.append(contentsOf: $0) }
        header.append(contentsOf: nonce)
        withUnsafeBytes(of: UInt32(redactedEvent.count).bigEndian) { header.append(contentsOf: $0) }
        header.append(contentsOf: redactedEvent)
        return header + CardCipher.seal(card, key: cardKey, nonce: nonce, aad: header)
    }

    /// What `body` carries. A plain body gives its event; a sealed one its
    /// redacted event, its hour, and its card decrypted under
    /// `cardKey(hour)`, or no card when that is nil (the key was erased,
    /// or never held).
    ///
    /// - Throws: `.truncated` for a body too short for its form or its
    ///   redacted event's length, `.unknownVersion`, `.unknownForm`, and
    ///   `.authenticationFailed` for a tag that does not verify (another
    ///   stream's key, or a changed byte).
    package static func open(_ body: [UInt8], cardKey: (Int64) -> SecretBytes?) throws(RelayEnvelopeError) -> Opened {
        guard body.count >= 2 else { throw .truncated(count: body.count, needed: 2) }
        guard body[0] == version else { throw .unknownVersion(body[0]) }
        switch body[1] {
        case Form.plain:
            return .plain(Array(body[2...]))
        case Form.sealed:
            guard body.count >= sealedMinimumCount else { throw .truncated(count: body.count, needed: sealedMinimumCount) }
            let hour = body[2..<10].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            let redactedCount = body[22..<26].reduce(0) { $0 << 8 | Int($1) }
            let cardStart = sealedHeaderCount + redactedCount
            guard body.count >= cardStart + CardCipher.tagCount else {
                throw .truncated(count: body.count, needed: cardStart + CardCipher.tagCount)
            }
            let redacted = Array(body[sealedHeaderCount..<cardStart])
            guard let key = cardKey(hour) else { return .sealed(redactedEvent: redacted, hour: hour, card: nil) }
            let nonce = Array(body[10..<22])
            guard let card = CardCipher.open(body[cardStart...], key: key, nonce: nonce, aad: Array(body[..<cardStart])) else {
                throw .authenticationFailed(hour: hour)
            }
            return .sealed(redactedEvent: redacted, hour: hour, card: card)
        default:
            throw .unknownForm(body[1])
        }
    }
}
