internal import CLMDB
import Foundation
import SharePrimitives

/// An open LMDB environment: a directory holding `data.mdb` and `lock.mdb`,
/// with a fixed set of named databases.
///
/// - One per directory per process: opening the same directory again returns
///   this instance, or throws `LMDBError.alreadyOpen` if the configuration
///   differs (see `EnvironmentRegistry` for why).
/// - Always opened with `MDB_NOTLS` (read transactions are not tied to
///   threads, so Swift tasks may use them), and read-write with
///   `MDB_WRITEMAP`, its file as large as the map and fully allocated (see
///   `Options.mapSize`). Durable by default: a write returns after its
///   commit reached the disk.
/// - Transactions exist only inside `read` and `write` closures.
/// - Closed by `close()`, which waits for the writes queued and the reads
///   live, after which every use throws `LMDBError.closed`; or else, as a
///   fallback, when the last reference goes (`Environment+Close.swift`).
///   Never usable in a forked child.
public final class Environment: Sendable {
    /// The directory, as given to `open`.
    public let path: String
    @usableFromInline package let handle: EnvironmentHandle
    let writer: Writer
    /// The databases declared at open, in name order; a handful, looked up
    /// by name in order (no dictionary to instantiate on a cold start).
    private let databases: [Database]
    /// Where `close()` is: open, closing (one caller is closing it) or
    /// closed; a second caller waits on it for the first to finish.
    let lifecycle = LockedCondition(Lifecycle.open)

    /// The stages `close()` takes the environment through.
    enum Lifecycle {
        case open, closing, closed
    }

    /// Opens (creating if needed) the environment in directory `path`, with
    /// the named databases `databases`, all opened here, once.
    ///
    /// Stale reader slots left by dead processes are cleared on open.
    ///
    /// While the directory's environment is closing (`close()`, or its last
    /// reference going), the open waits until it has closed, then opens it
    /// anew.
    ///
    /// - Throws: `LMDBError` with the failing call and path; the handle is
    ///   closed again whatever step failed.
    public static func open(at path: String, databases: [String], options: Options = Options()) throws -> Environment {
        if !options.readOnly { try createDirectory(path) }
        let fileID = try FileID(path: path)
        // Sorted and each once: how the registry compares them.
        let names = databases.sorted().reduce(into: [String]()) { names, name in
            if names.last != name { names.append(name) }
        }
        let configuration = EnvironmentRegistry.Configuration(databases: names, options: options)
        return try EnvironmentRegistry.environment(for: fileID, configuration: configuration) { id in
            let handle = try EnvironmentHandle(
                // One slot spare, for `deleteDatabase(named:)`.
                path: path, fileID: fileID, maxDatabases: databases.count + 1, options: options, id: id)
            _ = try handle.clearStaleReaders()
            return try Environment(path: path, handle: handle, databaseNames: names)
        }
    }

    /// - Parameter databaseNames: sorted, each once.
    private init(path: String, handle: EnvironmentHandle, databaseNames: [String]) throws {
        self.path = path
        self.handle = handle
        self.writer = Writer(environment: handle)
        self.databases = try Environment.openDatabases(databaseNames, in: handle)
    }

    deinit {
        // The fallback when nobody called `close()`: the handle closes when
        // the writer thread lets go of it. fork() copies no writer thread,
        // so a child must not wait for one.
        if !handle.isForked, !handle.isClosing { writer.shutdown() }
    }

    /// Opens every named database in one transaction; the handles then stay
    /// valid until the environment closes.
    ///
    /// On a disk too full for the map's blocks (`ENOSPC`), databases that
    /// exist are opened in a read-only transaction, which needs no space, so
    /// a full disk still lets a store be read; a missing one fails the open
    /// with that `ENOSPC`.
    private static func openDatabases(_ names: [String], in handle: EnvironmentHandle) throws -> [Database] {
        if handle.options.readOnly { return try openDatabases(names, in: handle, writing: false) }
        do {
            return try openDatabases(names, in: handle, writing: true)
        } catch let full where full.code == ENOSPC {
            do {
                return try openDatabases(names, in: handle, writing: false)
            } catch LMDBError.notFound {
                throw full
            }
        }
    }

