internal import CLMDB
import Dispatch
import Glibc
import Synchronization
import SharePrimitives

/// The environment's one writer: a dedicated thread that runs every write
/// transaction of this process.
///
/// LMDB ties a write transaction to the OS thread that began it, and a
/// second write on a thread that holds one deadlocks. Funnelling writes
/// through one thread makes both impossible, and lets the writer commit
/// several queued writes together (group commit): they run one after the
/// other in one transaction, and the batch pays for one durable commit
/// instead of one each. A closure that throws does not undo the others:
/// the transaction is aborted and the others run again without it.
final class Writer: @unchecked Sendable {
    // @unchecked Sendable: `queue` is guarded by its lock and `threadID` is
    // atomic; `failureRecord` is touched only on the writer thread.
    private let environment: EnvironmentHandle
    private let queue = Locked(Queue())
    private let wakeUp = DispatchSemaphore(value: 0)
    fileprivate let exited = DispatchSemaphore(value: 0)
    private let threadID = Atomic<UInt>(0)
    private let failureRecord = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    /// Groups the writer held open for more writes (`Options.commitDelay`).
    private let delayedGroups = Atomic<Int>(0)

    /// The most writes committed together.
    static let maxGroupSize = 128

    private struct Queue {
        var pending: [WriteRequest] = []
        var started = false
        var stopping = false
    }

    init(environment: EnvironmentHandle) {
        self.environment = environment
        failureRecord.initialize(to: 0)
    }

    deinit { failureRecord.deallocate() }

    /// True on the writer thread, where a new write would wait for itself.
    var isCurrentThread: Bool {
        let id = threadID.load(ordering: .acquiring)
        return id != 0 && pthread_equal(pthread_self(), pthread_t(id)) != 0
    }

    /// Writes queued and not yet taken into a transaction.
    var queueLength: Int { queue.withLock { $0.pending.count } }

    /// How many groups the writer held open for more writes.
    var delays: Int { delayedGroups.load(ordering: .relaxed) }

    /// Queues `request`, starting the thread on first use.
    ///
    /// - Returns: false, without queuing it (`request.finish` is never
    ///   called), once `shutdown` has begun: the caller answers it with
    ///   `LMDBError.closed`. Deciding under the queue's lock means a write
    ///   is either queued before the stop, and so committed before the
    ///   thread exits, or refused; never left behind unanswered.
    func submit(_ request: WriteRequest) -> Bool {
        let (queued, start) = queue.withLock { queue -> (Bool, Bool) in
            guard !queue.stopping else { return (false, false) }
            queue.pending.append(request)
            defer { queue.started = true }
            return (true, !queue.started)
        }
        guard queued else { return false }
        if start { startThread() }
        wakeUp.signal()
        return true
    }

    /// Refuses new writes, lets the thread run every write already queued
    /// (without holding a group open for more), and, unless called on the
    /// writer thread itself, waits for it to exit. Idempotent: a second
    /// call waits the same way.
    func shutdown() {
        let started = queue.withLock { queue -> Bool in
            queue.stopping = true
            return queue.started
        }
        guard started else { return }
        wakeUp.signal()
        guard !isCurrentThread else { return }
        exited.wait()
        // A latch, not a count: the next caller, if any, passes too.
        exited.signal()
    }

