/// What the `shares` projection knows about one record name (store format
/// 2, docs/FORMAT.md "Share states").
///
/// Invariants: at least one part is set; `ttlEnd` only without a
/// `creation` (once a creation is known, the TTL end is its `expiresAt`);
/// `arrivedRedacted` only with a `creation` and without a `revocation`.
/// The card is not here: it is in the log entry at `creation.position`.
struct ShareState: Equatable, Sendable {
    /// The winning `shareCreated`: the smallest event id.
    struct Creation: Equatable, Sendable {
        let createdAt: Timestamp
        let expiresAt: Timestamp
        let event: EventID
        /// The log position of that `shareCreated`, whose entry holds the card.
        let position: UInt64
    }

    /// A `shareExpired` of one reason.
    struct End: Equatable, Sendable {
        let at: Timestamp
        let event: EventID

        /// The deterministic winner between two ends: the earlier time,
        /// then the smaller event id.
        func precedes(_ other: End) -> Bool {
            (at, event) < (other.at, other.event)
        }

        /// `self` if it precedes `other` (or there is no other), else `other`.
        func earliest(_ other: End?) -> End {
            guard let other else { return self }
            return precedes(other) ? self : other
        }
    }

    var creation: Creation?
    /// The winning `shareExpired(revoked)`.
    var revocation: End?
    /// The winning `shareExpired(ttl)` of a tombstone without a creation.
    var ttlEnd: End?
    /// The winning creation arrived without its card, and no end of the
    /// share is logged: it ended where it came from, and reads as ended
    /// here (never pending) until its end arrives or a creation holding a
    /// card wins over it (docs/ENGINE.md "A creation without its card").
    var arrivedRedacted = false

    /// How the share reads at `now` without its card: the end it has
    /// reached, or nil when it is live provided the creation's log entry
    /// still holds its card.
    func end(at now: Timestamp) -> (at: Timestamp, reason: ExpiryReason)? {
        guard let creation else {
            switch (revocation, ttlEnd) {
            case (let revoked?, let ttl?):
                return revoked.precedes(ttl) ? (revoked.at, .revoked) : (ttl.at, .ttl)
            case (let revoked?, nil): return (revoked.at, .revoked)
            case (nil, let ttl?): return (ttl.at, .ttl)
            case (nil, nil): return nil
            }
        }
        if let revocation, revocation.at < creation.expiresAt { return (revocation.at, .revoked) }
        if revocation != nil || creation.expiresAt <= now { return (creation.expiresAt, .ttl) }
        return nil
    }
}

extension ShareState {
    static let formatVersion: UInt8 = 2
    static let creationSize = 48
    static let endSize = 32

    private enum Flag {
        static let creation: UInt8 = 1
        static let revocation: UInt8 = 2
        static let ttlEnd: UInt8 = 4
        static let arrivedRedacted: UInt8 = 8
    }

    /// Version (1), flags (1), then the present parts in order: creation
    /// (createdAt, expiresAt, origin, counter, log position), revocation
    /// (at, origin, counter), TTL end (at, origin, counter); big-endian.
    func encoded() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: encodedSize) { buffer, count in
            encode(into: UnsafeMutableRawBufferPointer(buffer))
            count = encodedSize
        }
    }

    /// The size of `encoded()`, in bytes.
    var encodedSize: Int {
        2 + (creation == nil ? 0 : Self.creationSize) + (revocation == nil ? 0 : Self.endSize) + (ttlEnd == nil ? 0 : Self.endSize)
    }

    /// Writes `encoded()` into `buffer`, allocating nothing: how the
    /// projection stores a state straight into the space LMDB reserves.
    ///
    /// - Precondition: `buffer.count == encodedSize`.
    func encode(into buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count == encodedSize, "the buffer is the state's encoded size")
        var flags: UInt8 = 0
        if creation != nil { flags |= Flag.creation }
        if revocation != nil { flags |= Flag.revocation }
        if ttlEnd != nil { flags |= Flag.ttlEnd }
        if arrivedRedacted { flags |= Flag.arrivedRedacted }
        var writer = BufferWriter(buffer)
        writer.write(ShareState.formatVersion)
        writer.write(flags)
        if let creation {
            writer.write(creation.createdAt.milliseconds)
            writer.write(creation.expiresAt.milliseconds)
            writer.write(creation.event.origin)
            writer.write(creation.event.counter)
            writer.write(creation.position)
        }
        if let revocation { Self.write(revocation, to: &writer) }
        if let ttlEnd { Self.write(ttlEnd, to: &writer) }
    }

    private static func write(_ end: End, to writer: inout BufferWriter) {
        writer.write(end.at.milliseconds)
        writer.write(end.event.origin)
        writer.write(end.event.counter)
    }

    /// Decodes a stored state.
    ///
    /// - Returns: nil when the bytes are not a valid format-2 state: another
    ///   version, undefined or no parts, a TTL end beside a creation, an
    ///   arrived-redacted mark without a creation or beside a revocation, or
    ///   a length its flags do not give.
    init?(_ bytes: UnsafeRawBufferPointer) {
        var reader = ByteReader(bytes)
        guard reader.read(UInt8.self) == ShareState.formatVersion, let flags = reader.read(UInt8.self),
              flags & (Flag.creation | Flag.revocation | Flag.ttlEnd) != 0,
              flags & ~(Flag.creation | Flag.revocation | Flag.ttlEnd | Flag.arrivedRedacted) == 0,
              flags & (Flag.creation | Flag.ttlEnd) != (Flag.creation | Flag.ttlEnd),
              flags & Flag.arrivedRedacted == 0 || flags & (Flag.creation | Flag.revocation) == Flag.creation
        else { return nil }
        arrivedRedacted = flags & Flag.arrivedRedacted != 0
        if flags & Flag.creation != 0 {
            guard let createdAt = reader.read(Int64.self), let expiresAt = reader.read(Int64.self),
                  let origin = reader.readSlice(16), let counter = reader.read(UInt64.self),
                  let position = reader.read(UInt64.self)
            else { return nil }
            creation = Creation(
                createdAt: Timestamp(milliseconds: createdAt), expiresAt: Timestamp(milliseconds: expiresAt),
                event: EventID(origin: ReplicaID(bytes: origin), counter: counter), position: position)
        }
        if flags & Flag.revocation != 0 {
            guard let end = Self.readEnd(&reader) else { return nil }
            revocation = end
        }
        if flags & Flag.ttlEnd != 0 {
            guard let end = Self.readEnd(&reader) else { return nil }
            ttlEnd = end
        }
        guard reader.remaining == 0 else { return nil }
    }

    private static func readEnd(_ reader: inout ByteReader) -> End? {
        guard let at = reader.read(Int64.self), let origin = reader.readSlice(16), let counter = reader.read(UInt64.self)
        else { return nil }
        return End(at: Timestamp(milliseconds: at), event: EventID(origin: ReplicaID(bytes: origin), counter: counter))
    }
}
