import CLMDB

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

        public init() {}
    }

    /// What a commit promises once it returns.
    public enum Durability: Sendable, Hashable {
        /// Two fsyncs per commit: a returned commit survives an OS crash.
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
