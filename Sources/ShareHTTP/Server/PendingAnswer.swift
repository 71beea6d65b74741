import Synchronization

/// The answer a worker thread made for a suspended connection's request
/// (`OffThreadAnswers`), handed to libmicrohttpd's thread that queues it
/// once the connection is resumed. Set once, taken once.
final class PendingAnswer: Sendable {
    struct Answer: Sendable {
        let request: GatewayRequest
        let response: GatewayResponse
        /// How long the responder took.
        let microseconds: Int64
        /// The body was over its limit: the connection closes after.
        let overLimit: Bool
    }

    private let answer = Mutex<Answer?>(nil)

    func set(_ value: Answer) { answer.withLock { $0 = value } }

    /// The answer, once; nil before it is set and after it was taken.
    func take() -> Answer? { answer.withLock { $0.take() } }
}

/// A libmicrohttpd connection for the one call a worker thread makes on
/// it, `MHD_resume_connection`, which the library allows from any thread.
/// `@unchecked Sendable`: the pointer is never dereferenced here, and the
/// connection stays valid while suspended, since the library neither
/// closes nor times out a suspended connection, and a daemon is stopped
/// only once every worker has resumed its connection (`OffThreadAnswers.drain`).
struct SuspendedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
}
