import Synchronization
import Glibc

/// The process-wide table of open environments, keyed by directory identity.
///
/// Opening one LMDB environment twice in a process is silently allowed by
/// LMDB, but closing either handle drops the process's POSIX locks on the
/// lock file, after which another process may reset the reader table under
/// a live reader. The registry makes a second open return the first
/// `Environment`, or throw when the configuration differs, and makes a new
/// open wait until a closing handle has finished closing.
enum EnvironmentRegistry {
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
        case closing
        case opened(Environment)
    }

    private static let entries = Locked<[FileID: Entry]>([:])
    private static let lastID = Atomic<Int>(0)

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
            let lookup = try entries.withLock { entries -> Lookup in
                if let entry = entries[fileID] {
                    guard let environment = entry.environment else { return .closing }
                    return .found(environment, entry.configuration)
                }
                let environment = try open(lastID.add(1, ordering: .relaxed).newValue)
                entries[fileID] = Entry(environment: environment, configuration: configuration)
                environment.handle.markRegistered()
                return .opened(environment)
            }
            switch lookup {
            case .opened(let environment):
                return environment
            case .found(let environment, let existing):
                guard existing == configuration else {
                    throw LMDBError(code: LMDBError.alreadyOpen.code, context: environment.path)
                }
                return environment
            case .closing:
                // The previous handle is inside mdb_env_close; opening now
                // would let that close drop the new handle's locks.
                usleep(1_000)
            }
        }
    }

    /// Forgets `fileID` once its handle has closed.
    static func didClose(_ fileID: FileID) {
        entries.withLock { $0[fileID] = nil }
    }
}
