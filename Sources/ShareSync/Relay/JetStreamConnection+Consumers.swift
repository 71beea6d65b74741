internal import CNATS

extension JetStreamConnection {
    /// The durable consumer `durable` of `stream`, or nil when JetStream
    /// says there is no such consumer.
    public func consumerInfo(stream: String, durable: String) throws(JetStreamError) -> ConsumerInfo? {
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var code = jsErrCode(rawValue: 0)
        let status = js_GetConsumerInfo(&info, context, stream, durable, nil, &code)
        defer { jsConsumerInfo_Destroy(info) }
        if status == NATS_NOT_FOUND || code.rawValue == 10014 { return nil }
        try check(status, "read consumer \(durable) of stream \(stream)", code: code)
        guard let info else { throw JetStreamError("read consumer \(durable) of stream \(stream)", status: NATS_ERR) }
        return ConsumerInfo(info.pointee)
    }

    /// Deletes the durable consumer `durable` of `stream`; no-op when there
    /// is none (an operator's act; the tests use it to take a relay's
    /// consumer away under it).
    public func deleteConsumer(stream: String, durable: String) throws(JetStreamError) {
        var code = jsErrCode(rawValue: 0)
        let deleted = js_DeleteConsumer(context, stream, durable, nil, &code)
        if deleted == NATS_NOT_FOUND || code.rawValue == 10014 { return }
        try check(deleted, "delete consumer \(durable) of stream \(stream)", code: code)
    }

    /// Makes the durable pull consumer `durable` afresh on `stream`, with
    /// `AckAll`, delivering from `startSequence` (1 for the whole stream),
    /// and binds to it. An existing consumer of that name is deleted first.
    /// `interrupter` can end its fetches from another thread.
    public func makePullConsumer(
        stream: String, durable: String, filter: String, startSequence: UInt64, interrupter: PullInterrupter? = nil
    ) throws(JetStreamError) -> PullConsumer {
        try deleteConsumer(stream: stream, durable: durable)
        var config = jsConsumerConfig()
        jsConsumerConfig_Init(&config)
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var code = jsErrCode(rawValue: 0)
        let added = durable.withCString { name in
            filter.withCString { subject in
                config.Durable = name
                config.FilterSubject = subject
                config.AckPolicy = js_AckAll
                config.AckWait = 30_000_000_000
                config.MaxAckPending = 20_000
                config.DeliverPolicy = startSequence <= 1 ? js_DeliverAll : js_DeliverByStartSequence
                config.OptStartSeq = startSequence <= 1 ? 0 : startSequence
                return js_AddConsumer(&info, context, stream, &config, nil, &code)
            }
        }
        jsConsumerInfo_Destroy(info)
        try check(added, "create consumer \(durable) on stream \(stream) from sequence \(startSequence)", code: code)
        return try bindPullConsumer(stream: stream, durable: durable, filter: filter, interrupter: interrupter)
    }

    /// Binds to the existing durable pull consumer `durable` of `stream`,
    /// which delivers on from where it is. `interrupter` can end its
    /// fetches from another thread.
    ///
    /// - Throws: `JetStreamError` (`isConsumerNotFound`) when it is gone.
    public func bindPullConsumer(
        stream: String, durable: String, filter: String, interrupter: PullInterrupter? = nil
    ) throws(JetStreamError) -> PullConsumer {
        var subscription: OpaquePointer?
        var subscribeOptions = jsSubOptions()
        jsSubOptions_Init(&subscribeOptions)
        var code = jsErrCode(rawValue: 0)
        let bound = stream.withCString { streamName in
            durable.withCString { consumer in
                subscribeOptions.Stream = streamName
                subscribeOptions.Consumer = consumer
                subscribeOptions.ManualAck = true
                return js_PullSubscribe(&subscription, context, filter, consumer, nil, &subscribeOptions, &code)
            }
        }
        try check(bound, "bind to consumer \(durable) of stream \(stream)", code: code)
        guard let subscription else { throw JetStreamError("bind to consumer \(durable)", status: NATS_ERR) }
        return PullConsumer(subscription: subscription, owner: self, interrupter: interrupter)
    }
}