    /// Opens `names` in a write transaction that creates the missing ones,
    /// or in a read-only one.
    private static func openDatabases(
        _ names: [String], in handle: EnvironmentHandle, writing: Bool
    ) throws(LMDBError) -> [Database] {
        // Another process grew the map past this one's since mdb_env_open
        // sized it (while this one waited for the write lock): adopt the
        // committed size and begin again. Each retry needs another growth,
        // or another shrink to what a nearly full disk has room for.
        for _ in 0..<8 {
            switch try handle.withWriteAccess({ () throws(LMDBError) in try attemptOpening(names, in: handle, writing: writing) }) {
            case .opened(let databases): return databases
            case .mapResized: try handle.adoptResizedMap()
            case .diskNearlyFull(let fitting): try handle.shrinkMap(to: fitting)
            }
        }
        throw LMDBError(code: MDB_MAP_RESIZED, context: "mdb_txn_begin(open) in '\(handle.path)'")
    }

    private enum Opening {
        case opened([Database])
        case mapResized
        case diskNearlyFull(Int)
    }

    /// One try of `openDatabases`; requires `handle.withWriteAccess`.
    private static func attemptOpening(
        _ names: [String], in handle: EnvironmentHandle, writing: Bool
    ) throws(LMDBError) -> Opening {
        var txn: OpaquePointer?
        let rc = mdb_txn_begin(handle.pointer, nil, writing ? 0 : UInt32(MDB_RDONLY), &txn)
        if rc == MDB_MAP_RESIZED { return .mapResized }
        try check(rc, "mdb_txn_begin(open)")
        var opened: [Database] = []
        opened.reserveCapacity(names.count)
        do throws(LMDBError) {
            if writing, let fitting = try handle.reserveMap() {
                mdb_txn_abort(txn)
                return .diskNearlyFull(fitting)
            }
            for name in names {
                var dbi = MDB_dbi()
                let rc = mdb_dbi_open(txn, name, writing ? UInt32(MDB_CREATE) : 0, &dbi)
                try check(rc, "mdb_dbi_open '\(name)' in '\(handle.path)'")
                opened.append(Database(name: name, dbi: dbi, environmentID: handle.id))
            }
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
        // mdb_txn_commit frees the transaction even when it fails.
        try check(mdb_txn_commit(txn), "mdb_txn_commit(open)")
        return .opened(opened)
    }

    /// The handle of a database declared at open.
    ///
    /// - Throws: `LMDBError.unknownDatabase` for any other name;
    ///   `LMDBError.closed` after `close()`.
    public func database(_ name: String) throws -> Database {
        try handle.ensureOpen()
        guard let database = databases.first(where: { $0.name == name }) else {
            throw LMDBError(code: LMDBError.unknownDatabase.code, context: "'\(name)' in '\(path)'")
        }
        return database
    }

    /// Runs `body` in a read-only snapshot and ends it when `body` returns.
    ///
    /// Reads run on the calling thread, concurrently with each other and with
    /// the writer. Keep `body` short: a live snapshot pins the pages it sees,
    /// so the file grows while it lasts, and it holds a reader slot.
    ///
    /// The transaction is renewed from the environment's idle ones when it
    /// can be, and reset for the next read afterwards
    /// (`Options.idleReadTransactions`).
    ///
    /// - Important: bytes read are valid only inside `body`.
    /// - Throws: `LMDBError.closed` once `close()` has begun, without
    ///   running `body`; a read begun before runs to its end, and `close()`
    ///   waits for it.
    @inlinable
    public func read<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        let lease = try handle.startRead()
        defer { handle.finishRead(lease) }
        return try body(ReadTransaction(lease))
    }

