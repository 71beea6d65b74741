import FormatReference
import ShareLog
import ShareSync

/// Fuzzes the sync frame decoder (`FrameDecoder`, `FrameBuffer`) and message
/// decoding (`Message(_:)`, `EncodedEvents.decoded()`) against readers
/// written from docs/SYNC.md and docs/FORMAT.md alone.
///
/// Input: byte 0 picks the payload limit (bits 0–1: 0, 64, 4096 or the
/// default 4 MiB) and whether to seal the stream (bit 2: each frame's CRC
/// is set right, so the fuzzer gets past the checksum into the types and
/// messages); byte 1 & 7 is a number of cuts, then one byte per cut gives
/// the size of a read; the rest is the byte stream, delivered in those
/// reads and then in one last read.
///
/// Contracts: the stream decodes to exactly the frames, and stops with
/// exactly the error or "need more", that `ReferenceFrameReader` reads; in
/// one read or in the cut reads alike, each error as soon as the bytes it
/// needs are there (an oversized length after its 4 bytes), and the buffer
/// never holds a whole frame after a drain; `FrameDecoder.decode` on any
/// prefix of a frame, in a buffer of exactly that size (AddressSanitizer
/// catches a read past it), answers as the reference does; each frame
/// re-encodes to its bytes; each payload is refused by `Message(_:)` for
/// the rule `ReferenceMessageReader` names, or decodes to a message that
/// re-encodes to an equal message (and to the same bytes, except an
/// `error` whose text is not UTF-8); events inside decode exactly as
/// `ReferenceEventReader` reads them.
enum FrameFuzzTarget {
    static let limits = [0, 64, 4096, SyncProtocol.defaultMaxFrameBytes]

    /// What a `FrameBuffer` made of a stream.
    struct Decoded: Equatable {
        var frames: [Frame] = []
        var error: FrameError?
        /// The bytes held at the end.
        var held = 0
        /// How many bytes had been appended when the error came.
        var appendedAtError: Int?
    }

    static func run(_ input: UnsafeRawBufferPointer) throws(FuzzViolation) -> FuzzOutcome {
        let bytes = Array(input)
        let options = bytes.first ?? 0
        let limit = limits[Int(options & 3)]
        let sizes = bytes.dropFirst(2).prefix(bytes.count > 1 ? Int(bytes[1] & 7) : 0).map(Int.init)
        var stream = Array(bytes.dropFirst(2 + sizes.count))
        if options & 4 != 0 { stream = ReferenceFrameReader.sealed(stream, limit: limit) }
        let decoder = FrameDecoder(maxPayloadBytes: limit)
        let expected = ReferenceFrameReader.read(stream, limit: limit)

        let whole = try decode(stream, reads: [], decoder)
        try check(whole, against: expected, stream: stream, limit: limit, reads: [stream.count])
        let split = try decode(stream, reads: sizes, decoder)
        try check(split, against: expected, stream: stream, limit: limit, reads: sizes + [max(0, stream.count - sizes.reduce(0, +))])
        try FuzzViolation.check(
            split.frames == whole.frames && split.error == whole.error && split.held == whole.held,
            "the stream decodes differently in reads of \(sizes) than at once: \(split) vs \(whole)")

        for start in expected.frames.map(\.offset) + [endOffset(expected.end)] {
            try checkPrefixes(of: stream, from: start, decoder, limit: limit)
        }
        var summaries: [String] = []
        for (frame, reference) in zip(whole.frames, expected.frames) {
            let encoded = FrameEncoder.encode(frame)
            try FuzzViolation.check(
                encoded.elementsEqual(stream[reference.offset..<reference.offset + reference.size]),
                "a \(frame.type) frame decodes but re-encodes to other bytes")
            summaries.append(try checkMessage(in: frame))
        }
        if let error = whole.error {
            try FuzzViolation.check(!error.description.isEmpty, "a FrameError has no description")
            return .rejected(error.description)
        }
        return .accepted("\(whole.frames.count) frames [\(summaries.joined(separator: ", "))], \(whole.held) bytes pending")
    }

