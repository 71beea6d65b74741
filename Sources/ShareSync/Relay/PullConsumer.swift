internal import CNATS
import Foundation
import SharePrimitives

/// A subscription bound to a durable pull consumer with explicit
/// acknowledgement of everything up to a message (JetStream's `AckAll`).
///
/// Not thread-safe: one thread fetches and acknowledges; another may end
/// its fetches through its `PullInterrupter`. Holds its connection alive.
public final class PullConsumer {
    private let subscription: OpaquePointer
    private let owner: JetStreamConnection
    private let interrupter: PullInterrupter?
    /// The last message fetched, kept so that it can be acknowledged once
    /// what it carries is committed.
    private var last: OpaquePointer?

    init(subscription: OpaquePointer, owner: JetStreamConnection, interrupter: PullInterrupter?) {
        self.subscription = subscription
        self.owner = owner
        self.interrupter = interrupter
        interrupter?.watch(subscription)
    }

    deinit {
        interrupter?.forget(subscription)
        natsMsg_Destroy(last)
        natsSubscription_Destroy(subscription)
    }

    /// Up to `count` messages and about `maxBytes`, waiting up to `timeout`
    /// for the first; an empty array when none came. Throws at once once
    /// its `PullInterrupter` was interrupted. Messages fetched before
    /// and not acknowledged are redelivered only after the consumer's ack
    /// wait (30 s), so a caller acknowledges each batch it committed.
    ///
    /// A waiting pull for `count` messages returns only once `count` came
    /// or it expired, which would hold a lone new message for `timeout`
    /// (and libnats 3.4 waits out a `NoWait` pull too); so this waits for
    /// the first message alone, then asks for exactly as many more as that
    /// message says the stream held for this consumer behind it, which are
    /// there already. Two round trips, and a message is handed over as
    /// soon as it arrives.
    public func fetch(count: Int, maxBytes: Int, timeout: Duration) throws(JetStreamError) -> [IncomingMessage] {
        let first = try request(count: 1, maxBytes: maxBytes, expires: timeout)
        guard let pending = first.first?.pending, pending > 0, count > 1 else { return first }
        return first + (try request(count: Int(min(pending, UInt64(count - 1))), maxBytes: maxBytes, expires: timeout))
    }

    /// One pull request for up to `count` messages, waiting up to `expires`.
    private func request(count: Int, maxBytes: Int, expires: Duration) throws(JetStreamError) -> [IncomingMessage] {
        var request = jsFetchRequest()
        jsFetchRequest_Init(&request)
        request.Batch = Int32(count)
        request.MaxBytes = Int64(maxBytes)
        request.Expires = expires.nanosecondsToWait
        request.Heartbeat = Self.heartbeat(for: expires).nanosecondsToWait
        var list = natsMsgList()
        let status = natsSubscription_FetchRequest(&list, subscription, &request)
        defer { natsMsgList_Destroy(&list) }
        if status == NATS_TIMEOUT { return [] }
        try check(status, "fetch from the consumer")
        var messages: [IncomingMessage] = []
        messages.reserveCapacity(Int(list.Count))
        for index in 0..<Int(list.Count) {
            guard let message = list.Msgs[index] else { continue }
            var meta: UnsafeMutablePointer<jsMsgMetaData>?
            try check(natsMsg_GetMetaData(&meta, message), "read a message's stream sequence")
            defer { jsMsgMetaData_Destroy(meta) }
            let length = Int(natsMsg_GetDataLength(message))
            let body = natsMsg_GetData(message).map { data in
                Array(UnsafeRawBufferPointer(start: data, count: length))
            } ?? []
            messages.append(IncomingMessage(
                subject: String(cString: natsMsg_GetSubject(message)), body: body,
                streamSequence: meta?.pointee.Sequence.Stream ?? 0, pending: meta?.pointee.NumPending ?? 0))
        }
        if list.Count > 0, let newest = list.Msgs[Int(list.Count) - 1] {
            natsMsg_Destroy(last)
            last = newest
            list.Msgs[Int(list.Count) - 1] = nil  // kept: not destroyed with the list
        }
        return messages
    }

    /// The idle heartbeat a pull of `expires` asks the server for: two
    /// fifths of it, for pulls of 2 s or more; none for shorter ones.
    ///
    /// A pull sent to a consumer that is gone (an operator deleted it, or
    /// the cluster lost it, between two fetches) reaches nobody: without
    /// heartbeats libnats waits out the pull and answers "no messages",
    /// every time, and a relay would idle on a consumer that does not
    /// exist. With them, libnats fails the fetch (`Missed Server
    /// Heartbeat`) within two heartbeats, and the relay makes its consumer
    /// again (`PullConsumerTests`). An idle relay's pull of 5 s costs two
    /// or three heartbeats.
    static func heartbeat(for expires: Duration) -> Duration {
        expires >= .seconds(2) ? expires * 2 / 5 : .zero
    }

    /// Tells JetStream that every message up to the last one fetched is
    /// done with. Fire and forget: a lost acknowledgement only makes the
    /// server deliver again what the caller's cursor already skips.
    public func acknowledgeFetched() throws(JetStreamError) {
        guard let message = last else { return }
        try check(natsMsg_Ack(message, nil), "acknowledge a message")
        natsMsg_Destroy(message)
        last = nil
    }
}
