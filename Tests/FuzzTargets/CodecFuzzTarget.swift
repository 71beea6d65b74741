import CZlib
import FormatReference
import ShareLog

/// Fuzzes `EventCodec`: decoding arbitrary bytes must give exactly what
/// `ReferenceEventReader`, written from docs/FORMAT.md alone, reads from them
/// (the same event, or a refusal for the same broken rule), and an event that
/// decodes must encode back to exactly the same bytes (the log and the wire
/// relay events byte for byte, and the checksum covers every byte).
///
/// Random bytes almost never carry a valid CRC-32, so each input is decoded
/// twice: as it is, and "sealed", with its last four bytes replaced by the
/// checksum of the rest. The sealed form lets the fuzzer explore the header
/// and payload rules behind the checksum.
enum CodecFuzzTarget {
    static func run(_ input: UnsafeRawBufferPointer) throws(FuzzViolation) -> FuzzOutcome {
        let outcome = try decode(input)
        guard input.count >= 4 else { return outcome }
        var sealed = Array(input)
        let covered = sealed.count - 4
        let checksum = UInt32(sealed.withUnsafeBufferPointer { crc32_z(0, $0.baseAddress, covered) })
        withUnsafeBytes(of: checksum.bigEndian) { sealed.replaceSubrange(covered..., with: $0) }
        let sealedResult = sealed.withUnsafeBytes { raw in Result { () throws(FuzzViolation) in try decode(raw) } }
        let sealedOutcome = try sealedResult.get()
        if case .accepted = outcome { return outcome }
        return sealedOutcome
    }

    /// Decodes `input`, holds the answer against the reference reader's, and
    /// checks the round trip of what decodes.
    private static func decode(_ input: UnsafeRawBufferPointer) throws(FuzzViolation) -> FuzzOutcome {
        let expected = ReferenceEventReader.read(Array(input))
        let event: Event
        do {
            event = try EventCodec.decode(input)
        } catch {
            try FuzzViolation.check(!error.description.isEmpty, "an EventDecodingError has no description")
            try FuzzViolation.check(
                expected == .failure(refusal(for: error)),
                "EventCodec refuses \(hex(input)) with \(error), but docs/FORMAT.md reads \(expected)")
            return .rejected(error.description)
        }
        try FuzzViolation.check(
            expected == .success(event), "EventCodec decodes \(hex(input)) to \(event), but docs/FORMAT.md reads \(expected)")
        let encoded = EventCodec.encode(event)
        try FuzzViolation.check(
            encoded.elementsEqual(input),
            "\(event.id) decodes but re-encodes to other bytes (\(hex(input)) in, \(hex(encoded)) out)")
        return .accepted(summary(of: event))
    }

    /// The rule of docs/FORMAT.md that `error` reports broken.
    private static func refusal(for error: EventDecodingError) -> ReferenceEventReader.Refusal {
        switch error {
        case .truncated: .tooShort
        case .unsupportedVersion: .version
        case .lengthMismatch: .length
        case .checksumMismatch: .checksum
        case .undefinedFlags: .flags
        case .malformedPayload: .payload
        }
    }

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.prefix(64).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    private static func summary(of event: Event) -> String {
        switch event.kind {
        case .shareCreated(let created):
            "\(event.id) shareCreated \(created.recordName) card \(created.vCard.map { "\($0.count) bytes" } ?? "redacted")"
        case .shareExpired(let expired):
            "\(event.id) shareExpired \(expired.recordName) \(expired.reason)"
        case .unknown(let code, _, let payload):
            "\(event.id) kind \(code), \(payload.count) payload bytes"
        }
    }
}
