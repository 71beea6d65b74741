/// Everything the writers of one store said, as the parent read it: the
/// operations acknowledged (committed), and the operations in doubt (begun by
/// a writer that was killed before acknowledging them: each may or may not
/// have committed).
///
/// Feed it every line of every writer in the order each writer printed them,
/// and call `writerDied(slot:)` when a writer is killed.
public struct CrashHistory: Sendable {
    /// An acknowledged operation and what it returned.
    public struct Acknowledged: Hashable, Sendable {
        public let operation: CrashOperation
        public let result: CrashResult

        public init(operation: CrashOperation, result: CrashResult) {
            self.operation = operation
            self.result = result
        }
    }

    public private(set) var acknowledged: [Acknowledged] = []
    public private(set) var inDoubt: [CrashOperation] = []
    private var pending: [Int: CrashOperation] = [:]
    private var nextNumbers: [Int: Int] = [:]
    private var lastTimes: [Int: Int64] = [:]

    public init() {}

    /// Records one line from the writer in `slot`.
    ///
    /// - Throws: `CrashViolation` when the line breaks the protocol (an ack
    ///   without its begin, a begin while another is pending, another slot).
    public mutating func record(_ line: CrashLine, slot: Int) throws(CrashViolation) {
        switch line.event {
        case .ready:
            return
        case .begin:
            guard let operation = line.operation, operation.slot == slot, pending[slot] == nil else {
                throw CrashViolation("writer \(slot) printed a begin out of order: \(line.text)")
            }
            pending[slot] = operation
            nextNumbers[slot] = operation.number + 1
            lastTimes[slot] = max(lastTimes[slot] ?? operation.time, operation.time)
        case .ack:
            guard let operation = line.operation, let result = line.result, pending[slot] == operation else {
                throw CrashViolation("writer \(slot) acknowledged an operation it had not begun: \(line.text)")
            }
            pending[slot] = nil
            acknowledged.append(Acknowledged(operation: operation, result: result))
        }
    }

    /// Records an operation the parent itself performed and saw return.
    public mutating func recordProbe(_ probe: Acknowledged) {
        acknowledged.append(probe)
        lastTimes[probe.operation.slot] = max(lastTimes[probe.operation.slot] ?? probe.operation.time, probe.operation.time)
    }

    /// The writer in `slot` is dead: its pending operation, if any, is in doubt.
    public mutating func writerDied(slot: Int) {
        if let operation = pending.removeValue(forKey: slot) { inDoubt.append(operation) }
    }

    /// The number the next writer in `slot` starts counting from.
    public func nextNumber(slot: Int) -> Int { nextNumbers[slot] ?? 0 }

    /// The latest clock time any operation of any slot has used, if any.
    public var latestTime: Int64? { lastTimes.values.max() }

    /// The latest clock time used in `slot`, if any.
    public func lastTime(slot: Int) -> Int64? { lastTimes[slot] }
}
