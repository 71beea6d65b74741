import SharePrimitives

/// One submitted write: a closure for the writer thread and a way to answer.
///
/// `body` may run more than once (after map growth, or after another
/// request of its group threw) and its result is kept only from the run
/// that commits. `finish` is called exactly once, after
/// the commit, or with the error that stopped it.
package struct WriteRequest: Sendable {
    let body: @Sendable (borrowing WriteTransaction) throws -> Void
    let finish: @Sendable ((any Error)?) -> Void
    /// True when `body` must run in a top-level transaction of its own, never
    /// grouped with other writes: `Environment.scrub` reads the committed
    /// file and must not see, or overwrite, pages another write of the same
    /// transaction has changed or spilled.
    let runsAlone: Bool

    /// Wraps a typed closure; `deliver` gets its result after the commit.
    package init<R: Sendable>(
        _ body: @escaping @Sendable (borrowing WriteTransaction) throws -> R,
        runsAlone: Bool = false,
        deliver: @escaping @Sendable (Result<R, any Error>) -> Void
    ) {
        let slot = ResultSlot<R>()
        self.body = { txn in slot.store(try body(txn)) }
        self.finish = { error in deliver(error.map { .failure($0) } ?? .success(slot.take())) }
        self.runsAlone = runsAlone
    }
}

/// The latest result of a write closure, handed from the writer thread to
/// the thread that delivers it.
private final class ResultSlot<R: Sendable>: Sendable {
    private let value = Locked<R?>(nil)

    func store(_ result: R) { value.withLock { $0 = result } }

    /// - Precondition: `store` ran; `finish` without an error implies it.
    func take() -> R {
        value.withLock { value in
            guard let result = value.take() else { preconditionFailure("a committed write has no result") }
            return result
        }
    }
}