    /// Feeds `stream` to a `FrameBuffer` in reads of `reads` bytes (then the
    /// rest), draining after each, and checks that after a drain it never
    /// holds a whole frame.
    private static func decode(_ stream: [UInt8], reads: [Int], _ decoder: FrameDecoder) throws(FuzzViolation) -> Decoded {
        var buffer = FrameBuffer()
        var result = Decoded()
        var appended = 0
        var consumed = 0
        for end in readEnds(reads, count: stream.count) + [stream.count] {
            let chunk = stream[appended..<end]
            buffer.append(contentsOf: chunk)
            appended += chunk.count
            do {
                while let frame = try buffer.nextFrame(using: decoder) {
                    result.frames.append(frame)
                    consumed += Frame.headerSize + frame.payload.count
                }
            } catch {
                result.error = error
                result.appendedAtError = appended
                try FuzzViolation.check(buffer.bytesHeld == 0, "a FrameBuffer keeps \(buffer.bytesHeld) bytes after \(error)")
                break
            }
            try FuzzViolation.check(
                buffer.bytesHeld == appended - consumed,
                "after a drain the buffer holds \(buffer.bytesHeld) bytes, not the \(appended - consumed) of the incomplete frame")
            if appended - consumed >= 4 {
                let length = stream[consumed..<consumed + 4].reduce(0) { $0 << 8 | Int($1) }
                try FuzzViolation.check(appended - consumed < Frame.headerSize + length, "after a drain the buffer still holds a whole frame")
            }
        }
        result.held = buffer.bytesHeld
        return result
    }

    /// Holds a decoding against the reference: the same frames, the same
    /// end, and the error raised as soon as the bytes it needs were there.
    private static func check(
        _ decoded: Decoded, against expected: (frames: [ReferenceFrameReader.Frame], end: ReferenceFrameReader.End), stream: [UInt8],
        limit: Int, reads: [Int]
    ) throws(FuzzViolation) {
        let frames = expected.frames.map { (type: $0.type, payload: $0.payload) }
        try FuzzViolation.check(
            decoded.frames.map(\.type.rawValue) == frames.map(\.type) && decoded.frames.map(\.payload) == frames.map(\.payload),
            "reads of \(reads) decode \(decoded.frames.count) frames of types \(decoded.frames.map(\.type)), "
                + "docs/SYNC.md reads \(frames.count) of types \(frames.map(\.type))")
        let needed: Int?
        switch (expected.end, decoded.error) {
        case (.needMore(let offset, _), nil):
            try FuzzViolation.check(decoded.held == stream.count - offset, "the buffer holds \(decoded.held) bytes of the incomplete frame, not \(stream.count - offset)")
            needed = nil
        case (.oversized(let offset, let length), .oversized(let found, let refusedOver)?) where found == length && refusedOver == limit:
            needed = offset + 4
        case (.unknownType(let offset, let byte), .unknownType(let found)?) where found == byte:
            needed = offset + 5
        case (.checksum(let offset, let type, let length, let crc, let computed), .checksumMismatch(let foundType, let foundLength, let foundCRC, let foundComputed)?)
        where foundType.rawValue == type && foundLength == length && foundCRC == crc && foundComputed == computed:
            needed = offset + Frame.headerSize + length
        default:
            throw FuzzViolation("reads of \(reads) end with \(decoded.error.map { "\($0)" } ?? "need more"), docs/SYNC.md reads \(expected.end)")
        }
        guard let needed, let appended = decoded.appendedAtError else { return }
        // The error comes in the read that brings the byte it needs, not later.
        let first = readEnds(reads, count: stream.count).first { $0 >= needed } ?? stream.count
        try FuzzViolation.check(appended == first, "the error needs \(needed) bytes, which were there after \(first), but came after \(appended)")
    }

    /// Where each read of `sizes` bytes ends in a stream of `count` bytes.
    private static func readEnds(_ sizes: [Int], count: Int) -> [Int] {
        var ends: [Int] = []
        var total = 0
        for size in sizes {
            total = min(count, total + size)
            ends.append(total)
        }
        return ends
    }

    private static func endOffset(_ end: ReferenceFrameReader.End) -> Int {
        switch end {
        case .needMore(let offset, _), .oversized(let offset, _), .unknownType(let offset, _), .checksum(let offset, _, _, _, _): offset
        }
    }

