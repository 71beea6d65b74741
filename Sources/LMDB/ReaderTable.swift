internal import CLMDB

/// The reader table, as `mdb_reader_list` prints it, reduced to what
/// `Environment.scrub` needs: the oldest snapshot a live reader holds.
///
/// `mdb_reader_list` (liblmdb 0.9.24 to 0.9.36) hands its callback one line at a time:
/// - `(no reader locks)` when the environment has no lock file
///   (`MDB_NOLOCK`): readers cannot be known, so scrub refuses;
/// - `(no active readers)` when no slot is taken;
/// - otherwise a header, `    pid     thread     txnid`, then one line per
///   taken slot, `printf("%10d %zx %zu\n", pid, thread, txnid)`, with `-` in
///   place of the txnid while the slot holds no snapshot (a reader between
///   transactions, or one that is claiming the slot).
///
/// Every line must be one of these; anything else is refused with
/// `LMDBError.incompatible` before scrub writes anything. A slot shown `-`
/// whose reader then starts a snapshot gets the newest committed one, which
/// the scrub, holding the write lock, is not changing.
package struct ReaderTable {
    /// The smallest txnid any live reader's snapshot has, or nil when no
    /// reader holds a snapshot.
    package let oldestSnapshot: UInt64?

    /// Parses the text `mdb_reader_list` printed.
    init(listing: String, context: String) throws(LMDBError) {
        var oldest: UInt64?
        for line in listing.split(separator: "\n") {
            if line == "(no active readers)" { continue }
            if line == "(no reader locks)" {
                throw LMDBError(
                    code: MDB_INCOMPATIBLE,
                    context: "\(context): the environment has no reader table (MDB_NOLOCK), so live snapshots are unknown")
            }
            let fields = line.split(separator: " ")
            if fields == ["pid", "thread", "txnid"] { continue }
            guard fields.count == 3, Int32(fields[0]) != nil, UInt64(fields[1], radix: 16) != nil else {
                throw Self.unexpected(line, context)
            }
            if fields[2] == "-" { continue }
            guard let snapshot = UInt64(fields[2]) else { throw Self.unexpected(line, context) }
            oldest = min(oldest ?? snapshot, snapshot)
        }
        oldestSnapshot = oldest
    }

    /// Lists the reader table of `environment` with `mdb_reader_list`.
    package static func read(_ environment: OpaquePointer, context: String) throws(LMDBError) -> ReaderTable {
        var listing = ""
        let rc = withUnsafeMutablePointer(to: &listing) { listing in
            mdb_reader_list(environment, { line, listing in
                guard let line, let listing else { return -1 }
                listing.assumingMemoryBound(to: String.self).pointee += String(cString: line)
                return 0
            }, listing)
        }
        guard rc >= 0 else { throw LMDBError(code: MDB_INCOMPATIBLE, context: "\(context): mdb_reader_list failed") }
        return try ReaderTable(listing: listing, context: context)
    }

    private static func unexpected(_ line: Substring, _ context: String) -> LMDBError {
        LMDBError(code: MDB_INCOMPATIBLE, context: "\(context): unexpected line from mdb_reader_list: '\(line)'")
    }
}
