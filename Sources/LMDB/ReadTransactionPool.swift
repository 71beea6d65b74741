import Glibc
import Synchronization

/// The idle read transactions of one environment: reset
/// (`mdb_txn_reset`), each still holding its reader slot, waiting for a read
/// to renew it (`mdb_txn_renew`).
///
/// Renewing skips what beginning and aborting a transaction per read costs:
/// a `calloc` and `free`, and taking and releasing a slot under the reader
/// table's process-shared mutex. With `MDB_NOTLS` a reset transaction
/// belongs to no thread, so any thread may take any one; a read closure runs
/// synchronously, on one thread, from renew to reset.
///
/// The pool is a fixed row of atomic slots, each on a cache line of its own.
/// A thread starts looking at a slot chosen by its identity, so threads
/// reading side by side mostly touch different lines and take back the
/// transaction they returned. Lock-free: a take is an exchange, a return a
/// compare-and-exchange; a return that finds every slot taken fails, and the
/// caller aborts the transaction, so at most `capacity` slots are kept.
final class ReadTransactionPool: @unchecked Sendable {
    // @unchecked Sendable: the slots are atomics, allocated once and freed
    // in deinit, when no thread can use the pool. A transaction in a slot is
    // reset, and only the thread that took it out uses it.
    private let slots: UnsafeMutableRawPointer
    /// How many idle transactions the pool keeps at most.
    let capacity: Int
    private static let lineSize = 128

    init(capacity: Int) {
        self.capacity = max(capacity, 0)
        slots = .allocate(byteCount: max(self.capacity, 1) * Self.lineSize, alignment: Self.lineSize)
        for index in 0..<self.capacity { slot(index).initialize(to: Atomic<UInt>(0)) }
    }

    deinit {
        for index in 0..<capacity { slot(index).deinitialize(count: 1) }
        slots.deallocate()
    }

    @inline(__always)
    private func slot(_ index: Int) -> UnsafeMutablePointer<Atomic<UInt>> {
        (slots + index * Self.lineSize).assumingMemoryBound(to: Atomic<UInt>.self)
    }

    /// The slot the calling thread looks at first.
    @inline(__always)
    private func home() -> Int {
        // pthread_t is the address of the thread's descriptor; mix its bits
        // so threads whose stacks sit a power of two apart differ.
        Int(truncatingIfNeeded: (UInt(pthread_self()) &* 0x9E37_79B9_7F4A_7C15) >> 40) % capacity
    }

    /// An idle transaction, now the caller's, or nil when none is idle.
    func take() -> OpaquePointer? {
        guard capacity > 0 else { return nil }
        let start = home()
        for step in 0..<capacity {
            let index = (start + step) % capacity
            // Look before writing, so an empty line is not pulled away
            // from the thread that owns it.
            guard slot(index).pointee.load(ordering: .relaxed) != 0 else { continue }
            let bits = slot(index).pointee.exchange(0, ordering: .acquiring)
            if let transaction = OpaquePointer(bitPattern: bits) { return transaction }
        }
        return nil
    }

    /// Keeps `transaction`, which must be reset; false when every slot is
    /// taken, and the caller must abort it.
    func put(_ transaction: OpaquePointer) -> Bool {
        guard capacity > 0 else { return false }
        let bits = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(transaction)))
        let start = home()
        for step in 0..<capacity {
            let index = (start + step) % capacity
            guard slot(index).pointee.load(ordering: .relaxed) == 0 else { continue }
            if slot(index).pointee.compareExchange(expected: 0, desired: bits, ordering: .releasing).exchanged {
                return true
            }
        }
        return false
    }

    /// Empties the pool and returns what it held, for the caller to abort.
    func drain() -> [OpaquePointer] {
        (0..<capacity).compactMap { OpaquePointer(bitPattern: slot($0).pointee.exchange(0, ordering: .acquiring)) }
    }
}
