/// What the store remembers of one upload made under an `Idempotency-Key`
/// (issue 32): which token sent it, the key's and the request's hashes,
/// when it was first seen, and the share it made, by record name and by
/// the id of its `shareCreated` event (so that sync's de-duplication also
/// covers a retry that reached another replica).
///
/// Its entry in the `idempotency` database (docs/FORMAT.md "Idempotency
/// keys"): key = token id (8) ‖ SHA-256 of the header's value (32); value
/// = version u8 = 1 ‖ request fingerprint (32) ‖ firstSeen i64 ms ‖ record
/// name (16) ‖ origin replica id (16) ‖ origin counter u64, written by
/// `ShareStore.create(vCard:ttl:claim:)` with the share it made.
public struct IdempotencyEntry: Hashable, Sendable {
    public let token: TokenID
    /// SHA-256 of the `Idempotency-Key` header's value, 32 bytes.
    public let keyHash: [UInt8]
    /// A hash of the request it answered (32 bytes), so that the same key
    /// with another body is told apart.
    public let fingerprint: [UInt8]
    public let firstSeen: Timestamp
    public let recordName: RecordName
    /// The id of the share's `shareCreated` event.
    public let creation: EventID

    /// The value's version byte.
    static let formatVersion: UInt8 = 1
    /// The key's and the value's lengths in bytes.
    static let keySize = TokenID.size + 32
    static let valueSize = 1 + 32 + 8 + 16 + 16 + 8

    public init(token: TokenID, keyHash: [UInt8], fingerprint: [UInt8], firstSeen: Timestamp, recordName: RecordName, creation: EventID) {
        self.token = token
        self.keyHash = keyHash
        self.fingerprint = fingerprint
        self.firstSeen = firstSeen
        self.recordName = recordName
        self.creation = creation
    }

    /// The `idempotency` key of `keyHash` under `token`.
    static func key(token: TokenID, keyHash: [UInt8]) -> [UInt8] { token.bytes + keyHash }

    /// The `idempotency` key.
    var key: [UInt8] { Self.key(token: token, keyHash: keyHash) }

    /// The `idempotency` value.
    func encodedValue() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.valueSize)
        writer.write(Self.formatVersion)
        writer.write(fingerprint)
        writer.write(firstSeen.milliseconds)
        writer.write(recordName.bytes)
        writer.write(creation.origin.bytes)
        writer.write(creation.counter)
        return writer.bytes
    }

    /// Decodes an `idempotency` entry.
    ///
    /// - Throws: `ShareLogError.corruptKey` naming the entry and the rule
    ///   it breaks: a key that is not 40 bytes, a value that is not 81, or
    ///   another value version.
    static func decode(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(ShareLogError) -> IdempotencyEntry {
        func corrupt(_ reason: String) -> ShareLogError { .corruptKey(database: "idempotency", key: Array(key), reason: reason) }
        guard key.count == keySize, let token = TokenID(bytes: key[..<TokenID.size]) else {
            throw corrupt("an idempotency key is \(keySize) bytes, not \(key.count)")
        }
        guard value.count == valueSize else { throw corrupt("the value is \(value.count) bytes, not \(valueSize)") }
        var reader = ByteReader(value)
        guard reader.read(UInt8.self) == formatVersion, let fingerprint = reader.readBytes(32), let firstSeen = reader.read(Int64.self),
              let name = reader.readBytes(16), let origin = reader.readBytes(16), let counter = reader.read(UInt64.self)
        else { throw corrupt("not an entry of value version \(formatVersion)") }
        return IdempotencyEntry(
            token: token, keyHash: Array(key[TokenID.size...]), fingerprint: fingerprint, firstSeen: Timestamp(milliseconds: firstSeen),
            recordName: RecordName(bytes: name), creation: EventID(origin: ReplicaID(bytes: origin), counter: counter))
    }
}
