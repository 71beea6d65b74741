internal import CLMDB

extension Environment {
    /// How an environment is opened. The defaults are durable and safe.
    public struct Options: Sendable, Hashable {
        /// The initial map size in bytes. The map grows by doubling when a
        /// write fills it, so this is a starting point, not a limit.
        ///
        /// It is also what `data.mdb` takes on disk: a read-write environment
        /// (`MDB_WRITEMAP`) keeps the file as large as the map, its blocks
        /// allocated, so a new store takes this much, and a store up to twice
        /// its data (after a doubling). Small by default for that reason.
        public var mapSize: Int = 1 << 20
        /// The map never grows past this; a write that needs more fails with
        /// `LMDBError.mapFull`.
        public var maxMapSize: Int = 256 << 30
        /// Reader slots (`mdb_env_set_maxreaders`). Every open read
        /// transaction holds one, so keep read concurrency below this. Only
        /// the first process to open the environment sets it.
        public var maxReaders: Int = 510
        /// When a commit reaches the disk.
        public var durability: Durability = .full
        /// Open without write access: writes throw `LMDBError.readOnly`, and
        /// every declared database must already exist.
        public var readOnly: Bool = false
        /// Permissions of files created in the directory; owner-only by
        /// default, because stores hold personal data.
        public var fileMode: UInt32 = 0o600
        /// Finished read transactions kept reset (`mdb_txn_reset`) for the
        /// next reads to renew, instead of beginning and aborting one per
        /// read. Each keeps a reader slot, so the environment keeps at most
        /// this many, and never more than a quarter of the reader table
        /// (`maxReaders` as the lock file has it): the rest stays free for
        /// other processes and for this one's concurrent reads. 0 turns the
        /// reuse off.
        ///
        /// Off by default. Idle transactions keep slots of a table every
        /// process shares, and they depend longer than a read does on
        /// liblmdb's POSIX locks on `lock.mdb`, which this process loses
        /// when any descriptor of that file is closed in it: another
        /// process then resets the table under them (docs/LMDB.md, "What the
        /// caller must not do"). The `MDB_BAD_RSLOT` and the lost slots
        /// once seen in full test runs came from a test that did that.
        public var idleReadTransactions: Int = 0
        /// How long the writer may hold a group commit open for more writes
        /// to join, like PostgreSQL's `commit_delay`.
        ///
        /// The writer waits only when other writers were recently active:
        /// the previous commit carried more than one write, or writes
        /// queued while it ran, and the writer has been idle no longer than
        /// this delay since. It then waits until as many writes are queued
        /// as were active around the previous commit, or until the delay
        /// has passed, whichever comes first, never longer; so a lone
        /// writer never waits, and a group of steady writers commits
        /// together. `.zero` turns the delay off. The default was chosen
        /// by measurement (docs/LMDB.md).
        public var commitDelay: Duration = .microseconds(500)

        public init() {}
    }

    /// What a commit promises once it returns.
    public enum Durability: Sendable, Hashable {
        /// Two syncs per commit (with `MDB_WRITEMAP`, two `msync(MS_SYNC)`:
        /// the data, then the meta page): a returned commit survives an OS
        /// crash or a power cut (docs/RELIABILITY.md "Power loss").
        case full
        /// `MDB_NOMETASYNC`: an OS crash may lose the last commit, never corrupt.
        case noMetaSync
        /// `MDB_NOSYNC`: an OS crash may lose recent commits, and with a
        /// file system that reorders writes, corrupt the store. For tests
        /// and rebuildable scratch data only.
        case noSync

        var flags: UInt32 {
            switch self {
            case .full: 0
            case .noMetaSync: UInt32(MDB_NOMETASYNC)
            case .noSync: UInt32(MDB_NOSYNC)
            }
        }
    }
}
