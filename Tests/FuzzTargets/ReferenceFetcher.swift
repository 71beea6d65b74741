import ShareLog
@testable import ShareSync

/// A clip's fetching as docs/SYNC.md ("Roles", "State machines", `fetch`,
/// `records`) and `ClipFetcher`'s documentation describe it, written apart
/// from it for `SessionFuzzTarget`: it asks for its names in order, at most
/// 64 a `fetch` and one fetch at a time; an answer is a non-empty prefix of
/// the names asked, in order, whose events are applied in one go without a
/// cursor (a clip keeps no place in the server's log); the names it did
/// not answer are asked again first. Any other `records` is `unexpected`.
struct ReferenceFetcher {
    private var pending: [RecordName]
    private var asked: [RecordName] = []

    init(names: [RecordName]) { pending = names }

    var isDone: Bool { pending.isEmpty && asked.isEmpty }

    mutating func start() -> [SessionAction] { nextFetch() }

    mutating func receive(_ records: [Message.Record]) -> ReferenceVerdict {
        guard !records.isEmpty, records.count <= asked.count, zip(records, asked).allSatisfy({ $0.name == $1 }) else {
            return .refuse(.unexpected(.records))
        }
        pending = Array(asked.dropFirst(records.count)) + pending
        asked = []
        let events = records.flatMap(\.events.encoded)
        return .accept([.apply(EncodedEvents(encoded: events), cursor: nil, then: nil)] + nextFetch())
    }

    private mutating func nextFetch() -> [SessionAction] {
        guard asked.isEmpty, !pending.isEmpty else { return [] }
        asked = Array(pending.prefix(64))
        pending.removeFirst(asked.count)
        return [.send(.fetch(asked))]
    }
}