    /// `FrameDecoder.decode` on prefixes of the stream from `start`, each in
    /// a buffer of exactly its size, against the reference's reading of it.
    private static func checkPrefixes(of stream: [UInt8], from start: Int, _ decoder: FrameDecoder, limit: Int) throws(FuzzViolation) {
        let left = stream.count - start
        let declared = left >= 4 ? stream[start..<start + 4].reduce(0) { $0 << 8 | Int($1) } : 0
        let total = Frame.headerSize + min(declared, limit)
        let sizes = Set([0, 1, 3, 4, 5, 8, 9, total - 1, total, left].filter { (0...left).contains($0) })
        for size in sizes.sorted() {
            let prefix = Array(stream[start..<start + size])
            let exact = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
            defer { exact.deallocate() }
            exact.copyBytes(from: prefix)
            let answer = Result { () throws(FrameError) in try decoder.decode(UnsafeRawBufferPointer(exact)) }
            let reference = ReferenceFrameReader.read(prefix, limit: limit)
            let expected: Result<FrameDecoding, FrameError>
            if let frame = reference.frames.first, let type = FrameType(rawValue: frame.type) {
                expected = .success(.frame(Frame(type: type, payload: frame.payload), consumed: frame.size))
            } else {
                switch reference.end {
                case .needMore(_, let total): expected = .success(.needMore(total: total))
                case .oversized(_, let length): expected = .failure(.oversized(length: length, limit: limit))
                case .unknownType(_, let byte): expected = .failure(.unknownType(byte))
                case .checksum(_, let type, let length, let crc, let found):
                    expected = .failure(.checksumMismatch(type: FrameType(rawValue: type)!, length: length, expected: crc, found: found))
                }
            }
            try FuzzViolation.check(answer == expected, "decode of \(size) bytes at \(start) gives \(answer), docs/SYNC.md reads \(expected)")
        }
    }

    /// Decodes the message `frame` carries and checks it against the
    /// reference; returns its summary.
    private static func checkMessage(in frame: Frame) throws(FuzzViolation) -> String {
        let reference = ReferenceMessageReader.refusal(type: frame.type.rawValue, payload: frame.payload)
        let message: Message
        do {
            message = try Message(frame)
        } catch {
            try FuzzViolation.check(!error.description.isEmpty, "a MessageError has no description")
            try FuzzViolation.check(
                reference == refusal(for: error), "a \(frame.type) payload is refused with \(error), docs/SYNC.md says \(reference.map { "\($0)" } ?? "well formed")")
            return "\(frame.type) refused"
        }
        try FuzzViolation.check(reference == nil, "a \(frame.type) payload decodes to \(message), docs/SYNC.md refuses it: \(reference!)")
        try FuzzViolation.check(message.type == frame.type, "a \(frame.type) frame decodes to a \(message.type) message")
        let again = Result { () throws(MessageError) in try Message(message.frame) }
        try FuzzViolation.check(again == .success(message), "\(message) re-encodes to a frame that reads \(again)")
        if message.frame != frame {
            let lossy: Bool = if case .error = message { String(validating: frame.payload.dropFirst(2), as: UTF8.self) == nil } else { false }
            try FuzzViolation.check(lossy, "a \(frame.type) message re-encodes to other bytes")
        }
        switch message {
        case .batch(_, let events), .snapshotBatch(let events): try checkEvents(events)
        case .records(let records): for record in records { try checkEvents(record.events) }
        default: break
        }
        return "\(frame.type)"
    }

    /// `EncodedEvents.decoded()` gives the events `ReferenceEventReader`
    /// reads, or refuses the first one it refuses.
    private static func checkEvents(_ events: EncodedEvents) throws(FuzzViolation) {
        let expected = events.encoded.map(ReferenceEventReader.read)
        let firstRefused = expected.firstIndex { if case .failure = $0 { true } else { false } }
        switch Result(catching: { () throws(MessageError) in try events.decoded() }) {
        case .success(let decoded):
            try FuzzViolation.check(
                firstRefused == nil && decoded == expected.compactMap { try? $0.get() },
                "events decode to \(decoded), docs/FORMAT.md reads \(expected)")
        case .failure(.invalidEvent(let index, _)):
            try FuzzViolation.check(index == firstRefused, "event \(index) is refused, docs/FORMAT.md first refuses \(firstRefused.map(String.init) ?? "none")")
        case .failure(let error):
            throw FuzzViolation("decoding events throws \(error), which is not invalidEvent")
        }
    }

    /// The rule of docs/SYNC.md that `error` reports broken.
    private static func refusal(for error: MessageError) -> ReferenceMessageReader.Refusal? {
        switch error {
        case .truncated(_, let field): .truncated(field: field)
        case .trailingBytes(_, let count): .trailingBytes(count: count)
        case .badMagic: .badMagic
        case .invalidValue(_, let field, let value): .invalidValue(field: field, value: value)
        case .countOutOfRange(_, let field, let count, _): .countOutOfRange(field: field, count: count)
        case .invalidVersionRange: .invalidVersionRange
        case .invalidEvent: nil
        }
    }
}
