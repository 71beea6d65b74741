internal import CLMDB
import Glibc
import SharePrimitives

/// An error from LMDB or from this wrapper, matched by its code.
///
/// `code` is the C result code: an `MDB_*` constant, an `errno` value, or one
/// of the wrapper's own codes (below `-31000`, outside LMDB's range).
/// Equality and `~=` compare codes only, so callers can write
/// `catch LMDBError.notFound` whatever the context says.
public struct LMDBError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The C result code, or one of the wrapper's codes.
    public let code: Int32
    /// What was being done, for example `mdb_put on 'log'`. Not part of equality.
    public let context: String

    public init(code: Int32, context: String = "") {
        self.code = code
        self.context = context
    }

    /// The error of a failed system call, with its `errno` as the code.
    package init(_ error: SystemError) {
        self.init(code: error.code, context: error.context)
    }

    public static func == (lhs: LMDBError, rhs: LMDBError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Lets `catch LMDBError.mapFull` match any error with that code.
    public static func ~= (pattern: LMDBError, value: any Error) -> Bool {
        (value as? LMDBError)?.code == pattern.code
    }

    // MARK: LMDB's codes

    /// `MDB_KEYEXIST`: the key is already there (`noOverwrite`), or an
    /// `append` key is not greater than the last one.
    public static let keyExists = LMDBError(code: MDB_KEYEXIST)
    /// `MDB_NOTFOUND`.
    public static let notFound = LMDBError(code: MDB_NOTFOUND)
    /// `MDB_CORRUPTED`: a page has the wrong type.
    public static let corrupted = LMDBError(code: MDB_CORRUPTED)
    /// `MDB_PANIC`: a fatal error; the environment must be reopened.
    public static let panic = LMDBError(code: MDB_PANIC)
    /// `MDB_VERSION_MISMATCH`: the files were written by another LMDB version.
    public static let versionMismatch = LMDBError(code: MDB_VERSION_MISMATCH)
    /// `MDB_INVALID`: the file is not an LMDB environment.
    public static let invalid = LMDBError(code: MDB_INVALID)
    /// `MDB_MAP_FULL`: the map is full and could not grow within `maxMapSize`.
    public static let mapFull = LMDBError(code: MDB_MAP_FULL)
    /// `MDB_DBS_FULL`: more named databases than `maxdbs`.
    public static let databasesFull = LMDBError(code: MDB_DBS_FULL)
    /// `MDB_READERS_FULL`: every reader slot is taken by a live transaction.
    public static let readersFull = LMDBError(code: MDB_READERS_FULL)
    /// `MDB_TXN_FULL`: one transaction dirtied too many pages.
    public static let transactionFull = LMDBError(code: MDB_TXN_FULL)
    /// `MDB_MAP_RESIZED`: another process grew the map past this one's.
    public static let mapResized = LMDBError(code: MDB_MAP_RESIZED)
    /// `MDB_INCOMPATIBLE`: the database exists with other flags.
    public static let incompatible = LMDBError(code: MDB_INCOMPATIBLE)
    /// `MDB_BAD_TXN`: the transaction failed earlier and can only be aborted.
    public static let badTransaction = LMDBError(code: MDB_BAD_TXN)
    /// `MDB_BAD_VALSIZE`: a key or value of a size LMDB does not support.
    public static let badValueSize = LMDBError(code: MDB_BAD_VALSIZE)

    // MARK: The wrapper's codes

    /// A key longer than `mdb_env_get_maxkeysize`, or empty. Nothing was written.
    public static let badKeySize = LMDBError(code: -31001)
    /// A write was started on a thread that is already inside a transaction of
    /// this environment, where it would deadlock.
    public static let nestedWrite = LMDBError(code: -31002)
    /// The environment was inherited through `fork()`; a child must open its own.
    public static let forkedProcess = LMDBError(code: -31003)
    /// The directory is already open in this process with another configuration.
    public static let alreadyOpen = LMDBError(code: -31004)
    /// The environment was opened read-only.
    public static let readOnly = LMDBError(code: -31005)
    /// A `Database` handle used with an environment that did not open it.
    public static let foreignDatabase = LMDBError(code: -31006)
    /// A database name that was not declared when the environment was opened.
    public static let unknownDatabase = LMDBError(code: -31007)
    /// The environment was closed (`Environment.close()`); nothing was
    /// read or written. `context` is the environment's path.
    public static let closed = LMDBError(code: -31008)

    /// What went wrong, in which operation, and what to do about it.
    public var description: String {
        var text = context.isEmpty ? "" : "\(context): "
        text += summary
        if let advice { text += "; \(advice)" }
        return text
    }

    private var summary: String {
        switch self {
        case .badKeySize: return "key size is outside 1...maxKeySize"
        case .nestedWrite: return "a write transaction was started inside another transaction on the same thread"
        case .forkedProcess: return "this environment was inherited through fork()"
        case .alreadyOpen: return "the directory is already open in this process with another configuration"
        case .readOnly: return "the environment was opened read-only"
        case .foreignDatabase: return "the database handle belongs to another environment"
        case .unknownDatabase: return "no such database was declared at open"
        case .closed: return "the environment was closed"
        default: return String(cString: mdb_strerror(code))
        }
    }

    private var advice: String? {
        switch self {
        case .badKeySize: return "keys must be 1 to 511 bytes; store large data as values"
        case .nestedWrite: return "use the transaction you already have, or write after the outer closure returns"
        case .forkedProcess: return "open the environment again in the child process"
        case .alreadyOpen: return "reuse the open Environment, or open it with the same databases and options"
        case .readOnly: return "open the environment without readOnly to write"
        case .unknownDatabase: return "declare every database in Environment.open(databases:)"
        case .closed: return "nothing was read or written; open the environment again to use it"
        case .mapFull: return "raise Options.maxMapSize or free disk space"
        case .readersFull: return "raise Options.maxReaders or bound concurrent reads"
        case .transactionFull: return "write in smaller batches"
        case .panic, .corrupted: return "close the environment and check the files with mdb_stat"
        case .invalid: return "the path does not hold an LMDB environment"
        default:
            switch code {
            case ENOSPC: return "free disk space; nothing after the last commit was written"
            // LMDB reports a write cut short, as a full disk cuts it, as EIO.
            case EIO: return "the disk may be full or failing; free disk space or check the disk; nothing after the last commit was written"
            case ENOENT: return "check the path, or open without readOnly to create it"
            case EACCES: return "check the directory's permissions"
            default: return nil
            }
        }
    }
}

/// Turns an LMDB return code into a thrown `LMDBError`.
///
/// - Parameter context: evaluated only on failure.
@inline(__always)
package func check(_ code: Int32, _ context: @autoclosure () -> String) throws(LMDBError) {
    if code != MDB_SUCCESS { throw LMDBError(code: code, context: context()) }
}
