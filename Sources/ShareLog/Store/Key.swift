import LMDB

/// Key encodings.
enum Key {
    static func sequence(_ sequence: UInt64) -> [UInt8] { bigEndian(sequence) }

    static func event(_ id: EventID) -> [UInt8] { id.origin.bytes + bigEndian(id.counter) }

    /// An `expiry` key: `PackedKey(expiresAt:name:)`'s bytes.
    static func expiry(_ expiresAt: Timestamp, _ name: RecordName) -> [UInt8] {
        PackedKey(expiresAt: expiresAt, name: name).bytes
    }

    /// Every `expiry` key of a share due at `time` (`expiresAt <= time`):
    /// keys sort by expiresAt first, so they all lie below this bound.
    static func due(at time: Timestamp) -> KeyRange {
        .upTo(bigEndian(UInt64(clamping: time.milliseconds) &+ 1))
    }

    /// Reads an `expiry` key: expiresAt (8) and a record name (16).
    ///
    /// - Returns: nil for a damaged key: another length, or a time past
    ///   `Int64.max` milliseconds, which `expiry(_:_:)` never writes.
    static func expiryEntry(_ key: UnsafeRawBufferPointer) -> (expiresAt: Timestamp, name: RecordName)? {
        guard key.count == 24,
              let milliseconds = integer(UnsafeRawBufferPointer(rebasing: key[..<8]), as: UInt64.self).flatMap(Int64.init(exactly:))
        else { return nil }
        return (Timestamp(milliseconds: milliseconds), RecordName(bytes: key[8...]))
    }

    /// The `expiry` value of a pending share: its winning creation's log
    /// position and its exact `expiresAt`.
    static func pendingValue(_ creation: ShareState.Creation) -> [UInt8] {
        PackedKey(pendingValue: creation).bytes
    }

    /// Reads an `expiry` entry into the pending share it lists.
    ///
    /// - Returns: nil for a damaged entry: a key `expiryEntry` refuses, a
    ///   value that is not 16 bytes, or an `expiresAt` the key does not index.
    static func pendingShare(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> PendingShare? {
        guard let (indexed, name) = expiryEntry(key), value.count == 16,
              let position = integer(UnsafeRawBufferPointer(rebasing: value[..<8]), as: UInt64.self),
              let milliseconds = integer(UnsafeRawBufferPointer(rebasing: value[8...]), as: Int64.self),
              indexed.milliseconds == max(milliseconds, 0)
        else { return nil }
        return PendingShare(name: name, creationPosition: position, expiresAt: Timestamp(milliseconds: milliseconds))
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    /// Lowercase hexadecimal, two digits a byte: how reports and errors show a key.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Reads a big-endian integer that fills `bytes`, or nil for another size.
    static func integer<T: FixedWidthInteger>(_ bytes: UnsafeRawBufferPointer, as: T.Type = T.self) -> T? {
        guard bytes.count == MemoryLayout<T>.size else { return nil }
        return T(bigEndian: bytes.loadUnaligned(as: T.self))
    }
}
