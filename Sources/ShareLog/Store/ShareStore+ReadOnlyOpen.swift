import LMDB

extension ShareStore {
    /// What a read-only open tells its caller when one of this format's
    /// databases is missing, read from `meta` alone (opened read-only, and
    /// closed again before this returns), so that it says what an open for
    /// writing would have said, and writes nothing:
    ///
    /// - `storeNotFound` without `meta`, or without a `schema` in it: an
    ///   open for writing was killed before it initialised the store;
    /// - `upgradeRequired` for format 1, which has no `cursors`, and format
    ///   2, which has no `tokens`: only an open for writing upgrades them;
    /// - `unsupportedStoreVersion` for a newer format, which need not have
    ///   this format's databases;
    /// - `corruptMeta("schema")` for a `schema` that is not a u32.
    ///
    /// - Returns: nil when `schema` says this format (or one this build
    ///   does not upgrade): the store is damaged, and the caller's error
    ///   for the missing database stands.
    static func readOnlyRefusal(at path: String, options: Environment.Options) throws -> ShareLogError? {
        let environment: Environment
        do {
            environment = try Environment.open(at: path, databases: ["meta"], options: options)
        } catch LMDBError.notFound {
            return .storeNotFound(path: path)
        }
        defer { environment.release() }
        let meta = try environment.database("meta")
        guard let schema = try environment.read({ txn in try txn.value(forKey: MetaKey.schema, in: meta) }) else {
            return .storeNotFound(path: path)
        }
        guard let version = schema.withUnsafeBytes({ Key.integer($0, as: UInt32.self) }) else { return .corruptMeta("schema") }
        if version > Schema.version { return .unsupportedStoreVersion(found: version, supported: Schema.version) }
        return StoreUpgrade.upgrades(version) ? .upgradeRequired(found: version) : nil
    }
}
