/// A bearer token as the store keeps it: its public id, name, scopes and
/// times, and the SHA-256 of its secret. Never the secret itself: ShareLog
/// does not see it (ShareHTTP's `BearerToken` makes, parses and hashes
/// tokens), so a copy of the store cannot be used to authenticate.
///
/// Its value in the `tokens` database (docs/FORMAT.md "Tokens"), all
/// integers big-endian, times in ms: version u8 = 1 ‖ scopes u8 ‖
/// createdAt i64 ‖ expiresAt i64 (`Int64.max` = never) ‖ revokedAt i64
/// (0 = not revoked) ‖ lastUsedAt i64 (0 = never) ‖ SHA-256 of the secret
/// (32) ‖ name length u8 ‖ name.
public struct StoredToken: Hashable, Sendable {
    public let id: TokenID
    /// Unique in the store: 1 to 64 of `A-Z a-z 0-9 . _ -` (`isValidName`).
    public let name: String
    public let scopes: TokenScopes
    public let createdAt: Timestamp
    /// Nil: it never expires.
    public let expiresAt: Timestamp?
    /// When it was revoked, the first time; nil while it is not.
    public internal(set) var revokedAt: Timestamp?
    /// When a request last authenticated with it; nil if none has.
    public internal(set) var lastUsedAt: Timestamp?
    /// SHA-256 of the secret, 32 bytes.
    public let secretHash: [UInt8]

    /// The value's version byte.
    static let formatVersion: UInt8 = 1
    /// The value's bytes before the name.
    static let fixedSize = 1 + 1 + 4 * 8 + 32 + 1
    /// The longest name, in bytes.
    public static let maximumNameLength = 64

    /// A token as `ShareStore.addToken` stores it: not revoked, never used.
    public init(id: TokenID, name: String, scopes: TokenScopes, createdAt: Timestamp, expiresAt: Timestamp?, secretHash: [UInt8]) {
        self.id = id
        self.name = name
        self.scopes = scopes
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = nil
        self.lastUsedAt = nil
        self.secretHash = secretHash
    }

    /// True for 1 to 64 characters, each an ASCII letter, digit, `.`, `_`
    /// or `-`: a name that is safe in a terminal, a log line and a URL.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return (1...maximumNameLength).contains(bytes.count) && bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): true
            default: false
            }
        }
    }

    /// Whether `expiresAt` is at or before `time`.
    public func isExpired(at time: Timestamp) -> Bool {
        expiresAt.map { $0 <= time } ?? false
    }

    /// Why `ShareStore.addToken` refuses this token, or nil: a name
    /// `isValidName` refuses, no scope or an undefined bit, a hash that is
    /// not 32 bytes, or an expiry not after its creation.
    var invalidity: String? {
        if !Self.isValidName(name) {
            return "the name '\(name)' is not 1 to 64 of the letters A-Z and a-z, the digits 0-9, '.', '_' and '-'"
        }
        if scopes.isEmpty || !TokenScopes.all.isSuperset(of: scopes) { return "its scopes must be some of upload, revoke and read" }
        if secretHash.count != 32 { return "its secret's hash is \(secretHash.count) bytes, not SHA-256's 32" }
        if let expiresAt, expiresAt <= createdAt || expiresAt.milliseconds == .max {
            return "it would expire at \(expiresAt.iso8601), not after its creation at \(createdAt.iso8601)"
        }
        return nil
    }

    /// The `tokens` value.
    func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.fixedSize + name.utf8.count)
        writer.write(Self.formatVersion)
        writer.write(scopes.rawValue)
        writer.write(createdAt.milliseconds)
        writer.write(expiresAt?.milliseconds ?? .max)
        writer.write(revokedAt?.milliseconds ?? 0)
        writer.write(lastUsedAt?.milliseconds ?? 0)
        writer.write(secretHash)
        writer.write(UInt8(name.utf8.count))
        writer.write(Array(name.utf8))
        return writer.bytes
    }

    /// Decodes a `tokens` entry.
    ///
    /// - Throws: `ShareLogError.corruptKey` naming the entry and the rule
    ///   it breaks (docs/FORMAT.md "What a reader must refuse").
    static func decode(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(ShareLogError) -> StoredToken {
        func corrupt(_ reason: String) -> ShareLogError { .corruptKey(database: "tokens", key: Array(key), reason: reason) }
        guard let id = TokenID(bytes: key) else { throw corrupt("a token id is 8 bytes, not \(key.count)") }
        var reader = ByteReader(value)
        guard reader.read(UInt8.self) == formatVersion else { throw corrupt("not a token of value version \(formatVersion)") }
        guard let scopeBits = reader.read(UInt8.self), let created = reader.read(Int64.self), let expires = reader.read(Int64.self),
              let revoked = reader.read(Int64.self), let used = reader.read(Int64.self), let hash = reader.readBytes(32),
              let length = reader.read(UInt8.self), let nameBytes = reader.readBytes(Int(length)), reader.remaining == 0
        else { throw corrupt("the value is \(value.count) bytes, not \(fixedSize) plus its name's length") }
        let scopes = TokenScopes(rawValue: scopeBits)
        guard TokenScopes.all.isSuperset(of: scopes) else { throw corrupt("scope bits 0x\(Key.hex([scopeBits])) set a bit above bit 2") }
        let name = String(decoding: nameBytes, as: UTF8.self)
        guard isValidName(name), name.utf8.elementsEqual(nameBytes) else { throw corrupt("the name is not 1 to 64 of A-Z a-z 0-9 . _ -") }
        var token = StoredToken(
            id: id, name: name, scopes: scopes, createdAt: Timestamp(milliseconds: created),
            expiresAt: expires == .max ? nil : Timestamp(milliseconds: expires), secretHash: hash)
        token.revokedAt = revoked == 0 ? nil : Timestamp(milliseconds: revoked)
        token.lastUsedAt = used == 0 ? nil : Timestamp(milliseconds: used)
        return token
    }
}
