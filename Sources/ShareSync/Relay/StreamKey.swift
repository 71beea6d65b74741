import SharePrimitives

/// The hourly key ratchet that every replica relaying through one JetStream
/// stream shares: the state for `hour` (hours since the Unix epoch, UTC),
/// from which the card key of that hour and of every later hour follows.
///
/// Each step is one-way: `chainKey(h + 1) = HMAC-SHA256(chainKey(h),
/// "sharelog relay ratchet step")`, so a key for hour `h` can compute every
/// later hour's keys and none of the earlier ones. A replica advances its
/// key (`advanced(to:)`) once an hour is over and keeps only the result.
///
/// What the erasure guarantees: a card sealed for hour `h`
/// (`RelayEnvelope.sealed`) is unreadable from any copy of the stream, its
/// files and its backups alike, once every replica's `StreamKey` has
/// advanced past `h` and the older states are gone (from memory and from
/// every exported key file). A caller that seals a card under the hour in
/// which its share expires thus makes every stream copy of the card
/// unreadable within an hour after the share expires. The guarantee does
/// not reach a replica that has not advanced, nor a copy of an older key
/// file.
///
/// The chain key itself never encrypts anything: `cardKey(forHour:)`
/// derives the key of an hour with a separate HMAC label.
///
/// The chain key never appears in `description`, nor in `dump` or a
/// debugger's view (`customMirror` shows the hour only), and it never
/// leaves `SecretBytes`: each step and each card key is computed in place,
/// and a state's memory is zeroed once the last copy of it goes.
public struct StreamKey: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The length of a chain key in bytes.
    public static let byteCount = 32
    /// How many hours past `hour` `cardKey(forHour:)` reaches: 32 days, a
    /// share's longest life (30 days) plus room for clock skew.
    public static let windowHours: Int64 = 24 * 32
    /// The length of an hour in milliseconds.
    public static let millisecondsPerHour: Int64 = 3_600_000

    static let stepLabel = Array("sharelog relay ratchet step".utf8)
    static let cardKeyLabel = Array("sharelog relay card key".utf8)

    /// The hour of this state: hours since the Unix epoch, UTC.
    public let hour: Int64
    /// The chain key of `hour`: 32 bytes.
    let chainKey: SecretBytes

    init(hour: Int64, chainKey: SecretBytes) {
        precondition(chainKey.count == Self.byteCount, "a stream chain key has \(Self.byteCount) bytes")
        self.hour = hour
        self.chainKey = chainKey
    }

    /// The same hour and the same chain key, compared in constant time.
    public static func == (a: StreamKey, b: StreamKey) -> Bool {
        a.hour == b.hour && OpenSSLCrypto.constantTimeEqual(a.chainKey, b.chainKey)
    }

    public var description: String { "StreamKey(hour \(hour), chain key not shown)" }

    public var customMirror: Mirror { Mirror(self, children: ["hour": hour]) }

    /// The hour holding the instant `milliseconds` after the Unix epoch:
    /// `floor(milliseconds / 3_600_000)`, also before the epoch.
    public static func hour(atMilliseconds milliseconds: Int64) -> Int64 {
        let (quotient, remainder) = milliseconds.quotientAndRemainder(dividingBy: millisecondsPerHour)
        return remainder < 0 ? quotient - 1 : quotient
    }

    /// A new ratchet starting at `hour`, its chain key 32 bytes from
    /// OpenSSL's random generator (`RAND_bytes`). One replica generates it;
    /// the others import its `encoded()` form.
    public static func generate(hour: Int64) -> StreamKey {
        StreamKey(hour: hour, chainKey: OpenSSLCrypto.randomSecret(byteCount))
    }

    /// The state for `hour`, `hour - self.hour` ratchet steps on (none when
    /// equal). Requires `hour >= self.hour`: no state can step back. Costs
    /// one HMAC-SHA256 per step.
    public func advanced(to hour: Int64) -> StreamKey {
        precondition(hour >= self.hour, "a stream key at hour \(self.hour) cannot go back to hour \(hour)")
        var chain = chainKey
        var current = self.hour
        while current < hour {
            chain = OpenSSLCrypto.hmacSHA256(key: chain, parts: [Self.stepLabel])
            current += 1
        }
        return StreamKey(hour: hour, chainKey: chain)
    }

    /// The 32-byte AES-256 key of hour `h`: HMAC-SHA256 of "sharelog relay
    /// card key" under the chain key advanced to `h`, as a secret of its
    /// own. Nil when `h < hour`
    /// (this state has erased it) or `h > hour + windowHours` (beyond any
    /// share's life: a body claiming such an hour is not to be trusted).
    ///
    /// Cost: at most `windowHours` (768) ratchet steps from `hour` to `h`,
    /// one HMAC-SHA256 each, plus the derivation's one. Callers that seal or
    /// open many bodies of one hour may cache its key, and must drop the
    /// cached key when the hour is over.
    package func cardKey(forHour h: Int64) -> SecretBytes? {
        guard h >= hour, h - hour <= Self.windowHours else { return nil }
        return OpenSSLCrypto.hmacSHA256(key: advanced(to: h).chainKey, parts: [Self.cardKeyLabel])
    }
}
