import SharePrimitives

/// The process-wide table of open environments, keyed by directory identity.
///
/// Opening one LMDB environment twice in a process is silently allowed by
/// LMDB, but closing either handle drops the process's POSIX locks on the
/// lock file, after which another process may reset the reader table under
/// a live reader. The registry makes a second open return the first
/// `Environment`, or throw when the configuration differs, and makes an open
/// wait while the same directory is being opened or its handle is closing:
/// from `Environment.close()` (or from the last reference going, the
/// fallback) until `mdb_env_close` has returned. It waits on a condition
/// that every change to the table signals, not by polling.
///
/// It also counts the opens that returned each environment, so that an
/// owner that shares it (each `ShareStore` on one directory) can give its
/// open back (`Environment.release()`) and have it closed with the last.
///
/// The table's lock is held only to read and update entries, never across
/// `mdb_env_open`, `mdb_env_close` or a transaction, so one slow open
/// (waiting for another process's write lock, say) stalls only opens of
/// the same directory.
enum EnvironmentRegistry {
    private enum Slot {
        /// Another thread is opening this directory.
        case opening
        /// Open, or (when the reference is gone) closing in its deinit.
        case open(Entry)
        /// `Environment.close()` began: the handle is about to close.
        case closing
    }

    private struct Entry {
        weak var environment: Environment?
        let configuration: Configuration
        /// Opens that returned the environment and were not given back
        /// with `release`.
        var opens: Int
    }

    /// What must match for a second open to share the first environment.
    struct Configuration: Equatable {
        /// The database names, sorted, each once.
        let databases: [String]
        let options: Environment.Options
    }

    private enum Lookup {
        case found(Environment)
        case mismatch(Environment)
        case claimed
    }

    /// The slots by directory. A process has a few, so they are an array
    /// searched in order: a dictionary's first use (its generic metadata,
    /// and `FileID`'s `Hashable` conformance found by scanning the binary's
    /// records) cost a clip's cold start more than the rest of the table
    /// (BENCHMARKS.md, "The third round").
    private struct Table {
        private var entries: [(fileID: FileID, slot: Slot)] = []

        /// The slot of `fileID`, nil when it has none; setting nil removes it.
        subscript(fileID: FileID) -> Slot? {
            get { entries.first { $0.fileID == fileID }?.slot }
            set {
                let index = entries.firstIndex { $0.fileID == fileID }
                switch (index, newValue) {
                case (let index?, let slot?): entries[index].slot = slot
                case (let index?, nil): entries.remove(at: index)
                case (nil, let slot?): entries.append((fileID, slot))
                case (nil, nil): break
                }
            }
        }
    }

    private static let slots = LockedCondition(Table())
    private static let lastID = Locked(0)

    /// Returns the open environment for `fileID`, or opens one with `open`;
    /// either way counts one more open of it. Waits while the directory is
    /// being opened by another thread or its handle is closing: opening
    /// beside a closing handle would let its `mdb_env_close` drop the new
    /// handle's locks.
    ///
    /// - Throws: `LMDBError.alreadyOpen` when the open one was opened with
    ///   another configuration, or whatever `open` throws.
    static func environment(
        for fileID: FileID, configuration: Configuration,
        open: (_ id: Int) throws -> Environment
    ) throws -> Environment {
        // Strong references leave the lock before they can be released, so
        // an Environment never deinitialises while the lock is held (its
        // handle's deinit takes the lock to unlist itself).
        let lookup = slots.wait { slots -> Lookup? in
            switch slots[fileID] {
            case .opening, .closing: return nil
            case .open(var entry):
                // Gone: its deinit is closing the handle, which unlists it.
                guard let environment = entry.environment else { return nil }
                guard entry.configuration == configuration else { return .mismatch(environment) }
                entry.opens += 1
                slots[fileID] = .open(entry)
                return .found(environment)
            case nil:
                slots[fileID] = .opening
                return .claimed
            }
        }
        switch lookup {
        case .claimed:
            return try openClaimed(fileID, configuration: configuration, open: open)
        case .found(let environment):
            return environment
        case .mismatch(let environment):
            throw LMDBError(code: LMDBError.alreadyOpen.code, context: environment.path)
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
        slots.withLock { slots in
            slots[fileID] = .open(Entry(environment: environment, configuration: configuration, opens: 1))
            // Under the lock: a close that begins as soon as it is listed
            // finds it registered, and so unlists it.
            environment.handle.markRegistered()
        }
        return environment
    }

    /// Marks `environment` as closing, so that opens of its directory wait
    /// until its handle has closed (`didClose`) instead of sharing it.
    ///
    /// - Precondition: the caller holds a reference to `environment`.
    static func willClose(_ environment: Environment) {
        let fileID = environment.handle.fileID
        slots.withLock { slots in
            guard case .open(let entry) = slots[fileID], entry.environment === environment else { return }
            slots[fileID] = .closing
        }
    }

    /// Gives back one open of `environment`. True when the caller is to
    /// close it: that was the last open and `closingIfLast`, or it is no
    /// longer listed (closed or closing already, which `close()` waits
    /// for). When true, the slot is already closing.
    ///
    /// - Precondition: the caller holds a reference to `environment`.
    static func release(_ environment: Environment, closingIfLast: Bool) -> Bool {
        let fileID = environment.handle.fileID
        return slots.withLock { slots -> Bool in
            guard case .open(var entry) = slots[fileID], entry.environment === environment else { return closingIfLast }
            entry.opens -= 1
            guard entry.opens <= 0, closingIfLast else {
                slots[fileID] = .open(entry)
                return false
            }
            slots[fileID] = .closing
            return true
        }
    }

    /// Forgets `fileID` once its handle has closed, and wakes the opens
    /// waiting for it.
    static func didClose(_ fileID: FileID) {
        slots.withLock { $0[fileID] = nil }
    }
}