    /// Runs `body` in a write transaction on the writer thread, blocking the
    /// caller until it commits, and returns `body`'s result.
    ///
    /// - Commits when `body` returns and aborts when it throws.
    /// - `body` may run more than once: when the map fills it is aborted, the
    ///   map grows, and it runs again; and when another write of its group
    ///   throws, it runs again without that one. Return what you need rather
    ///   than changing captured state.
    /// - Writes queued together may share one durable commit; each still
    ///   commits or aborts on its own.
    /// - Throws: `LMDBError.nestedWrite` when called inside a transaction of
    ///   this environment on the same thread, instead of deadlocking;
    ///   `LMDBError.closed`, with nothing written, once `close()` has begun.
    ///   A write queued before that commits (or fails on its own) before
    ///   `close()` returns.
    @available(*, noasync, message: "use the async write from async code")
    public func write<R: Sendable>(_ body: @escaping @Sendable (borrowing WriteTransaction) throws -> R) throws -> R {
        let answer = WriteAnswer<R>()
        try submit(WriteRequest(body, deliver: answer.deliver))
        return try answer.wait()
    }

    /// The async form of `write`: suspends instead of blocking a thread.
    /// Once queued, the write commits or fails whole whatever happens to
    /// the calling task; `close()` waits for it.
    public func write<R: Sendable>(_ body: @escaping @Sendable (borrowing WriteTransaction) throws -> R) async throws -> R {
        try precheckWrite()
        return try await withCheckedThrowingContinuation { continuation in
            if !writer.submit(WriteRequest(body) { continuation.resume(with: $0) }) {
                continuation.resume(throwing: LMDBError(code: LMDBError.closed.code, context: path))
            }
        }
    }

    /// Queues `request` on the writer thread.
    ///
    /// - Throws: what `write` throws before it runs anything, including
    ///   `LMDBError.closed`; `request.finish` is then never called.
    package func submit(_ request: WriteRequest) throws {
        try precheckWrite()
        guard writer.submit(request) else { throw LMDBError(code: LMDBError.closed.code, context: path) }
    }

    private func precheckWrite() throws {
        try handle.ensureNotForked()
        try handle.ensureOpen()
        if handle.options.readOnly { throw LMDBError(code: LMDBError.readOnly.code, context: path) }
        if writer.isCurrentThread || handle.gate.isHeldByCurrentThread {
            throw LMDBError(code: LMDBError.nestedWrite.code, context: path)
        }
    }

    /// Frees reader slots held by processes that died (`mdb_reader_check`).
    ///
    /// - Returns: how many slots were freed.
    @discardableResult
    public func clearStaleReaders() throws -> Int {
        try handle.ensureNotForked()
        return try handle.whileOpen { () throws(LMDBError) in try handle.clearStaleReaders() }
    }

    /// The environment's current size and reader use (`mdb_env_info`);
    /// after `close()`, as they were when it closed.
    public var info: EnvironmentInfo {
        EnvironmentInfo(handle.info())
    }

    /// The flags the environment was opened with (`mdb_env_get_flags`,
    /// read at open).
    public var flags: UInt32 { handle.flags }

    /// The largest key LMDB accepts (`mdb_env_get_maxkeysize`).
    public var maxKeySize: Int { handle.maxKeySize }
}

extension Environment {
    /// Writes queued and not yet taken by the writer; for tests.
    var writerQueueLength: Int { writer.queueLength }

    /// Groups the writer held open for more writes (`Options.commitDelay`);
    /// for tests.
    var writerDelays: Int { writer.delays }

    /// Creates `path` and any missing parent, each readable by this user
    /// only (0700), like `mkdir -p`.
    ///
    /// - Throws: `LMDBError` with the `errno` of the `mkdir` that failed
    ///   (a file in the way, no permission), so every failure of `open` is
    ///   an `LMDBError`.
    private static func createDirectory(_ path: String) throws(LMDBError) {
        // The common case, a store that is there, costs one `stat`: no
        // path split, no `mkdir` per component (a clip's cold start).
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { return }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o700) != 0, errno != EEXIST {
                throw LMDBError(code: errno, context: "create directory '\(prefix)'")
            }
            prefix += "/"
        }
        guard stat(path, &status) == 0 else { throw LMDBError(code: errno, context: "stat '\(path)'") }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw LMDBError(code: ENOTDIR, context: "'\(path)' is not a directory") }
    }
}
