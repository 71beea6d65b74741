/// Keys of the `meta` database.
enum MetaKey {
    /// UInt32: the store format version.
    static let schema = Array("schema".utf8)
    /// 16 bytes: this replica's id.
    static let replica = Array("replica".utf8)
    /// 16 bytes: this store's epoch.
    static let epoch = Array("epoch".utf8)
    /// 28 bytes: where the store lived when last opened for writing (its
    /// data file's and directory's inodes and the directory's ctime);
    /// another place means a copy or a restore, and a new replica id
    /// (`ShareStore.homeIdentity`, `ShareStore.renewIdentity`).
    static let dataFile = Array("data-file".utf8)
    /// UInt64: the origin counter of the last event this replica made.
    static let originSequence = Array("origin-sequence".utf8)
    /// UInt64: the highest log position a trim removed (absent = 0): the
    /// log may have gaps up to it, and a cursor behind it needs a snapshot.
    static let trimmedThrough = Array("trimmed-through".utf8)
    /// 16 bytes: the record name of the share a clip showed last
    /// (`ShareStore.recordShown`), for a relaunch without a link.
    static let lastShown = Array("last-shown".utf8)
    /// 24 bytes: the replica a clip store was handed off to, and when (ms):
    /// written by `ShareStore.adopt(from:)` on the clip's store.
    static let handedOff = Array("handed-off".utf8)
    /// UInt64: shares whose state is live (due ones included until swept).
    static let liveCount = Array("live-count".utf8)
    /// UInt64: shares whose state is expired (tombstones).
    static let expiredCount = Array("expired-count".utf8)
}
