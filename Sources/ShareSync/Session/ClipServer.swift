import ShareLog

/// A server's side of a clip session: each `fetch` gets the events of the
/// names asked for, from the indexes (`ShareStore.events(of:)`), never a
/// scan, and nothing else. An unknown name gets an empty entry, the same
/// answer as for a name that never existed. A connection that asks for
/// many unknown names in a row is slowed down: it is guessing.
struct ClipServer {
    let options: SessionOptions
    private var unknownInARow = 0

    init(options: SessionOptions) { self.options = options }

    /// The answer to a fetch of `names`, and how long to wait before
    /// sending it (nil: no wait). It answers the first names, as many as
    /// fit in `maxBatchBytes` (always at least one): the clip asks again
    /// for the rest, so one answer never outgrows a frame.
    mutating func answer(_ names: [RecordName], from store: ShareStore) throws -> (records: [Message.Record], delay: Duration?) {
        var records: [Message.Record] = []
        var delay = Duration.zero
        var bytes = 0
        for name in names {
            let events = EncodedEvents(try store.events(of: name))
            let size = events.encoded.reduce(0) { $0 + $1.count }
            guard records.isEmpty || bytes + size <= options.maxBatchBytes else { break }
            bytes += size
            records.append(Message.Record(name: name, events: events))
            if events.count == 0 {
                unknownInARow += 1
                if unknownInARow > options.unknownFetchAllowance { delay += options.unknownFetchDelay * (unknownInARow - options.unknownFetchAllowance) }
            } else {
                unknownInARow = 0
            }
        }
        return (records, delay > .zero ? min(delay, options.unknownFetchDelayCap) : nil)
    }
}
