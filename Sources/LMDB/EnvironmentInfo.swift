internal import CLMDB

/// `mdb_env_info`: the map and the reader table.
public struct EnvironmentInfo: Sendable, Hashable {
    /// The current map size in bytes; it grows as writes need it.
    public let mapSize: Int
    /// The last page number in use.
    public let lastPage: Int
    /// The id of the last committed transaction.
    public let lastTransactionID: Int
    /// The size of the reader table.
    public let maxReaders: Int
    /// Reader slots used so far (including idle ones).
    public let readersUsed: Int

    init(_ info: MDB_envinfo) {
        mapSize = info.me_mapsize
        lastPage = info.me_last_pgno
        lastTransactionID = info.me_last_txnid
        maxReaders = Int(info.me_maxreaders)
        readersUsed = Int(info.me_numreaders)
    }
}
