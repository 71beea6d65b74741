internal import CLMDB

/// One key and value under a cursor.
///
/// - Important: both buffers point into the memory map. They are valid
///   until the cursor moves or writes, or its transaction ends; copy what
///   you keep.
public struct CursorEntry {
    public let key: UnsafeRawBufferPointer
    public let value: UnsafeRawBufferPointer

    init(_ key: MDB_val, _ value: MDB_val) {
        self.key = UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size)
        self.value = UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
    }
}
