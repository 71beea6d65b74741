import ShareLog

/// A server's side of a clip session: each `fetch` gets the events of the
/// names asked for, from the indexes (`ShareStore.events(of:)`), never a
/// scan, and nothing else. An unknown name gets an empty entry, the same
/// answer as for a name that never existed. A client that asks for many
/// unknown names is guessing, and its answers are delayed: the budget is
/// per client, across its connections (`GuessingThrottle`).
struct ClipServer {
    let options: SessionOptions
    let throttle: GuessingThrottle
    /// Who asks (`SocketChannel.client`): what the throttle counts by.
    let client: String

    /// The answer to a fetch of `names`, and how long to wait before
    /// sending it (nil: no wait). It answers the first names, as many as
    /// fit in `maxBatchBytes` (always at least one): the clip asks again
    /// for the rest, so one answer never outgrows a frame.
    func answer(
        _ names: [RecordName], from store: ShareStore, at now: ContinuousClock.Instant = .now
    ) throws(ShareLogError) -> (records: [Message.Record], delay: Duration?) {
        var records: [Message.Record] = []
        var bytes = 0
        for name in names {
            let events = EncodedEvents(try store.events(of: name))
            let size = events.encoded.reduce(0) { $0 + $1.count }
            guard records.isEmpty || bytes + size <= options.maxBatchBytes else { break }
            bytes += size
            records.append(Message.Record(name: name, events: events))
        }
        let unknown = records.count { $0.events.count == 0 }
        return (records, throttle.charge(unknown, from: client, at: now))
    }
}
