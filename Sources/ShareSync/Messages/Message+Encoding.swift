import ShareLog

extension Message {
    /// The frame that carries this message (layouts in docs/SYNC.md, "Messages").
    ///
    /// - Precondition: a `fetch` or `records` holds `Message.fetchNames`
    ///   names, a record at most `Message.eventsPerRecord` events, a batch
    ///   at most `UInt32.max` events. Nothing here checks the receiver's
    ///   frame limit: the sender sizes its batches below it.
    public var frame: Frame {
        var writer = PayloadWriter()
        switch self {
        case .hello(let hello):
            writer.write(SyncProtocol.magic)
            writer.write(hello.versions.lowerBound)
            writer.write(hello.versions.upperBound)
            writer.write(hello.role.rawValue)
            writer.write(hello.directions.rawValue)
            writer.write(hello.replica)
            writer.write(hello.epoch)
            writer.write(hello.nonce.bytes)
        case .welcome(let welcome):
            writer.write(welcome.version)
            writer.write(welcome.replica)
            writer.write(welcome.epoch)
            writer.write(welcome.nonce.bytes)
            writer.write(UInt8(welcome.proof?.bytes.count ?? 0))
            writer.write(welcome.proof?.bytes ?? [])
        case .authenticate(let proof):
            writer.write(proof.bytes)
        case .accepted(let accepted):
            writer.write(accepted.heldOfYou)
            writer.write(UInt8(accepted.proof?.bytes.count ?? 0))
            writer.write(accepted.proof?.bytes ?? [])
        case .pull(let pull):
            writer.write(pull.knownEpoch?.wireBytes ?? Array(repeating: 0, count: 16))
            writer.write(pull.after)
            writer.write(UInt8(pull.follow ? 1 : 0))
            writer.write(pull.maxBatchBytes)
            writer.write(pull.heldOfYou)
        case .batch(let through, let events):
            writer.write(through)
            writer.write(Self.count32(events))
            writer.writeEach(events)
        case .ack(let through):
            writer.write(through)
        case .caughtUp(let position):
            writer.write(position)
        case .snapshotRequired(let reason, let epoch, let horizon):
            writer.write(reason.rawValue)
            writer.write(epoch)
            writer.write(horizon)
        case .snapshotBatch(let events):
            writer.write(Self.count32(events))
            writer.writeEach(events)
        case .snapshotEnd(let resumeAfter, let epoch):
            writer.write(resumeAfter)
            writer.write(epoch)
        case .fetch(let names):
            precondition(Self.fetchNames.contains(names.count), "a fetch names 1…64 records")
            writer.write(UInt16(names.count))
            for name in names { writer.write(name) }
        case .records(let records):
            precondition(Self.fetchNames.contains(records.count), "a records message holds 1…64 records")
            writer.write(UInt16(records.count))
            for record in records {
                precondition(record.events.count <= Self.eventsPerRecord, "a record holds at most 255 events")
                writer.write(record.name)
                writer.write(UInt8(record.events.count))
                writer.writeEach(record.events)
            }
        case .error(let code, let message):
            writer.write(code.rawValue)
            writer.write(message.utf8)
        case .snapshotRequest, .heartbeat, .bye:
            break
        }
        return Frame(type: type, payload: writer.bytes)
    }

    private static func count32(_ events: EncodedEvents) -> UInt32 {
        precondition(events.count <= UInt32.max, "a batch holds at most 4 Gi - 1 events")
        return UInt32(events.count)
    }
}
