internal import CNATS

/// A failed call into the NATS C client or a JetStream API request, with
/// what the client and the server said.
public struct JetStreamError: Error, CustomStringConvertible, Sendable {
    /// What was being done, in words ("connect to nats://…", "create stream SHARES").
    public let operation: String
    /// The client's status text (`natsStatus_GetText`).
    public let status: String
    /// JetStream's error code from the server (10059 stream not found, …), 0 for none.
    public let code: Int
    /// The client's last error text for this thread, when it adds something.
    public let detail: String

    /// Whether the client gave up waiting (a fetch that found no message, a
    /// request the cluster did not answer in time).
    public let timedOut: Bool

    init(_ operation: String, status: natsStatus, code: jsErrCode = jsErrCode(rawValue: 0)) {
        self.operation = operation
        self.status = String(cString: natsStatus_GetText(status))
        self.code = Int(code.rawValue)
        var last = NATS_OK
        let text = nats_GetLastError(&last).map { String(cString: $0) } ?? ""
        detail = text == self.status ? "" : text
        timedOut = status == NATS_TIMEOUT
    }

    /// JetStream's "stream not found".
    var isStreamNotFound: Bool { code == 10059 }
    /// JetStream's "consumer not found".
    var isConsumerNotFound: Bool { code == 10014 }

    public var description: String {
        var text = "\(operation): \(status)"
        if code != 0 { text += " (JetStream error \(code))" }
        if !detail.isEmpty { text += ": \(detail)" }
        return text
    }
}

/// Throws a `JetStreamError` for any status but `NATS_OK`.
func check(_ status: natsStatus, _ operation: @autoclosure () -> String, code: jsErrCode = jsErrCode(rawValue: 0)) throws(JetStreamError) {
    guard status == NATS_OK else { throw JetStreamError(operation(), status: status, code: code) }
}
