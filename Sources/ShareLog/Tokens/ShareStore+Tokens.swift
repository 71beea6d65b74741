import LMDB

/// The bearer tokens of the gateway's write API (issue 32), in the
/// primary `tokens` database (docs/FORMAT.md "Tokens").
///
/// The store keeps only each secret's SHA-256, given by the caller
/// (ShareHTTP's `BearerToken`). Tokens are few (one per app or tool that
/// uploads), so the name's uniqueness is checked by reading every token in
/// the write transaction that adds one: O(tokens), a few microseconds for
/// dozens, and it needs no second index to keep in step. Every write is one
/// durable transaction and is seen at once by every other process and
/// instance that has the store open, without a restart.
extension ShareStore {
    /// Stores a new token.
    ///
    /// - Throws: `invalidToken` for a name `StoredToken.isValidName`
    ///   refuses, no scope, a hash that is not 32 bytes or an expiry not
    ///   after `createdAt`; `tokenNameTaken` when a token has that name
    ///   (revoked ones included: a name names one token for good);
    ///   `invalidToken` also when a token has its id. Nothing is written then.
    public func addToken(_ token: StoredToken) throws(ShareLogError) {
        if let reason = token.invalidity { throw ShareLogError.invalidToken(reason) }
        let database = schema.tokens
        try write { txn in
            try txn.scan(database) { entry in
                if try StoredToken.decode(key: entry.key, value: entry.value).name == token.name {
                    throw ShareLogError.tokenNameTaken(token.name)
                }
                return .proceed
            }
            guard try !txn.contains(token.id.bytes, in: database) else {
                throw ShareLogError.invalidToken("a token with the id \(token.id) is already stored; make another")
            }
            try txn.put(token.encoded(), forKey: token.id.bytes, in: database)
        }
    }

    /// Every token, sorted by name. O(tokens), one read transaction.
    ///
    /// - Throws: `corruptKey` for an entry that does not decode.
    public func tokens() throws(ShareLogError) -> [StoredToken] {
        try read { txn in
            var tokens: [StoredToken] = []
            try txn.scan(schema.tokens) { entry in
                tokens.append(try StoredToken.decode(key: entry.key, value: entry.value))
                return .proceed
            }
            return tokens.sorted { $0.name < $1.name }
        }
    }

    /// The token with `id` as stored now, or nil. O(log tokens): what
    /// authenticating a request reads, so a revoke by another process is
    /// seen by the next request.
    public func token(id: TokenID) throws(ShareLogError) -> StoredToken? {
        try read { txn in
            try txn.withValue(forKey: id.bytes, in: schema.tokens) { value in
                try id.bytes.withUnsafeBytes { key in try StoredToken.decode(key: key, value: value) }
            }
        }
    }

    /// Revokes the token named `name` at `time`: from then on it
    /// authenticates nothing, in any process. A token revoked before keeps
    /// its first `revokedAt`, nothing is written, and the answer says so.
    ///
    /// - Throws: `tokenNotFound` when no token has the name; nothing is
    ///   written.
    public func revokeToken(named name: String, at time: Timestamp) throws(ShareLogError) -> TokenRevocation {
        let database = schema.tokens
        return try write { txn in
            guard var token = try Self.token(named: name, in: database, txn) else { throw ShareLogError.tokenNotFound(name) }
            guard token.revokedAt == nil else { return TokenRevocation(token: token, wasAlreadyRevoked: true) }
            token.revokedAt = time
            try txn.put(token.encoded(), forKey: token.id.bytes, in: database)
            return TokenRevocation(token: token, wasAlreadyRevoked: false)
        }
    }

    /// Records that a request authenticated with the token `id` at `time`,
    /// in one transaction. `lastUsedAt` only moves forward: a later time
    /// already stored stays.
    ///
    /// - Returns: the token as stored now; nil when no token has the id
    ///   (nothing is written).
    @discardableResult
    public func markTokenUsed(_ id: TokenID, at time: Timestamp) throws(ShareLogError) -> StoredToken? {
        let database = schema.tokens
        return try write { txn -> StoredToken? in try Self.markUsed(id, at: time, in: database, txn) }
    }

    /// `markTokenUsed`'s work in `txn`, for the writes that authenticate
    /// (an upload marks its token in its own transaction).
    @discardableResult
    static func markUsed(_ id: TokenID, at time: Timestamp, in database: Database, _ txn: borrowing WriteTransaction) throws -> StoredToken? {
        guard let value = try txn.value(forKey: id.bytes, in: database) else { return nil }
        var token = try value.withUnsafeBytes { value in
            try id.bytes.withUnsafeBytes { key in try StoredToken.decode(key: key, value: value) }
        }
        guard token.lastUsedAt.map({ $0 < time }) ?? true else { return token }
        token.lastUsedAt = time
        try txn.put(token.encoded(), forKey: id.bytes, in: database)
        return token
    }

    /// The token named `name` in `txn`, by reading them all (tokens are few).
    private static func token(named name: String, in database: Database, _ txn: borrowing WriteTransaction) throws -> StoredToken? {
        var found: StoredToken?
        try txn.scan(database) { entry in
            let token = try StoredToken.decode(key: entry.key, value: entry.value)
            guard token.name == name else { return .proceed }
            found = token
            return .stop
        }
        return found
    }
}
