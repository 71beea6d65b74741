import ShareLog

/// A clip's side of a clip session: it asks for the record names it was
/// given, at most `Message.fetchNames` a request, and has each answer's
/// events applied (docs/SYNC.md "Roles"). It never lists or pushes.
struct ClipFetcher {
    private var pending: [RecordName]
    private var asked: [RecordName] = []
    private(set) var found: [RecordName] = []
    private(set) var unknown: [RecordName] = []

    init(names: [RecordName]) { pending = names }

    var isDone: Bool { pending.isEmpty && asked.isEmpty }

    mutating func start() -> [SessionAction] { nextRequest() }

    /// An answer: its events to apply (without a cursor: a clip keeps no
    /// place in the server's log), then the next request. The server may
    /// answer only the first names asked, as many as fit in one batch; the
    /// rest are asked again.
    mutating func receive(_ records: [Message.Record]) throws(SessionError) -> [SessionAction] {
        guard !records.isEmpty, records.count <= asked.count, records.map(\.name) == Array(asked.prefix(records.count)) else {
            throw .unexpected(.records, while: .awaitingRecords(names: asked.count))
        }
        pending.insert(contentsOf: asked.dropFirst(records.count), at: 0)
        asked = []
        var events: [[UInt8]] = []
        for record in records {
            if record.events.count == 0 { unknown.append(record.name) } else { found.append(record.name) }
            events += record.events.encoded
        }
        return [.apply(EncodedEvents(encoded: events), cursor: nil, then: nil)] + nextRequest()
    }

    private mutating func nextRequest() -> [SessionAction] {
        guard asked.isEmpty, !pending.isEmpty else { return [] }
        asked = Array(pending.prefix(Message.fetchNames.upperBound))
        pending.removeFirst(asked.count)
        return [.send(.fetch(asked))]
    }
}
