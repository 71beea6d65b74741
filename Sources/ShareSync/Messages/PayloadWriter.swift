import ShareLog

/// Appends a message's fields to a payload, integers big-endian.
struct PayloadWriter {
    private(set) var bytes: [UInt8] = []

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ raw: some Collection<UInt8>) { bytes.append(contentsOf: raw) }

    mutating func write(_ identifier: some Identifier) { bytes.append(contentsOf: identifier.wireBytes) }

    /// Each event as length u32 ‖ bytes, after no count (the caller writes it).
    ///
    /// - Precondition: every event is at most `UInt32.max` bytes.
    mutating func writeEach(_ events: EncodedEvents) {
        for event in events.encoded {
            precondition(event.count <= UInt32.max, "an event on the wire is at most 4 GiB - 1 bytes")
            write(UInt32(event.count))
            write(event)
        }
    }
}
