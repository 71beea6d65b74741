import ShareLog

extension Message {
    /// Reads the message `frame` carries (layouts in docs/SYNC.md, "Messages").
    ///
    /// Events stay encoded: `EncodedEvents.decoded()` checks them. An
    /// `error` message's text is decoded lossily (invalid UTF-8 becomes
    /// U+FFFD), never refused.
    ///
    /// - Throws: `MessageError` naming the field, for a payload that is
    ///   short, goes on after its last field, holds a value an enumerated
    ///   field does not define, or a count out of range; never traps.
    public init(_ frame: Frame) throws(MessageError) {
        var reader = PayloadReader(frame)
        switch frame.type {
        case .hello: self = .hello(try Self.readHello(&reader))
        case .welcome: self = .welcome(try Self.readWelcome(&reader))
        case .authenticate: self = .authenticate(proof: try Self.readProof(&reader, "proof"))
        case .accepted:
            let heldOfYou = try reader.read(UInt64.self, "heldOfYou")
            self = .accepted(Accepted(heldOfYou: heldOfYou, proof: try Self.readOptionalProof(&reader, .accepted)))
        case .pull:
            let epoch = try reader.read(Epoch.self, "knownEpoch")
            let after = try reader.read(UInt64.self, "after")
            let follow = try reader.read(UInt8.self, "follow")
            guard follow <= 1 else { throw .invalidValue(.pull, field: "follow", value: UInt64(follow)) }
            let maxBatchBytes = try reader.read(UInt32.self, "maxBatchBytes")
            let heldOfYou = try reader.read(UInt64.self, "heldOfYou")
            let known = epoch.wireBytes.allSatisfy { $0 == 0 } ? nil : epoch
            self = .pull(Pull(knownEpoch: known, after: after, follow: follow == 1, maxBatchBytes: maxBatchBytes, heldOfYou: heldOfYou))
        case .batch:
            let through = try reader.read(UInt64.self, "through")
            let count = try reader.read(UInt32.self, "count")
            self = .batch(through: through, events: try reader.readEvents(count: Int(count), "events"))
        case .ack: self = .ack(through: try reader.read(UInt64.self, "through"))
        case .caughtUp: self = .caughtUp(position: try reader.read(UInt64.self, "position"))
        case .snapshotRequired:
            self = .snapshotRequired(
                reason: try reader.read(Message.SnapshotReason.self, "reason"), epoch: try reader.read(Epoch.self, "epoch"),
                horizon: try reader.read(UInt64.self, "horizon"))
        case .snapshotRequest: self = .snapshotRequest
        case .snapshotBatch:
            let count = try reader.read(UInt32.self, "count")
            self = .snapshotBatch(try reader.readEvents(count: Int(count), "events"))
        case .snapshotEnd:
            self = .snapshotEnd(resumeAfter: try reader.read(UInt64.self, "resumeAfter"), epoch: try reader.read(Epoch.self, "epoch"))
        case .fetch:
            let count = try Self.readNameCount(&reader)
            var names: [RecordName] = []
            for index in 0..<count { names.append(try reader.read(RecordName.self, "names[\(index)]")) }
            self = .fetch(names)
        case .records:
            let count = try Self.readNameCount(&reader)
            var records: [Record] = []
            for index in 0..<count {
                let name = try reader.read(RecordName.self, "records[\(index)].name")
                let events = try reader.read(UInt8.self, "records[\(index)].eventCount")
                records.append(Record(name: name, events: try reader.readEvents(count: Int(events), "records[\(index)].events")))
            }
            self = .records(records)
        case .heartbeat: self = .heartbeat
        case .error:
            let raw = try reader.read(UInt16.self, "code")
            guard let code = SyncErrorCode(rawValue: raw) else { throw .invalidValue(.error, field: "code", value: UInt64(raw)) }
            self = .error(code: code, message: String(decoding: reader.readRest(), as: UTF8.self))
        case .bye: self = .bye
        }
        try reader.finish()
    }

    private static func readHello(_ reader: inout PayloadReader) throws(MessageError) -> Hello {
        let magic = try reader.read(count: SyncProtocol.magic.count, "magic")
        guard magic.elementsEqual(SyncProtocol.magic) else { throw .badMagic(Array(magic)) }
        let min = try reader.read(UInt16.self, "minVersion")
        let max = try reader.read(UInt16.self, "maxVersion")
        guard min <= max else { throw .invalidVersionRange(min: min, max: max) }
        let role = try reader.read(SyncRole.self, "role")
        let directions = SyncDirections(rawValue: try reader.read(UInt8.self, "directions"))
        guard SyncDirections.defined.isSuperset(of: directions) else {
            throw .invalidValue(.hello, field: "directions", value: UInt64(directions.rawValue))
        }
        return Hello(
            versions: min ... max, role: role, directions: directions, replica: try reader.read(ReplicaID.self, "replica"),
            epoch: try reader.read(Epoch.self, "epoch"), nonce: try readNonce(&reader))
    }

    private static func readWelcome(_ reader: inout PayloadReader) throws(MessageError) -> Welcome {
        let version = try reader.read(UInt16.self, "version")
        let replica = try reader.read(ReplicaID.self, "replica")
        let epoch = try reader.read(Epoch.self, "epoch")
        let nonce = try readNonce(&reader)
        return Welcome(version: version, replica: replica, epoch: epoch, nonce: nonce, proof: try readOptionalProof(&reader, .welcome))
    }

    /// A proof behind its u8 length: 0 (none) or `HandshakeProof.size`.
    private static func readOptionalProof(_ reader: inout PayloadReader, _ type: FrameType) throws(MessageError) -> HandshakeProof? {
        let proofLength = try reader.read(UInt8.self, "proofLength")
        switch Int(proofLength) {
        case 0: return nil
        case HandshakeProof.size: return try readProof(&reader, "proof")
        default: throw .invalidValue(type, field: "proofLength", value: UInt64(proofLength))
        }
    }

    private static func readNonce(_ reader: inout PayloadReader) throws(MessageError) -> HandshakeNonce {
        HandshakeNonce(bytes: try reader.read(count: HandshakeNonce.size, "nonce"))!
    }

    private static func readProof(_ reader: inout PayloadReader, _ field: String) throws(MessageError) -> HandshakeProof {
        HandshakeProof(bytes: try reader.read(count: HandshakeProof.size, field))!
    }

    private static func readNameCount(_ reader: inout PayloadReader) throws(MessageError) -> Int {
        let count = Int(try reader.read(UInt16.self, "count"))
        guard fetchNames.contains(count) else {
            throw .countOutOfRange(reader.type, field: "count", count: count, allowed: fetchNames)
        }
        return count
    }
}
