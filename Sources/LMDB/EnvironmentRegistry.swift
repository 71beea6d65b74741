import Glibc
import SharePrimitives

/// The process-wide table of open environments, keyed by directory identity.
///
/// Opening one LMDB environment twice in a process is silently allowed by
/// LMDB, but closing either handle drops the process's POSIX locks on the
/// lock file, after which another process may reset the reader table under
/// a live reader. The registry makes a second open return the first
/// `Environment`, or throw when the configuration differs, and makes an open
/// wait while the same directory is being opened or its handle is closing.
///
/// The table's lock is held only to read and update entries, never across
/// `mdb_env_open` or a transaction, so one slow open (waiting for another
/// process's write lock, say) stalls only opens of the same directory.
enum EnvironmentRegistry {
    private enum Slot {
        /// Another thread is opening this directory.
        case opening
        /// Open, or (when the reference is gone) closing.
        case open(Entry)
    }

    private struct Entry {
        weak var environment: Environment?
        let configuration: Configuration
    }

    /// What must match for a second open to share the first environment.
    struct Configuration: Hashable {
        let databases: Set<String>
        let options: Environment.Options
    }

    private enum Lookup {
        case found(Environment, Configuration)
        case busy
        case claimed
    }

    private static let slots = Locked<[FileID: Slot]>([:])
    private static let lastID = Locked(0)

    /// Returns the open environment for `fileID`, or opens one with `open`.
    ///
    /// - Throws: `LMDBError.alreadyOpen` when the open one was opened with
    ///   another configuration, or whatever `open` throws.
    static func environment(
        for fileID: FileID, configuration: Configuration,
        open: (_ id: Int) throws -> Environment
    ) throws -> Environment {
        while true {
            // Strong references leave the lock before they can be released,
            // so an Environment never deinitialises while the lock is held.
            let lookup = slots.withLock { slots -> Lookup in
                switch slots[fileID] {
                case .opening: return .busy
                case .open(let entry):
                    guard let environment = entry.environment else { return .busy }
                    return .found(environment, entry.configuration)
                case nil:
                    slots[fileID] = .opening
                    return .claimed
                }
            }
            switch lookup {
            case .claimed:
                return try openClaimed(fileID, configuration: configuration, open: open)
            case .found(let environment, let existing):
                guard existing == configuration else {
                    throw LMDBError(code: LMDBError.alreadyOpen.code, context: environment.path)
                }
                return environment
            case .busy:
                // Being opened, or inside mdb_env_close: opening beside it
                // would let that close drop the new handle's locks.
                usleep(1_000)
            }
        }
    }

    /// Opens a directory this thread claimed, then publishes or releases it.
    private static func openClaimed(
        _ fileID: FileID, configuration: Configuration, open: (_ id: Int) throws -> Environment
    ) throws -> Environment {
        let id = lastID.withLock { last in
            last += 1
            return last
        }
        let environment: Environment
        do {
            environment = try open(id)
        } catch {
            slots.withLock { $0[fileID] = nil }
            throw error
        }
        slots.withLock { $0[fileID] = .open(Entry(environment: environment, configuration: configuration)) }
        environment.handle.markRegistered()
        return environment
    }

    /// Forgets `fileID` once its handle has closed.
    static func didClose(_ fileID: FileID) {
        slots.withLock { $0[fileID] = nil }
    }
}