    private func startThread() {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&thread, nil, { context in
            let exited: DispatchSemaphore
            do {
                let writer = Unmanaged<Writer>.fromOpaque(context!).takeRetainedValue()
                exited = writer.exited
                writer.run()
            }
            // The thread's reference is gone, so once `shutdown` returns the
            // environment's last owner can close it at once.
            exited.signal()
            return nil
        }, context)
        precondition(rc == 0, "cannot start the LMDB writer thread: \(String(cString: strerror(rc)))")
        pthread_detach(thread)
    }

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        var delay = CommitDelay(environment.options.commitDelay)
        var runway = MapRunway()
        while true {
            wakeUp.wait()
            // Deciding and taking under one lock: a write that arrives just
            // after a look at an empty queue waits for its own signal, and
            // the decision it deserves, instead of being taken alone.
            var (batch, stop, awaited) = queue.withLock { queue -> ([WriteRequest], Bool, Int?) in
                if let writes = Writer.writesToWaitFor(queue, delay) { return ([], false, writes) }
                let (batch, stop) = Writer.takeGroup(&queue)
                return (batch, stop, nil)
            }
            if let awaited {
                waitForGroup(of: awaited, upTo: delay.nanoseconds)
                (batch, stop) = queue.withLock { Writer.takeGroup(&$0) }
            }
            if !batch.isEmpty {
                let errors = commit(batch, runway: &runway)
                let answers = batch.map(\.finish)
                let queued = queueLength
                // The write closures, and the environment they may hold, go
                // before anyone is answered: a caller that then releases the
                // environment holds the last reference, so it closes at once
                // and a reopen with other options does not find it open.
                // (`Environment.close()` needs none of this; the deinit
                // fallback does.)
                batch = []
                for (answer, error) in zip(answers, errors) { answer(error) }
                delay.answered(group: answers.count, queued: queued, at: DispatchTime.now().uptimeNanoseconds)
            }
            if stop { break }
            // More than a group was queued: run the rest without a new signal.
            if queue.withLock({ !$0.pending.isEmpty }) { wakeUp.signal() }
        }
        // A later thread may get this one's id: it must not pass for the
        // writer (`isCurrentThread`).
        threadID.store(0, ordering: .releasing)
    }

    /// How many queued writes to wait for before taking the next group, or
    /// nil to take it now: never for an empty queue, a stopping writer or
    /// a write that runs alone.
    private static func writesToWaitFor(_ queue: Queue, _ delay: CommitDelay) -> Int? {
        guard let first = queue.pending.first, !first.runsAlone, !queue.stopping else { return nil }
        return delay.writesToWaitFor(queued: queue.pending.count, now: DispatchTime.now().uptimeNanoseconds)
    }

    /// Waits until `writes` are queued, or `nanoseconds` have passed, or
    /// the writer is stopping. Each submit signals `wakeUp`; the signals
    /// taken here belong to writes the next group takes, and one for any
    /// left over is given back after the group (`run`).
    private func waitForGroup(of writes: Int, upTo nanoseconds: UInt64) {
        delayedGroups.add(1, ordering: .relaxed)
        let deadline = DispatchTime(uptimeNanoseconds: DispatchTime.now().uptimeNanoseconds + nanoseconds)
        while queue.withLock({ $0.pending.count < writes && !$0.stopping }) {
            if wakeUp.wait(timeout: deadline) == .timedOut { return }
        }
    }

    /// Takes the next group off `queue`, and says whether the writer
    /// stops after it.
    private static func takeGroup(_ queue: inout Queue) -> ([WriteRequest], Bool) {
        let count = groupSize(queue.pending)
        let batch = Array(queue.pending.prefix(count))
        queue.pending.removeFirst(count)
        return (batch, queue.stopping && queue.pending.isEmpty)
    }

    /// How many of the first pending requests share the next commit: up to
    /// `maxGroupSize`, stopping before a request that runs alone, which
    /// goes by itself.
    private static func groupSize(_ pending: [WriteRequest]) -> Int {
        guard let first = pending.first else { return 0 }
        if first.runsAlone { return 1 }
        return pending.prefix(maxGroupSize).prefix { !$0.runsAlone }.count
    }

    /// Runs `batch` in one durable commit, growing the map and re-running
    /// when it fills. Returns each request's answer, nil where its write
    /// committed; the caller delivers them.
    ///
    /// All requests run in one transaction (MDB_WRITEMAP allows no nested
    /// ones). When one throws, the transaction is aborted, that request is
    /// answered with its error, and the others run again without it in a
    /// new transaction; so each commits exactly once or not at all, and a
    /// failing one writes nothing. `runway` grows the map ahead of the
    /// batch when the last commit says it may fill it.
    private func commit(_ batch: [WriteRequest], runway: inout MapRunway) -> [(any Error)?] {
        var answers = [(any Error)?](repeating: nil, count: batch.count)
        runway.prepare(environment)
        // The requests still to commit, as indices into `batch`.
        var run = Array(batch.indices)
        while !run.isEmpty {
            let outcome: Outcome
            do {
                outcome = try environment.withWriteAccess { attempt(run.map { batch[$0] }) }
            } catch {
                outcome = .failed(error)
            }
            do {
                switch outcome {
                case .committed:
                    run = []
                    runway.committed(environment)
                case .requestFailed(let position, let error):
                    answers[run[position]] = error
                    run.remove(at: position)
                case .failed(let error):
                    throw error
                case .mapFull:
                    try environment.growMap()
                    runway.filled()
                case .mapResized:
                    try environment.adoptResizedMap()
                case .diskNearlyFull(let fitting):
                    try environment.shrinkMap(to: fitting)
                    runway.refusedByDisk()
                }
            } catch {
                for index in run { answers[index] = error }
                run = []
            }
        }
        return answers
    }

    private enum Outcome {
        /// Every request of the attempt committed.
        case committed
        /// The request at this position threw, or caught `MDB_TXN_FULL`;
        /// nothing was committed.
        case requestFailed(Int, any Error)
        /// Every request of the attempt fails with this error.
        case failed(any Error)
        case mapFull
        case mapResized
        /// The disk had room for a map of only this many bytes.
        case diskNearlyFull(Int)
    }

    /// One try at `requests`, in one transaction. Requires
    /// `environment.withWriteAccess`.
    private func attempt(_ requests: [WriteRequest]) -> Outcome {
        var txn: OpaquePointer?
        let rc = mdb_txn_begin(environment.pointer, nil, 0, &txn)
        if rc == MDB_MAP_RESIZED { return .mapResized }
        guard rc == MDB_SUCCESS, let txn else { return .failed(LMDBError(code: rc, context: "mdb_txn_begin(write)")) }
        do {
            if let fitting = try environment.reserveMap() {
                mdb_txn_abort(txn)
                return .diskNearlyFull(fitting)
            }
        } catch {
            mdb_txn_abort(txn)
            return .failed(error)
        }
        failureRecord.pointee = 0
        for (position, request) in requests.enumerated() {
            var thrown: (any Error)?
            do {
                try request.body(transaction(txn))
            } catch {
                thrown = error
            }
            // A closure may catch MAP_FULL or TXN_FULL and return: the
            // transaction is dead all the same.
            let failure = failureRecord.pointee
            guard thrown != nil || failure != 0 else { continue }
            mdb_txn_abort(txn)
            if failure == MDB_MAP_FULL { return .mapFull }
            let error = thrown ?? LMDBError(code: failure, context: "a write transaction")
            return .requestFailed(position, error)
        }
        // mdb_txn_commit frees the transaction even when it fails.
        let committed = mdb_txn_commit(txn)
        if committed == MDB_MAP_FULL { return .mapFull }
        if committed != MDB_SUCCESS { return .failed(LMDBError(code: committed, context: "mdb_txn_commit")) }
        return .committed
    }

    private func transaction(_ pointer: OpaquePointer) -> WriteTransaction {
        WriteTransaction(
            pointer: pointer, environmentID: environment.id,
            maxKeySize: environment.maxKeySize, failureRecord: failureRecord)
    }
}
