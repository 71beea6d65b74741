import Glibc

/// Key material: bytes that are zeroed when the last reference goes
/// (`explicit_bzero`, which the compiler may not remove), that never print
/// (`description` gives only the count), and that are read only inside
/// `withUnsafeBytes`, so no copy of them outlives a call by accident.
///
/// A class, so that copies of a key share one buffer and one zeroing.
/// `Sendable`: the buffer is written once, in `init`, and only read after.
package final class SecretBytes: Sendable, CustomStringConvertible {
    // nonisolated(unsafe): written only in init, before any other thread
    // can see the instance; read-only afterwards, and zeroed in deinit when
    // no reference is left.
    private nonisolated(unsafe) let storage: UnsafeMutableRawBufferPointer

    /// Copies `bytes` into memory of the secret's own.
    package init(_ bytes: some Collection<UInt8>) {
        storage = .allocate(byteCount: bytes.count, alignment: 1)
        storage.copyBytes(from: bytes)
    }

    /// Makes `count` bytes that `fill` writes in place, so the secret never
    /// exists in memory that is not zeroed after (a key derivation's output).
    package init<E: Error>(count: Int, fill: (UnsafeMutableRawBufferPointer) throws(E) -> Void) throws(E) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        do { try fill(storage) } catch {
            Self.zero(storage)
            storage.deallocate()
            throw error
        }
        self.storage = storage
    }

    deinit {
        Self.zero(storage)
        storage.deallocate()
    }

    /// How many bytes the secret has.
    package var count: Int { storage.count }

    /// Runs `body` with the bytes; they are valid only inside it.
    package func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(storage))
    }

    package var description: String { "<secret, \(count) bytes>" }

    /// Zeroes `bytes` in place (`explicit_bzero`): for a transient copy of
    /// a secret that had to pass through an array (a key file's text, a
    /// random generator's output) before it could go into `SecretBytes`.
    package static func erase(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { zero($0) }
    }

    private static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        if let base = buffer.baseAddress { explicit_bzero(base, buffer.count) }
    }
}
