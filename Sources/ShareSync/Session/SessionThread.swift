import Foundation

/// Runs a blocking client or server loop for an async caller: on a thread
/// of its own (a session blocks for as long as it runs, so it never takes a
/// thread of the cooperative pool or of Dispatch's global queues), with the
/// calling task's cancellation turned into `SessionContext.stop()`, the
/// same clean stop a signal gives: nothing half-applied, the peers told.
enum SessionThread {
    /// `body`'s result, once it returns; `context` is stopped when the
    /// calling task is cancelled, before or while `body` runs.
    static func run<R: Sendable, E: Error>(
        _ name: String, context: SessionContext, _ body: @escaping @Sendable () throws(E) -> R
    ) async throws(E) -> R {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<R, E>, Never>) in
                let thread = Thread { continuation.resume(returning: Result { () throws(E) in try body() }) }
                thread.name = name
                // As every session thread's (SyncServer, RelayThread).
                thread.stackSize = 1 << 20
                thread.start()
            }
        } onCancel: {
            context.stop()
        }
        return try result.get()
    }
}
