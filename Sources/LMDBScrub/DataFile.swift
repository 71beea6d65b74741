internal import CLMDB
import Glibc
import LMDB
import SharePrimitives

/// `data.mdb` opened a second time, read-write, for `Environment.scrub`: it
/// reads pages with `pread` and overwrites unused bytes with `pwrite`.
///
/// Its own descriptor (`OwnedDescriptor`), opened `O_RDWR | O_CLOEXEC` and
/// closed when the value goes. Closing it drops no lock of LMDB's, which takes POSIX locks on
/// `lock.mdb` only, nor the wrapper's `flock` on its own descriptor of
/// `data.mdb`. LMDB maps `data.mdb` `MAP_SHARED` (writable, `MDB_WRITEMAP`)
/// and writes into the map, so on Linux the map and these writes go through
/// the one page cache.
struct DataFile: ~Copyable {
    let path: String
    private let file: OwnedDescriptor

    init(path: String) throws(LMDBError) {
        do { file = try OwnedDescriptor(opening: path, flags: O_RDWR) } catch { throw LMDBError(code: error.code, context: error.context + " for scrub") }
        self.path = path
    }

    /// The file's size in bytes.
    func size() throws(LMDBError) -> Int {
        do { return try file.size() } catch { throw LMDBError(error) }
    }

    /// True when `other` (LMDB's own descriptor) refers to this same file.
    func isSameFile(as other: Int32) throws(LMDBError) -> Bool {
        let mine: stat
        do { mine = try file.status() } catch { throw LMDBError(error) }
        var theirs = stat()
        guard fstat(other, &theirs) == 0 else { throw LMDBError(code: errno, context: "fstat LMDB's descriptor of '\(path)'") }
        return mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino
    }

    /// Reads `buffer.count` bytes at `offset`, fewer only at the end of the
    /// file, and returns how many it read.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(LMDBError) -> Int {
        var done = 0
        while done < buffer.count {
            let count = pread(file.raw, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if count < 0 {
                if errno == EINTR { continue }
                throw LMDBError(code: errno, context: "pread '\(path)' at \(offset + done)")
            }
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// Reads exactly `buffer.count` bytes at `offset`.
    ///
    /// - Throws: `LMDBError.corrupted` when the file ends first: the caller
    ///   was led there by a page that LMDB says exists.
    func readFully(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(LMDBError) {
        let count = try read(into: buffer, at: offset)
        guard count == buffer.count else {
            throw LMDBError(
                code: MDB_CORRUPTED,
                context: "'\(path)' ends at \(offset + count), inside a page in use (\(offset)..<\(offset + buffer.count))")
        }
    }

    /// The first stretch of the file at or after `offset` that the file
    /// system stores as data (`SEEK_DATA`, then `SEEK_HOLE`); nil when only
    /// a hole, which reads as zeros, follows. A file system without holes
    /// reports the whole rest of the file.
    func data(from offset: Int) throws(LMDBError) -> Range<Int>? {
        // Linux's values (every architecture); Glibc exports them only
        // with _GNU_SOURCE.
        let seekData: Int32 = 3, seekHole: Int32 = 4
        let start = lseek(file.raw, off_t(offset), seekData)
        if start < 0 {
            if errno == ENXIO { return nil }
            throw LMDBError(code: errno, context: "lseek(SEEK_DATA) '\(path)' at \(offset)")
        }
        let end = lseek(file.raw, start, seekHole)
        guard end >= 0 else { throw LMDBError(code: errno, context: "lseek(SEEK_HOLE) '\(path)' at \(start)") }
        return Int(start)..<Int(end)
    }

    /// Lends `body` the bytes of `range` of the file, mapped read-only with
    /// readahead off, and unmaps them afterwards.
    ///
    /// For the never-written tail of the file: `pread` would read ahead, and
    /// pages read ahead into the page cache count as data for `data(from:)`,
    /// so the next stretch would be read too, and so on to the end of the
    /// file. A fault in a mapping marked random reads its page only.
    ///
    /// - Precondition: `range` lies inside the file, which nobody truncates
    ///   meanwhile (scrub runs in a write transaction, which holds the
    ///   wrapper's map lock).
    func withMappedBytes<R>(
        _ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws(LMDBError) -> R
    ) throws(LMDBError) -> R {
        // mmap maps from a multiple of the OS page size, which may be larger
        // than LMDB's.
        let lead = range.lowerBound % Int(sysconf(Int32(_SC_PAGESIZE)))
        let length = lead + range.count
        guard let start = mmap(nil, length, PROT_READ, MAP_SHARED, file.raw, off_t(range.lowerBound - lead)),
            start != MAP_FAILED
        else {
            throw LMDBError(code: errno, context: "mmap '\(path)' at \(range.lowerBound)")
        }
        defer { munmap(start, length) }
        _ = posix_madvise(start, length, POSIX_MADV_RANDOM)
        return try body(UnsafeRawBufferPointer(start: start + lead, count: range.count))
    }

    /// Writes `count` zero bytes at `offset`, from `zeros` (all zero, not
    /// empty) as many times as needed.
    func writeZeros(count: Int, at offset: Int, from zeros: UnsafeRawBufferPointer) throws(LMDBError) {
        var done = 0
        while done < count {
            let written = pwrite(file.raw, zeros.baseAddress!, min(zeros.count, count - done), off_t(offset + done))
            if written < 0 {
                if errno == EINTR { continue }
                throw LMDBError(code: errno, context: "pwrite '\(path)' at \(offset + done)")
            }
            done += written
        }
    }

    /// `fdatasync`: the file's data, written through any descriptor, is on
    /// the disk when it returns.
    func synchronize() throws(LMDBError) {
        while fdatasync(file.raw) != 0 {
            if errno != EINTR { throw LMDBError(code: errno, context: "fdatasync '\(path)'") }
        }
    }
}
