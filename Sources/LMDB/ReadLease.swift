/// A live read transaction between `EnvironmentHandle.startRead` and
/// `finishRead`, and what `Environment.read` needs to lend it.
@usableFromInline
struct ReadLease {
    @usableFromInline let transaction: OpaquePointer
    @usableFromInline let environmentID: Int
    @usableFromInline let maxKeySize: Int
    /// The thread's gate holds before this read's, for `leaveShared`.
    let gateDepth: Int

    init(transaction: OpaquePointer, environmentID: Int, maxKeySize: Int, gateDepth: Int) {
        self.transaction = transaction
        self.environmentID = environmentID
        self.maxKeySize = maxKeySize
        self.gateDepth = gateDepth
    }
}
