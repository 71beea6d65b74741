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

    /// Installs `token`, a token made by another store (`sharelog token
    /// import`): the same id and secret hash, so the same token text
    /// authenticates here, and an upload under the same `Idempotency-Key`
    /// names the same share (docs/HTTP.md "Exactly once"). One durable
    /// transaction, which reads every token (O(tokens), as `addToken`).
    ///
    /// Installing a token that is already here, with the same name, id and
    /// hash, is not an error: nothing is written (no write transaction is
    /// begun) and the answer holds the token as stored, with its own scopes
    /// and times (the ones `token` gives are not applied). A script may so
    /// install its tokens every time it runs.
    ///
    /// Hashes are compared with `==`: they are of 32 random bytes, and
    /// this is a local operator's command, not a request to time.
    ///
    /// - Throws: nothing is written whenever it throws.
    ///   `invalidToken` for what `addToken` refuses; for an id stored with
    ///   another hash (another token, not this one) or under another name;
    ///   and for this token already here but revoked, or expired at
    ///   `token.createdAt` (installing it again changes neither).
    ///   `tokenNameTaken` when another token, revoked or not, has the name.
    public func importToken(_ token: StoredToken) throws(ShareLogError) -> TokenImport {
        if let reason = token.invalidity { throw ShareLogError.invalidToken(reason) }
        // Read first, so that a token already here is answered without a
        // write transaction: not even the commit signal rings.
        if let stored = try self.token(id: token.id) { return try Self.reinstall(token, over: stored) }
        let database = schema.tokens
        return try write { txn in
            // Installed by another process since the read: answered alike.
            if let stored = try Self.token(id: token.id, in: database, txn) { return try Self.reinstall(token, over: stored) }
            if try Self.token(named: token.name, in: database, txn) != nil { throw ShareLogError.tokenNameTaken(token.name) }
            try txn.put(token.encoded(), forKey: token.id.bytes, in: database)
            return TokenImport(token: token, wasAlreadyInstalled: false)
        }
    }

    /// `importToken`'s answer when a token with `token`'s id is `stored`:
    /// already installed if it is the same token under the same name, in
    /// force at `token.createdAt`; a refusal otherwise.
    private static func reinstall(_ token: StoredToken, over stored: StoredToken) throws(ShareLogError) -> TokenImport {
        guard stored.secretHash == token.secretHash else {
            throw ShareLogError.invalidToken(
                "a token with the id \(token.id) is stored here as '\(stored.name)' with another secret, so it is another token; "
                    + "check that the file holds the token you mean")
        }
        guard stored.name == token.name else {
            throw ShareLogError.invalidToken(
                "this token is installed here as '\(stored.name)', and a token has one name; import it as '\(stored.name)', or not at all")
        }
        if let revokedAt = stored.revokedAt {
            throw ShareLogError.invalidToken(
                "this token is installed here as '\(stored.name)' but was revoked at \(revokedAt.iso8601), and a revoked token stays revoked; "
                    + "make a new one with 'sharelog token create'")
        }
        if let expiresAt = stored.expiresAt, stored.isExpired(at: token.createdAt) {
            throw ShareLogError.invalidToken(
                "this token is installed here as '\(stored.name)' but expired at \(expiresAt.iso8601), and an installed token keeps its expiry; "
                    + "make a new one with 'sharelog token create'")
        }
        return TokenImport(token: stored, wasAlreadyInstalled: true)
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
        guard var token = try token(id: id, in: database, txn) else { return nil }
        guard token.lastUsedAt.map({ $0 < time }) ?? true else { return token }
        token.lastUsedAt = time
        try txn.put(token.encoded(), forKey: id.bytes, in: database)
        return token
    }

    /// The token with `id` in `txn`, or nil. O(log tokens).
    private static func token(id: TokenID, in database: Database, _ txn: borrowing WriteTransaction) throws -> StoredToken? {
        guard let value = try txn.value(forKey: id.bytes, in: database) else { return nil }
        return try value.withUnsafeBytes { value in
            try id.bytes.withUnsafeBytes { key in try StoredToken.decode(key: key, value: value) }
        }
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
