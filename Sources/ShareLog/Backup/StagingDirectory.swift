import Foundation
import Glibc
import LMDB
import SharePrimitives

/// The private directory a backup or a restore works in, beside its
/// destination: `.NAME.sharelog-PURPOSE-UUID` in the destination's
/// parent, so that the result is published by one `rename` on the same
/// file system, and the destination never holds half a result.
///
/// The directory is held by an exclusive `flock` on itself for as long as
/// this object lives. A run killed half-way leaves its directory behind,
/// and it may hold cards of ended shares (the first copy of a store is
/// taken before they are wiped), so the next run beside the same
/// destination removes every such directory whose lock it can take: the
/// kernel dropped it when its holder died. A directory whose lock is held
/// belongs to a run in progress and is left alone. (In the moment
/// between a run making its directory and locking it, another run may take
/// it for a leftover; the first then fails, having published nothing.)
final class StagingDirectory {
    /// The staging directory's own path.
    let path: String
    /// Where `publish` moves the result.
    let destination: String
    /// The directory that holds the destination and this one.
    private let parent: String
    /// Directories of earlier runs that died, removed before this one began.
    let leftoversRemoved: Int
    /// The staging directory, opened and locked.
    private let lock: OwnedDescriptor

    /// Makes the staging directory beside `destination` (and the parent
    /// directories it lacks, each 0700), after removing the leftovers of
    /// earlier runs there.
    init(beside destination: String, purpose: String) throws(ShareLogError) {
        let trimmed = destination.count > 1 && destination.hasSuffix("/") ? String(destination.dropLast()) : destination
        // Split by hand: Foundation's `deletingLastPathComponent` traps on
        // some one-letter names.
        let slash = trimmed.lastIndex(of: "/")
        let directory = slash.map { $0 == trimmed.startIndex ? "/" : String(trimmed[..<$0]) } ?? "."
        let prefix = ".\(slash.map { String(trimmed[trimmed.index(after: $0)...]) } ?? trimmed).sharelog-"
        try Self.makeParents(directory)
        leftoversRemoved = Self.removeLeftovers(in: directory, prefix: prefix)
        path = (directory as NSString).appendingPathComponent(prefix + purpose + "-" + UUID().uuidString.lowercased())
        self.destination = trimmed
        parent = directory
        guard mkdir(path, 0o700) == 0 else { throw StoreSidecars.failure("creating \(path)") }
        do {
            lock = try Self.openFile(path, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
        } catch {
            rmdir(path)
            throw error
        }
        while flock(lock.raw, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EINTR else {
                let failure = StoreSidecars.failure("locking \(path)")
                rmdir(path)
                throw failure
            }
        }
    }

    /// Makes the directory `name` in the staging directory (0700) and
    /// returns its path.
    func makeDirectory(_ name: String) throws(ShareLogError) -> String {
        let made = (path as NSString).appendingPathComponent(name)
        guard mkdir(made, 0o700) == 0 else { throw StoreSidecars.failure("creating \(made)") }
        return made
    }

    /// Moves the staging directory's `name` to the destination in one
    /// `rename`, then syncs the destination's parent. The rename replaces
    /// at most an empty directory, which `refuseExisting` allowed or
    /// another process made meanwhile; never a file, or a directory that
    /// holds anything.
    ///
    /// - Throws: `destinationExists` when something is there now.
    func publish(_ name: String) throws(ShareLogError) {
        let source = (path as NSString).appendingPathComponent(name)
        guard rename(source, destination) == 0 else {
            if [EEXIST, ENOTEMPTY, ENOTDIR, EISDIR].contains(errno) { throw .backupRefused(.destinationExists(path: destination)) }
            throw StoreSidecars.failure("renaming \(source) to \(destination)")
        }
        try StoreSidecars.syncDirectory(parent)
    }

    /// Removes the staging directory and what it holds; what was published
    /// is no longer in it. Best effort: a failure leaves a leftover that
    /// the next run beside the destination removes.
    func discard() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Throws `destinationExists` when `destination` exists, except, when
    /// `allowingEmptyDirectory`, as an empty directory.
    static func refuseExisting(_ destination: String, allowingEmptyDirectory: Bool) throws(ShareLogError) {
        var status = stat()
        guard lstat(destination, &status) == 0 else {
            guard errno == ENOENT else { throw StoreSidecars.failure("reading \(destination)") }
            return
        }
        let isEmptyDirectory = status.st_mode & S_IFMT == S_IFDIR
            && ((try? FileManager.default.contentsOfDirectory(atPath: destination).isEmpty) ?? false)
        guard allowingEmptyDirectory, isEmptyDirectory else { throw .backupRefused(.destinationExists(path: destination)) }
    }

    /// Writes `bytes` to the new file `path` (mode 0600) and syncs it.
    static func writeNewFile(_ path: String, bytes: [UInt8]) throws(ShareLogError) {
        let file = try openFile(path, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
        try writeAll(bytes[...], to: file.raw, path: path)
        guard fsync(file.raw) == 0 else { throw StoreSidecars.failure("syncing \(path)") }
    }

    /// Copies the file `source` to the new file `target` (mode 0600), 1 MiB
    /// at a time, and syncs it.
    static func copyFile(from source: String, to target: String) throws(ShareLogError) {
        let input = try openFile(source, flags: O_RDONLY)
        let output = try openFile(target, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
        let from = input.raw
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let read = buffer.withUnsafeMutableBytes { Glibc.read(from, $0.baseAddress, $0.count) }
            if read < 0, errno == EINTR { continue }
            guard read >= 0 else { throw StoreSidecars.failure("reading \(source)") }
            if read == 0 { break }
            try writeAll(buffer[..<read], to: output.raw, path: target)
        }
        guard fsync(output.raw) == 0 else { throw StoreSidecars.failure("syncing \(target)") }
    }

    /// `OwnedDescriptor(opening:flags:mode:)`, failing as the store does.
    private static func openFile(_ path: String, flags: Int32, mode: mode_t = 0) throws(ShareLogError) -> OwnedDescriptor {
        do {
            return try OwnedDescriptor(opening: path, flags: flags, mode: mode)
        } catch {
            throw .storage(LMDBError(error))
        }
    }

    /// Writes all of `bytes` to `descriptor`; a write of nothing is a full
    /// disk.
    private static func writeAll(_ bytes: ArraySlice<UInt8>, to descriptor: Int32, path: String) throws(ShareLogError) {
        var rest = bytes
        while !rest.isEmpty {
            let count = rest.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw StoreSidecars.failure("writing \(path)", written: count == 0 ? 0 : -1) }
            rest = rest.dropFirst(count)
        }
    }

    /// `path` made absolute, its symbolic links resolved as far as it
    /// exists (`realpath` of its longest existing prefix), the rest
    /// appended as given.
    static func resolved(_ path: String) -> String {
        var existing = URL(fileURLWithPath: path).standardizedFileURL.path
        var rest: [String] = []
        while existing.count > 1 {
            if let real = realpath(existing, nil) {
                defer { free(real) }
                existing = String(cString: real)
                break
            }
            let slash = existing.lastIndex(of: "/") ?? existing.startIndex
            rest.insert(String(existing[existing.index(after: slash)...]), at: 0)
            existing = slash == existing.startIndex ? "/" : String(existing[..<slash])
        }
        return ([existing == "/" ? "" : existing] + rest).joined(separator: "/")
    }

    /// Makes `directory` and every parent it lacks, each 0700, as `mkdir -p`.
    private static func makeParents(_ directory: String) throws(ShareLogError) {
        var prefix = directory.hasPrefix("/") ? "/" : ""
        for component in directory.split(separator: "/") {
            prefix += component
            guard mkdir(prefix, 0o700) == 0 || errno == EEXIST else { throw StoreSidecars.failure("creating \(prefix)") }
            prefix += "/"
        }
    }

    /// Removes each directory in `directory` named with `prefix` whose
    /// lock nobody holds, and returns how many it removed.
    private static func removeLeftovers(in directory: String, prefix: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var removed = 0
        for name in names where name.hasPrefix(prefix) {
            let leftover = (directory as NSString).appendingPathComponent(name)
            guard let held = try? OwnedDescriptor(opening: leftover, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW),
                  flock(held.raw, LOCK_EX | LOCK_NB) == 0
            else { continue }
            if (try? FileManager.default.removeItem(atPath: leftover)) != nil { removed += 1 }
        }
        return removed
    }
}
