import CLMDB
import Glibc
import Synchronization

/// Owns one `MDB_env` and the rules for using it safely; shared by the
/// public `Environment` and its writer thread.
///
/// It closes the handle when the last owner lets go, aborting its idle read
/// transactions first, unless the process was forked since the open: a
/// child leaves the inherited handle alone (it would munmap and close
/// descriptors the parent's state describes, and aborting the parent's idle
/// transactions would free the parent's reader slots in the shared lock
/// file) and leaks it instead.
@usableFromInline
package final class EnvironmentHandle: @unchecked Sendable {
    // @unchecked Sendable: `pointer` is an MDB_env, which LMDB allows to be
    // used from any thread with MDB_NOTLS; map resizing, the one operation
    // that is not thread-safe, runs only under `gate` held exclusive.
    // `idleReads` is thread-safe itself. Every other stored property is an
    // immutable value.
    package let pointer: OpaquePointer
    let gate = ResizeGate()
    /// Reset read transactions waiting to be renewed.
    let idleReads: ReadTransactionPool
    package let path: String
    let options: Environment.Options
    let fileID: FileID
    /// Distinguishes this environment's `Database` handles from others'.
    let id: Int
    /// `mdb_env_get_maxkeysize`: 511 with Debian's build.
    let maxKeySize: Int
    private let forkGeneration: Int
    /// Set once the registry lists this handle; an open that failed half-way
    /// was never listed and must not unlist another.
    private let isRegistered = Atomic<Bool>(false)

    /// Creates and opens the handle; closes it again if any step fails.
    init(path: String, fileID: FileID, maxDatabases: Int, options: Environment.Options, id: Int) throws(LMDBError) {
        var env: OpaquePointer?
        try check(mdb_env_create(&env), "mdb_env_create")
        guard let env else { throw LMDBError(code: ENOMEM, context: "mdb_env_create") }
        do {
            try check(mdb_env_set_maxdbs(env, MDB_dbi(max(maxDatabases, 1))), "mdb_env_set_maxdbs")
            try check(mdb_env_set_maxreaders(env, UInt32(options.maxReaders)), "mdb_env_set_maxreaders")
            try check(mdb_env_set_mapsize(env, options.mapSize), "mdb_env_set_mapsize")
            // Never MDB_WRITEMAP: it turns a full disk into SIGBUS.
            var flags = UInt32(MDB_NOTLS) | options.durability.flags
            if options.readOnly { flags |= UInt32(MDB_RDONLY) }
            try check(mdb_env_open(env, path, flags, mode_t(options.fileMode)), "mdb_env_open '\(path)'")
        } catch {
            mdb_env_close(env)
            throw error
        }
        self.pointer = env
        self.path = path
        self.fileID = fileID
        self.options = options
        self.id = id
        self.maxKeySize = Int(mdb_env_get_maxkeysize(env))
        self.forkGeneration = ForkGuard.currentGeneration()
        var readers: UInt32 = 0
        mdb_env_get_maxreaders(env, &readers)
        self.idleReads = ReadTransactionPool(capacity: min(options.idleReadTransactions, Int(readers) / 4))
    }

    deinit {
        if !isForked {
            // No read is live: every read holds a reference to the handle.
            for transaction in idleReads.drain() { mdb_txn_abort(transaction) }
            mdb_env_close(pointer)
        }
        if isRegistered.load(ordering: .acquiring) { EnvironmentRegistry.didClose(fileID) }
    }

    /// Called by the registry, under its lock, once it lists this handle.
    func markRegistered() { isRegistered.store(true, ordering: .releasing) }

    /// True in a process forked from the one that opened the handle.
    var isForked: Bool { ForkGuard.isForked(since: forkGeneration) }

    /// Throws when this process is a fork of the one that opened the handle.
    @inline(__always)
    func ensureNotForked() throws(LMDBError) {
        if isForked {
            throw LMDBError(code: LMDBError.forkedProcess.code, context: path)
        }
    }

    /// `mdb_reader_check`: frees the slots of processes that died inside a
    /// read transaction, and returns how many it freed.
    package func clearStaleReaders() throws(LMDBError) -> Int {
        var dead: Int32 = 0
        try check(mdb_reader_check(pointer, &dead), "mdb_reader_check")
        return Int(dead)
    }

    /// `mdb_env_info`.
    func info() -> MDB_envinfo {
        var info = MDB_envinfo()
        gate.withShared { _ = mdb_env_info(pointer, &info) }
        return info
    }

    /// Doubles the map, up to `maxMapSize`, while no transaction is live.
    ///
    /// - Precondition: called on the writer thread with no transaction open.
    func growMap() throws(LMDBError) {
        try gate.withExclusive { () throws(LMDBError) in
            var info = MDB_envinfo()
            _ = mdb_env_info(pointer, &info)
            let current = info.me_mapsize
            guard current < options.maxMapSize else {
                throw LMDBError(code: MDB_MAP_FULL, context: "map of \(current) bytes is at maxMapSize")
            }
            let grown = min(current * 2, options.maxMapSize)
            try check(mdb_env_set_mapsize(pointer, grown), "mdb_env_set_mapsize(\(grown))")
        }
    }

    /// Adopts the larger map another process committed (`MDB_MAP_RESIZED`).
    ///
    /// - Precondition: the calling thread holds no transaction of this
    ///   environment.
    func adoptResizedMap() throws(LMDBError) {
        try gate.withExclusive { () throws(LMDBError) in
            try check(mdb_env_set_mapsize(pointer, 0), "mdb_env_set_mapsize(0)")
        }
    }

}
