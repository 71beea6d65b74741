internal import CLMDB
import Glibc
import Synchronization

/// Owns one `MDB_env` and the rules for using it safely; shared by the
/// public `Environment` and its writer thread.
///
/// It closes the handle in `close()` (`Environment.close()`), or else when
/// the last owner lets go, aborting its idle read transactions first,
/// unless the process was forked since the open: a child leaves the
/// inherited handle alone (it would munmap and close descriptors the
/// parent's state describes, and aborting the parent's idle transactions
/// would free the parent's reader slots in the shared lock file) and leaks
/// it instead.
///
/// Its life has three stages (`Stage`): open; closing, from the start of
/// `Environment.close()`, when new reads and writes are refused with
/// `LMDBError.closed` while the ones begun finish; and closed, once
/// `mdb_env_close` has run, after which `pointer` is never used again.
@usableFromInline
package final class EnvironmentHandle: @unchecked Sendable {
    // @unchecked Sendable: `pointer` is an MDB_env, which LMDB allows to be
    // used from any thread with MDB_NOTLS; map resizing, the one operation
    // that is not thread-safe, runs only under `gate` held exclusive.
    // `idleReads` is thread-safe itself. `stage` is atomic; it becomes
    // `closed` only under `gate` held exclusive, so a thread that holds the
    // gate shared and saw it `open` or `closing` may use `pointer` until
    // it lets go. `infoAtClose` is written once, under the gate exclusive,
    // before `stage` becomes `closed`, and read only after that, under the
    // gate shared. Every other stored property is an immutable value or
    // Sendable.
    package let pointer: OpaquePointer
    let gate = ResizeGate()
    /// Reset read transactions waiting to be renewed.
    let idleReads: ReadTransactionPool
    /// `data.mdb`'s cross-process resize lock and preallocation; nil for a
    /// read-only environment, which maps the file read-only and never
    /// truncates it.
    private let mapFile: MapFile?
    package let path: String
    let options: Environment.Options
    let fileID: FileID
    /// Distinguishes this environment's `Database` handles from others'.
    let id: Int
    /// `mdb_env_get_maxkeysize`: 511 with Debian's build.
    let maxKeySize: Int
    /// `mdb_env_get_flags`, read at open: they never change after it.
    let flags: UInt32
    /// A `Stage`'s raw value.
    private let stage = Atomic<UInt8>(Stage.open.rawValue)
    /// `mdb_env_info` as it was when the handle closed, for `info()` after.
    private var infoAtClose = MDB_envinfo()
    private let forkGeneration: Int
    /// Set once the registry lists this handle; an open that failed half-way
    /// was never listed and must not unlist another.
    private let isRegistered = Atomic<Bool>(false)

    /// Creates and opens the handle; closes it again if any step fails.
    ///
    /// A read-write environment is opened with `MDB_WRITEMAP` (write
    /// transactions write into the map, and liblmdb keeps no page buffers of
    /// its own that could carry deleted bytes into the file; see
    /// `Environment.scrub`), under `MapFile`'s exclusive lock, with a map no
    /// smaller than the file: liblmdb truncates the file to the map's size,
    /// and another process may map all of it.
    ///
    /// Every environment is opened with `MDB_NORDAHEAD` (liblmdb advises
    /// the map `MADV_RANDOM`). With readahead, a fault on the map reads a
    /// large folio ahead (up to megabytes on kernels with large folios for
    /// ext4), and a write to one 4 KiB page of it then dirties, allocates
    /// and writes back the whole folio: B-tree pages scattered over a large
    /// file made each commit write back far more than it changed, and the
    /// cost grew with the file. Ingesting 100,000 events of the 9:1 photo
    /// mix in 1 MiB batches ran 8x faster without it (BENCHMARKS.md, sync).
    ///
    /// Right after `mdb_env_open`, every descriptor of the environment's
    /// files is made close-on-exec, so no program this process starts
    /// inherits the store (`CloseOnExec`).
    init(path: String, fileID: FileID, maxDatabases: Int, options: Environment.Options, id: Int) throws(LMDBError) {
        let mapFile = options.readOnly ? nil : try MapFile(directory: path, mode: mode_t(options.fileMode))
        var env: OpaquePointer?
        try check(mdb_env_create(&env), "mdb_env_create")
        guard let env else { throw LMDBError(code: ENOMEM, context: "mdb_env_create") }
        do {
            try check(mdb_env_set_maxdbs(env, MDB_dbi(max(maxDatabases, 1))), "mdb_env_set_maxdbs")
            try check(mdb_env_set_maxreaders(env, UInt32(options.maxReaders)), "mdb_env_set_maxreaders")
            var flags = UInt32(MDB_NOTLS) | UInt32(MDB_NORDAHEAD) | options.durability.flags
            if let mapFile {
                flags |= UInt32(MDB_WRITEMAP)
                try mapFile.withExclusive { () throws(LMDBError) in
                    try check(mdb_env_set_mapsize(env, max(options.mapSize, try mapFile.size())), "mdb_env_set_mapsize")
                    try check(mdb_env_open(env, path, flags, mode_t(options.fileMode)), "mdb_env_open '\(path)'")
                }
            } else {
                flags |= UInt32(MDB_RDONLY)
                try check(mdb_env_set_mapsize(env, options.mapSize), "mdb_env_set_mapsize")
                try check(mdb_env_open(env, path, flags, mode_t(options.fileMode)), "mdb_env_open '\(path)'")
            }
            try CloseOnExec.apply(to: env, directory: path)
        } catch {
            mdb_env_close(env)
            throw error
        }
        self.pointer = env
        self.mapFile = mapFile
        self.path = path
        self.fileID = fileID
        self.options = options
        self.id = id
        self.maxKeySize = Int(mdb_env_get_maxkeysize(env))
        var openFlags: UInt32 = 0
        mdb_env_get_flags(env, &openFlags)
        self.flags = openFlags
        self.forkGeneration = ForkGuard.currentGeneration()
        var readers: UInt32 = 0
        mdb_env_get_maxreaders(env, &readers)
        self.idleReads = ReadTransactionPool(capacity: min(options.idleReadTransactions, Int(readers) / 4))
    }

    deinit {
        // The fallback when nobody called `close()`.
        if !isForked, stage.load(ordering: .acquiring) != Stage.closed.rawValue {
            // No read is live: every read holds a reference to the handle.
            closeHandle()
        }
        unlist()
    }

    /// The stages of the handle's life.
    private enum Stage: UInt8 {
        case open, closing, closed
    }

    /// Called by the registry, under its lock, once it lists this handle.
    func markRegistered() { isRegistered.store(true, ordering: .releasing) }

    /// True from the start of `Environment.close()` on.
    var isClosing: Bool { stage.load(ordering: .acquiring) != Stage.open.rawValue }

    /// Throws `LMDBError.closed` from the start of `Environment.close()` on.
    @inline(__always)
    func ensureOpen() throws(LMDBError) {
        if isClosing { throw LMDBError(code: LMDBError.closed.code, context: path) }
    }

    /// Refuses every read and write begun from now on (`ensureOpen`);
    /// those begun go on. The first step of `Environment.close()`.
    func refuseNewWork() {
        // Only an open handle moves on to closing; a closed one stays.
        _ = stage.compareExchange(expected: Stage.open.rawValue, desired: Stage.closing.rawValue, ordering: .acquiringAndReleasing)
    }

    /// Closes the handle once every live read transaction in this process
    /// has ended (it takes the gate exclusive, which waits for them; new
    /// ones were refused by `refuseNewWork`), aborting the idle ones first,
    /// then unlists it from the registry. The last step of
    /// `Environment.close()`; idempotent.
    ///
    /// - Precondition: the writer thread has exited, and the calling
    ///   thread holds no transaction of this environment.
    func close() {
        refuseNewWork()
        // fork() copied the gate as the parent's threads held it: a child
        // leaves the handle alone and only unlists it.
        if !isForked {
            gate.withExclusive {
                guard stage.load(ordering: .acquiring) != Stage.closed.rawValue else { return }
                _ = mdb_env_info(pointer, &infoAtClose)
                closeHandle()
                mapFile?.close()
                stage.store(Stage.closed.rawValue, ordering: .releasing)
            }
        }
        unlist()
    }

    /// Aborts the idle read transactions, then `mdb_env_close`.
    private func closeHandle() {
        for transaction in idleReads.drain() { mdb_txn_abort(transaction) }
        mdb_env_close(pointer)
    }

    /// Tells the registry this handle has closed, once: an open of the
    /// directory after that makes a new handle.
    private func unlist() {
        if isRegistered.exchange(false, ordering: .acquiringAndReleasing) { EnvironmentRegistry.didClose(fileID) }
    }

    /// Runs `body`, which uses `pointer`, with the gate held shared.
    ///
    /// - Throws: `LMDBError.closed` from the start of `Environment.close()`
    ///   on, without running `body`.
    func whileOpen<R>(_ body: () throws(LMDBError) -> R) throws(LMDBError) -> R {
        try gate.withShared { () throws(LMDBError) -> R in
            try ensureOpen()
            return try body()
        }
    }

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

    /// `mdb_env_info`; after the handle closed, what it said then.
    func info() -> MDB_envinfo {
        var info = MDB_envinfo()
        gate.withShared {
            if stage.load(ordering: .acquiring) == Stage.closed.rawValue {
                info = infoAtClose
            } else {
                _ = mdb_env_info(pointer, &info)
            }
        }
        return info
    }

    /// Doubles the map, up to `maxMapSize`, while no transaction is live in
    /// this process and no write transaction in any; never to less than the
    /// file, which another process's map may span.
    ///
    /// The new part of the map gets its disk blocks in the next write
    /// transaction (`reserveMap`), before anything is written there.
    ///
    /// - Precondition: called on the writer thread with no transaction open.
    func growMap() throws(LMDBError) {
        try withResizeExclusion { () throws(LMDBError) in
            let current = mapSize
            guard current < options.maxMapSize else {
                throw LMDBError(code: MDB_MAP_FULL, context: "map of \(current) bytes is at maxMapSize")
            }
            let grown = max(min(current * 2, options.maxMapSize), try mapFile?.size() ?? 0)
            try check(mdb_env_set_mapsize(pointer, grown), "mdb_env_set_mapsize(\(grown))")
        }
    }

    /// Grows the map, by doublings up to `maxMapSize`, until at least
    /// `headroom` bytes lie past what committed snapshots use
    /// (`mapExtent`), when the disk has room for all of the growth; does
    /// nothing when they already lie free.
    ///
    /// A growth ahead of need must not take a nearly full disk's last
    /// bytes, which only a write that fills the map may claim (and shrink
    /// the map to, `reserveMap`): so it grows all the way or not at all.
    ///
    /// - Returns: false, with nothing changed, when the disk has no room
    ///   for the growth.
    /// - Precondition: the calling thread holds no transaction of this
    ///   environment.
    func growMap(leaving headroom: Int) throws(LMDBError) -> Bool {
        try withResizeExclusion { () throws(LMDBError) -> Bool in
            let extent = mapExtent()
            var grown = extent.size
            while grown - extent.used < headroom, grown < options.maxMapSize { grown = min(grown * 2, options.maxMapSize) }
            guard grown > extent.size else { return true }
            if let mapFile {
                let file = try mapFile.size()
                guard grown - file <= mapFile.freeDiskBytes() ?? 0 else { return false }
                grown = max(grown, file)
            }
            try check(mdb_env_set_mapsize(pointer, grown), "mdb_env_set_mapsize(\(grown))")
            return true
        }
    }

    /// The map's size and the bytes committed snapshots use of it: up to
    /// and including the last page any of them allocated (`me_last_pgno`).
    func mapExtent() -> (size: Int, used: Int) {
        var info = MDB_envinfo()
        _ = mdb_env_info(pointer, &info)
        var stat = MDB_stat()
        _ = mdb_env_stat(pointer, &stat)
        return (info.me_mapsize, (info.me_last_pgno + 1) * Int(stat.ms_psize))
    }

    /// Adopts the larger map another process committed (`MDB_MAP_RESIZED`).
    ///
    /// A read-write environment takes the file's size, which is the largest
    /// map of the processes that have it open (liblmdb's own choice, the
    /// size the last commit recorded, could cut the file under a process
    /// that has grown its map and not committed yet). liblmdb raises it to
    /// the committed snapshot's extent if needed.
    ///
    /// - Precondition: the calling thread holds no transaction of this
    ///   environment.
    func adoptResizedMap() throws(LMDBError) {
        try withResizeExclusion { () throws(LMDBError) in
            guard let mapFile else {
                try check(mdb_env_set_mapsize(pointer, 0), "mdb_env_set_mapsize(0)")
                return
            }
            let adopted = max(mapSize, try mapFile.size())
            try check(mdb_env_set_mapsize(pointer, adopted), "mdb_env_set_mapsize(\(adopted))")
        }
    }

    /// The map's size in bytes (`me_mapsize`).
    private var mapSize: Int {
        var info = MDB_envinfo()
        _ = mdb_env_info(pointer, &info)
        return info.me_mapsize
    }

    /// Runs `body` with no transaction live in this process and, for a
    /// read-write environment, no write transaction or resize in any.
    ///
    /// - Throws: `LMDBError.closed` once the handle has closed.
    private func withResizeExclusion<R>(_ body: () throws(LMDBError) -> R) throws(LMDBError) -> R {
        try gate.withExclusive { () throws(LMDBError) -> R in
            if stage.load(ordering: .acquiring) == Stage.closed.rawValue {
                throw LMDBError(code: LMDBError.closed.code, context: path)
            }
            guard let mapFile else { return try body() }
            return try mapFile.withExclusive(body)
        }
    }

    /// Runs `body`, which begins and ends a write transaction, with the gate
    /// held shared and, for a read-write environment, `MapFile`'s lock
    /// shared: no process resizes its map, and so cuts the file, meanwhile.
    func withWriteAccess<R>(_ body: () throws(LMDBError) -> R) throws(LMDBError) -> R {
        try gate.withShared { () throws(LMDBError) -> R in
            guard let mapFile else { return try body() }
            return try mapFile.withShared(body)
        }
    }

    /// Gives every byte of the map a disk block, so that a write into the
    /// map cannot meet a full disk (which would be `SIGBUS`).
    ///
    /// - Precondition: inside `withWriteAccess`, in a write transaction
    ///   that has not changed anything yet.
    /// - Returns: nil when the map has its blocks; otherwise the smaller
    ///   size the disk had room for: abort, `shrinkMap(to:)` it, and try
    ///   again.
    /// - Throws: `ENOSPC` when the disk has no room for more of the map;
    ///   the caller aborts, and has written nothing.
    func reserveMap() throws(LMDBError) -> Int? {
        try mapFile?.reserve(mapSize)
    }

    /// Shrinks the map, and so the file, to `size` bytes, which have disk
    /// blocks: what `reserveMap` found room for on a full disk. liblmdb
    /// keeps it no smaller than the committed snapshot. Another process
    /// with a larger map finds the file shorter than its map at its next
    /// write, and allocates or shrinks in turn.
    ///
    /// - Precondition: called with no transaction of this environment open
    ///   on the calling thread.
    func shrinkMap(to size: Int) throws(LMDBError) {
        try withResizeExclusion { () throws(LMDBError) in
            try check(mdb_env_set_mapsize(pointer, size), "mdb_env_set_mapsize(\(size))")
        }
    }

}
