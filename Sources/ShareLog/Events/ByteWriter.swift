/// Appends big-endian integers and raw bytes to a growing buffer.
struct ByteWriter {
    private(set) var bytes: [UInt8]

    init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func write(_ value: UInt8) { bytes.append(value) }

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ raw: some Collection<UInt8>) { bytes.append(contentsOf: raw) }

    /// Overwrites 4 bytes at `offset` with `value`, big-endian.
    mutating func set(_ value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value.bigEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
    }
}
